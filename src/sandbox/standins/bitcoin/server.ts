import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../../../core/time.js';
import { threadEntry } from '../../thread-entry.js';
import { HttpError, type Standin, type StandinDialect, startStandin } from '../base/server.js';
import { dispatch, handleRpc, RpcFailure } from './rpc.js';
import { BitcoinWorld } from './world.js';

/**
 * The Bitcoin Core RPC stand-in: `POST /` with JSON-RPC (1.0 or 2.0, batches too) and HTTP Basic authentication
 * (`rpcuser`/`rpcpassword`, or `__cookie__` and the secret of the cookie file it writes, as bitcoind does), over the
 * world's chain (`world.ts`), which grows with the clock: every request first mines the blocks whose time has come.
 */
export const SANDBOX_BITCOIN_USER = 'sandbox';
export const SANDBOX_BITCOIN_PASSWORD = 'sandbox';

export interface BitcoinStandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  readonly days: number;
  /** Where the chain (and the cookie file) are kept; none: memory only, no cookie file. */
  readonly dir?: string;
  readonly user?: string;
  readonly password?: string;
  readonly port?: number;
  /** Act as a pruned node: no block data below this height. */
  readonly pruneHeight?: number;
  /** Methods answered "Method not found" (a provider that disables them). */
  readonly disabled?: readonly string[];
  /** A world already made (tests serve other chains: `staticWorld`). */
  readonly world?: ChainWorld;
}

/** What the RPC serves: a chain, how it grows with time, and its mempool. */
export type ChainWorld = Pick<BitcoinWorld, 'chain' | 'advance' | 'mempool'>;

/** A chain that does not grow and has an empty mempool (Bitcoin Core's test blocks). */
export const staticWorld = (chain: BitcoinWorld['chain']): ChainWorld => ({
  chain,
  advance: () => [],
  mempool: () => [],
});

export interface BitcoinStandin extends Standin {
  /** The chain served (throws while a first start still builds it: see `ready`). */
  readonly world: ChainWorld;
  /** Resolves once the chain is built (at once unless a first start builds it on a thread). */
  readonly ready: Promise<void>;
  /** The cookie file, when written. */
  readonly cookieFile: string | undefined;
  /** Writes a new cookie (what bitcoind does at a restart). */
  rotateCookie(): void;
}

/** Builds the chain in `dir` on a thread: `done` resolves when it is on disk; `stop` ends the thread. */
function buildOnThread(options: { seed: number; nowSeconds: number; days: number; dir: string }) {
  const entry = threadEntry(import.meta.url, 'generate-thread');
  const worker = new Worker(entry.filename, { eval: entry.eval, workerData: options });
  const done = new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bitcoin chain thread exited ${code}`))));
  });
  return { done, stop: () => worker.terminate().then(() => undefined) };
}

/** Bitcoin Core's answer while it loads its block index (RPC_IN_WARMUP): clients retry. */
const WARMUP = { code: -28, message: 'Loading block index…' };

export async function startBitcoinStandin(options: BitcoinStandinOptions): Promise<BitcoinStandin> {
  const nowSeconds = () => Math.floor(options.clock.nowMs() / 1000);
  const open = () =>
    BitcoinWorld.open({
      seed: options.seed,
      nowSeconds: nowSeconds(),
      days: options.days,
      ...(options.dir ? { dir: options.dir } : {}),
    });
  let world: ChainWorld | undefined;
  let ready: Promise<void>;
  let stopThread: (() => Promise<void>) | undefined;
  let closed = false;
  if (options.world) {
    world = options.world;
    ready = Promise.resolve();
  } else if (options.dir && !existsSync(path.join(options.dir, 'meta.json'))) {
    // A first start: the history's signing runs on a thread; the node answers "warming up" meanwhile.
    const dir = options.dir;
    const thread = buildOnThread({ seed: options.seed, nowSeconds: nowSeconds(), days: options.days, dir });
    stopThread = thread.stop;
    ready = thread.done.then(() => {
      if (!closed) world = open();
    });
    ready.catch(() => undefined);
  } else {
    world = open();
    ready = Promise.resolve();
  }
  const user = options.user ?? SANDBOX_BITCOIN_USER;
  const password = options.password ?? SANDBOX_BITCOIN_PASSWORD;
  const cookieFile = options.dir ? path.join(options.dir, '.cookie') : undefined;
  let cookie = '';
  const rotateCookie = () => {
    cookie = randomBytes(32).toString('hex');
    if (cookieFile) {
      mkdirSync(path.dirname(cookieFile), { recursive: true });
      writeFileSync(cookieFile, `__cookie__:${cookie}`, { mode: 0o600 });
    }
  };
  rotateCookie();
  const accepted = () => [
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    `Basic ${Buffer.from(`__cookie__:${cookie}`).toString('base64')}`,
  ];
  const dialect: StandinDialect = {
    defaultResource: 'rpc',
    commonHeaders: { 'content-type': 'application/json' },
    // bitcoind answers a refused login with an empty 401 and `WWW-Authenticate`.
    errorBody: () => undefined,
    identify(headers) {
      const auth = headers.authorization;
      if (typeof auth !== 'string' || !accepted().includes(auth)) {
        throw new HttpError(401, 'unauthorized', { 'www-authenticate': 'Basic realm="jsonrpc"' });
      }
      return auth.slice(0, 12);
    },
    rateLimitHeaders: () => ({}),
    primaryLimited: () => ({ status: 503 }),
    secondaryLimited: () => ({ status: 503 }),
  };
  const disabled = new Set(options.disabled ?? []);
  const standin = await startStandin(
    {
      name: 'bitcoin',
      dialect,
      routes: [
        {
          method: 'POST',
          path: '/',
          resource: 'rpc',
          handler: (req) => {
            if (!world) {
              const reply = handleRpc(req.body, () => {
                throw new RpcFailure(WARMUP.code, WARMUP.message);
              });
              return { status: reply.status, body: reply.body };
            }
            const now = Math.floor(req.nowMs / 1000);
            world.advance(now);
            const ctx = {
              chain: world.chain,
              nowSeconds: now,
              mempool: world.mempool(now),
              disabled,
              ...(options.pruneHeight !== undefined ? { pruneHeight: options.pruneHeight } : {}),
            };
            const reply = handleRpc(req.body, (method, params) => dispatch(ctx, method, params));
            return { status: reply.status, body: reply.body };
          },
        },
      ],
    },
    {
      seed: options.seed,
      clock: options.clock,
      ...(options.port !== undefined ? { port: options.port } : {}),
      rateLimit: { limit: 1_000_000_000, anonymousLimit: 0 },
    },
  );
  return {
    ...standin,
    close: async () => {
      closed = true;
      await stopThread?.();
      await standin.close();
    },
    get world(): ChainWorld {
      if (!world) throw new Error('the Bitcoin stand-in is still building its chain (await ready)');
      return world;
    },
    ready,
    cookieFile,
    rotateCookie,
  };
}
