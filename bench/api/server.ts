/**
 * Benchmark child: the real service (`role: 'serve'`, SQLite in a temp DATA_DIR, logging at info to stdout, which
 * the parent points at a file), seeded with two pool-analytics documents (≈3 KB and ≈21 KB served) and one token
 * with a huge rate limit. Started by bench/api/run.ts through `fork` (IPC channel); sends
 * `{ type: 'ready', port, token, documents }`.
 *
 * Env: BENCH_DATA_DIR (required), BENCH_LOG_LEVEL (default info).
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/index.js';
import { closeOnSignals, createLogger, startService } from '../../src/runtime/index.js';
import { DatasetRepository } from '../../src/store/datasets.js';
import { TokenRepository } from '../../src/store/tokens.js';
import { BENCH_DOCUMENTS } from './fixture.js';

const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir) throw new Error('BENCH_DATA_DIR is not set');
if (!process.send) throw new Error('bench/api/server.ts must be started with an IPC channel (fork)');

// Only the keys the benchmark means: DATABASE_URL / REDIS_URL of the caller's environment must not leak in.
const config = loadConfig({
  DATA_DIR: dataDir,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
});
// As in production (src/cli/main.ts): pino to stdout.
const logger = createLogger(config);
const service = await startService({ role: 'serve', config, logger, listen: true });
closeOnSignals(service);
// The parent went away (even by SIGKILL): do not linger.
process.on('disconnect', () => {
  service.close().finally(() => process.exit(0));
});

const nowSeconds = Math.floor(Date.now() / 1000);
await new DatasetRepository(service.store.db).publish({
  computation: 'bench.pool-analytics',
  area: 'dex',
  computedAt: nowSeconds,
  documents: BENCH_DOCUMENTS.map((d) => ({
    path: d.path,
    data: d.payload(nowSeconds),
    asOf: nowSeconds - 60,
    source: 'uniswap-v3 pool events (bench fixture)',
    methodology: 'dex.pool-analytics',
    // Fresh for the whole run: the served body is the cached, non-stale rendering.
    freshFor: 86_400,
  })),
});
const { token } = await new TokenRepository(service.store.db).create(
  { name: 'bench', expiresAt: null, rateLimit: 100_000_000, rateWindowSeconds: 60 },
  nowSeconds,
);
await service.syncNow();

const address = service.app!.server.address() as AddressInfo;
process.send({
  type: 'ready',
  port: address.port,
  token,
  documents: BENCH_DOCUMENTS.map((d) => ({ doc: d.doc, path: d.path })),
});
