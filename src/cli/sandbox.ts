import { Command } from 'commander';
import pino from 'pino';
import { isoSeconds, systemClock } from '../core/time.js';
import { createLogger, isOperatorError } from '../runtime/index.js';
import { runSandbox } from '../runtime/sandbox-run.js';
import { jsonRpc } from '../sandbox/chain/anvil.js';
import type { WorldManifest } from '../sandbox/world/manifest.js';
import { findRunningWorld, type RunningWorld, worldDir } from '../sandbox/world/running.js';
import { cliConfig } from './config.js';

/** running.json fields shown in their own place; any other field (a stand-in's base URL, …) is listed as is. */
const OWN_FIELDS = new Set([
  'rpc_url',
  'chain_id',
  'pid',
  'anvil_pid',
  'watchdog_pid',
  'started_at',
  'phase',
  'seed',
  'genesis_timestamp',
  'manifest',
  'l2_chains',
  'standins',
  'standin_chains',
  'address_book',
  'chain_contracts',
]);

type Entries = Record<string, Record<string, unknown>>;

/** Fee in hundredths of a basis point (Uniswap's unit) as a percentage: 3000 → 0.30%. */
function feePercent(fee: number): string {
  return `${(fee / 10_000).toFixed(2)}%`;
}

function protocolsOf(manifest: WorldManifest) {
  const symbol = new Map(manifest.tokens.map((t) => [t.address.toLowerCase(), t.symbol]));
  const token = (address: string) => ({ symbol: symbol.get(address.toLowerCase()) ?? '?', address });
  return manifest.dex.map((d) => ({
    protocol: d.protocol,
    version: d.version,
    design: d.design,
    factory: d.factory,
    router: d.router,
    position_manager: d.positionManager ?? null,
    start_block: d.startBlock,
    pools: manifest.pools
      .filter((p) => p.protocol === d.protocol && p.version === d.version)
      .map((p) => ({
        address: p.address,
        pair: `${token(p.token0).symbol}/${token(p.token1).symbol}`,
        token0: token(p.token0),
        token1: token(p.token1),
        fee: p.fee,
        character: p.character,
      })),
  }));
}

/** Each sandbox chain's entry with its deployed contracts, where `start` announced them. */
function withContracts(chains: Entries, contracts: Record<string, unknown[]> | undefined): Entries {
  if (!contracts) return chains;
  return Object.fromEntries(
    Object.entries(chains).map(([id, c]) => [id, contracts[id] ? { ...c, contracts: contracts[id] } : c]),
  );
}

/** The `sandbox info` document: what a client needs to talk to the world. */
function infoDocument(running: RunningWorld, head: { number: string; timestamp: string }, dataDir: string) {
  const extras = Object.fromEntries(Object.entries(running).filter(([k]) => !OWN_FIELDS.has(k)));
  const { manifest } = running;
  return {
    rpc_url: running.rpc_url,
    chain_id: running.chain_id,
    block_number: Number(head.number),
    block_time: isoSeconds(Number(head.timestamp)),
    phase: running.phase,
    seed: running.seed,
    genesis_time: isoSeconds(running.genesis_timestamp),
    started_at: running.started_at,
    pid: running.pid,
    anvil_pid: running.anvil_pid,
    data_dir: worldDir(dataDir),
    ...extras,
    // Every chain a client can reach, by registry chain id: the world's own, the layer-2 chains, a stand-in's; each
    // sandbox chain with the contracts deployed on it (`contracts`: the world's tokens and every protocol's).
    chains: withContracts(
      {
        [manifest.chain]: { rpc_url: running.rpc_url, chain_id: running.chain_id },
        ...((running.l2_chains as Entries | undefined) ?? {}),
        ...((running.standin_chains as Entries | undefined) ?? {}),
      },
      running.chain_contracts as Record<string, unknown[]> | undefined,
    ),
    // The address book the service is given: per chain, its chain id, tokens and entry points (absent from a world
    // announced before it).
    ...(running.address_book ? { address_book: running.address_book } : {}),
    // Every stand-in by service: `url` (its base-URL key's value) and the credentials a client needs.
    standins: ((running.standins as Entries | undefined) ?? {}) as Entries,
    weth: manifest.weth,
    deployer: manifest.deployer,
    tokens: manifest.tokens.map((t) => ({ symbol: t.symbol, name: t.name, address: t.address, decimals: t.decimals })),
    protocols: protocolsOf(manifest),
    // Worlds saved before price feeds existed have none.
    price_feeds: (manifest.oracles ?? []).map((o) => ({
      oracle: o.oracle,
      pair: o.pair,
      address: o.address,
      heartbeat_seconds: o.heartbeatSeconds,
      deviation_threshold_pct: o.deviationThresholdPct,
      decimals: o.decimals,
    })),
  };
}

function render(doc: ReturnType<typeof infoDocument>, extras: Record<string, unknown>): string {
  const lines = [
    `Sandbox world (seed ${doc.seed}, ${doc.phase}), genesis ${doc.genesis_time}, started ${doc.started_at} (pid ${doc.pid})`,
    `  RPC URL   ${doc.rpc_url}`,
    `  chain id  ${doc.chain_id}`,
    `  block     ${doc.block_number} at ${doc.block_time}`,
    ...Object.entries(extras).map(([k, v]) => `  ${k}  ${String(v)}`),
    `  data      ${doc.data_dir}`,
  ];
  const others = Object.entries(doc.chains).filter(([, c]) => c.rpc_url !== doc.rpc_url);
  if (others.length) {
    lines.push('', 'Chains');
    for (const [id, c] of others) {
      lines.push(`  ${id.padEnd(10)}  ${String(c.rpc_url)}`);
      // The protocols a layer-2 chain hosts: their contracts (the world's tokens there are in --json).
      const hosted = ((c.contracts as { address: string; name: string; protocol: string }[] | undefined) ?? []).filter(
        (x) => x.protocol !== 'world',
      );
      for (const x of hosted) lines.push(`    ${x.protocol} ${x.name}  ${x.address}`);
    }
  }
  if (Object.keys(doc.standins).length) {
    lines.push('', 'Stand-ins');
    for (const [service, s] of Object.entries(doc.standins)) lines.push(`  ${service.padEnd(10)}  ${String(s.url)}`);
  }
  if (doc.tokens.length) {
    lines.push('', 'Tokens');
    const width = Math.max(...doc.tokens.map((t) => t.symbol.length));
    for (const t of doc.tokens) lines.push(`  ${t.symbol.padEnd(width)}  ${t.address}  ${t.decimals} decimals`);
  }
  for (const p of doc.protocols) {
    lines.push('', `${p.protocol} ${p.version} (${p.design}), from block ${p.start_block}`);
    lines.push(`  factory           ${p.factory}`, `  router            ${p.router}`);
    if (p.position_manager) lines.push(`  position manager  ${p.position_manager}`);
    if (p.pools.length) {
      lines.push('  pools');
      const width = Math.max(...p.pools.map((pool) => `${pool.pair} ${feePercent(pool.fee)}`.length));
      for (const pool of p.pools) {
        lines.push(`    ${`${pool.pair} ${feePercent(pool.fee)}`.padEnd(width)}  ${pool.address}  ${pool.character}`);
      }
    }
  }
  if (doc.price_feeds.length) {
    lines.push('', 'Price feeds');
    const width = Math.max(...doc.price_feeds.map((f) => `${f.oracle} ${f.pair}`.length));
    for (const f of doc.price_feeds) {
      lines.push(
        `  ${`${f.oracle} ${f.pair}`.padEnd(width)}  ${f.address}  heartbeat ${f.heartbeat_seconds} s, ` +
          `threshold ${f.deviation_threshold_pct} %`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

async function info(opts: { json?: boolean }): Promise<void> {
  const cfg = cliConfig();
  const found = await findRunningWorld(cfg.dataDir);
  let head: { number: string; timestamp: string } | undefined;
  if (found.running) {
    try {
      head = await jsonRpc(found.running.rpc_url, 'eth_getBlockByNumber', ['latest', false], 5000);
    } catch {
      // Stopped between the two calls: reported below like any other world that is not running.
    }
  }
  if (!found.running || !head) {
    const why = found.running ? 'its RPC stopped answering' : found.reason;
    process.stderr.write(
      `protoscore: no sandbox world is running in ${worldDir(cfg.dataDir)} (${why}); ` +
        '`protoscore start` (or `protoscore sandbox run`) runs one when no RPC_URL_<CHAIN> is configured\n',
    );
    process.exitCode = 1;
    return;
  }
  const doc = infoDocument(found.running, head, cfg.dataDir);
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const extras = Object.fromEntries(Object.entries(found.running).filter(([k]) => !OWN_FIELDS.has(k)));
  process.stdout.write(render(doc, extras));
}

/**
 * `sandbox run`: the world alone, until SIGINT/SIGTERM. Stdout carries the configuration (once the world answers)
 * and a line when it has caught up with the clock; the logs go to stderr.
 */
async function run(): Promise<void> {
  const cfg = cliConfig();
  const logger = createLogger(cfg, pino.destination(2));
  let sandbox: Awaited<ReturnType<typeof runSandbox>>;
  try {
    sandbox = await runSandbox({ config: cfg, logger, clock: systemClock });
  } catch (err) {
    if (!isOperatorError(err)) throw err;
    process.stderr.write(`protoscore: ${(err as Error).message}\n`);
    process.exit(2);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'sandbox: stopping (saving the world)');
    sandbox.stop().then(
      () => process.exit(process.exitCode ?? 0),
      (err: unknown) => {
        logger.error({ err }, 'sandbox: stopping failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.stdout.write(
    `protoscore sandbox run: the world answers; point other processes at it with CONFIG_FILE=${sandbox.configFile}:\n` +
      `${JSON.stringify(sandbox.keys, null, 2)}\n`,
  );
  sandbox.caughtUp.then(
    () =>
      process.stdout.write(
        `protoscore sandbox run: caught up with the clock; live, a block every ${cfg.sandbox.blockSeconds} s\n`,
      ),
    (err: unknown) => {
      logger.error({ err }, 'sandbox: catching up with the clock failed');
      process.exitCode = 1;
      stop('error');
    },
  );
}

/** `protoscore sandbox …`: the embedded world's commands. */
export function sandboxCommand(): Command {
  const sandbox = new Command('sandbox').description('The embedded sandbox world (local chain and stand-ins)');
  sandbox
    .command('info')
    .description('RPC URL, chain id, block height and deployed addresses of the running sandbox world')
    .option('--json', 'one JSON object')
    .action((opts: { json?: boolean }) => info(opts));
  sandbox
    .command('run')
    .description(
      'Run the sandbox world alone (chains, stand-ins; no API, no jobs) and write DATA_DIR/sandbox/config.json, ' +
        'the configuration (CONFIG_FILE) that points serve, worker or start at it',
    )
    .action(() => run());
  return sandbox;
}
