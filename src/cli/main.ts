import { Command, InvalidArgumentError } from 'commander';
import type { Logger } from 'pino';
import pino from 'pino';
import type { AreaEnv } from '../areas/kit/module.js';
import type { Config } from '../config/index.js';
import { isoSeconds, nowSeconds, parseDuration, systemClock } from '../core/time.js';
import { JobRunner } from '../jobs/runner.js';
import type { AddressBook } from '../registry/address-book.js';
import {
  areaEnv,
  besideRunningSandbox,
  closeOnSignals,
  createLogger,
  type Embedded,
  enabledJobs,
  isOperatorError,
  logDestination,
  openSources,
  registryBook,
  type SourceSetup,
  setUpSources,
  standinLabels,
  startEmbedded,
  startService,
  storeEtags,
  storeFor,
} from '../runtime/index.js';
import { addressBookFromManifest } from '../sandbox/world/address-book.js';
import { findRunningWorld } from '../sandbox/world/running.js';
import type { Store } from '../store/db.js';
import { JobRepository } from '../store/jobs.js';
import { TokenRepository } from '../store/tokens.js';
import { cliConfig } from './config.js';
import {
  forgetQuickstart,
  quickstartLines,
  quickstartToken,
  quickstartTokenFile,
  replaceQuickstart,
} from './quickstart.js';
import { sandboxCommand } from './sandbox.js';
import { securityCommand } from './security.js';
import { StartTerminal } from './terminal.js';

/** Short commands log warnings only, to stderr, so stdout carries just their output. */
function quietLogger(cfg: Config): Logger {
  return createLogger({ ...cfg, logLevel: cfg.logLevel === 'info' ? 'warn' : cfg.logLevel }, pino.destination(2));
}

export function parseRate(text: string): { limit: number; windowSeconds: number } {
  const m = /^(\d{1,7})(?:\/(s|sec|second|m|min|minute|h|hour))?$/.exec(text.trim());
  if (!m || Number(m[1]) < 1) throw new InvalidArgumentError('expected N/min, N/s or N/hour (e.g. 600/min)');
  const unit = m[2] ?? 'min';
  const windowSeconds = unit.startsWith('s') ? 1 : unit.startsWith('h') ? 3600 : 60;
  return { limit: Number(m[1]), windowSeconds };
}

function parseExpiry(text: string): number {
  const seconds = parseDuration(text);
  if (seconds === undefined) throw new InvalidArgumentError('expected a duration such as 30d, 12h, 45m or 2w');
  return seconds;
}

async function withStore<T>(fn: (cfg: Config, store: ReturnType<typeof storeFor>) => Promise<T>): Promise<T> {
  const cfg = cliConfig();
  const store = storeFor(cfg);
  try {
    await store.migrate();
    return await fn(cfg, store);
  } finally {
    await store.close();
  }
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** A bad RPC_URL_<CHAIN> or a saved sandbox world made with other settings: say so, no stack trace. */
function exitOnOperatorError(err: unknown): void {
  if (!isOperatorError(err)) return;
  process.stderr.write(`protoscore: ${(err as Error).message}\n`);
  process.exit(2);
}

/** `serve` (API only) and `worker` (jobs only), each in this process. */
async function runRole(role: 'serve' | 'worker'): Promise<void> {
  const initial = cliConfig();
  const logger = createLogger(initial);
  let setup: SourceSetup;
  // The jobs' store, opened first: the sources keep their ETags in it (its migrations run as the service starts).
  const store = storeFor(initial);
  try {
    setup = await setUpSources({ config: initial, role, logger, clock: systemClock, store });
  } catch (err) {
    await store.close();
    exitOnOperatorError(err);
    throw err;
  }
  const cfg = setup.config;
  const github = setup.sources.get('github');
  if (github && !github.token) logger.warn('development: no GITHUB_TOKEN, so GitHub allows 60 requests an hour');
  const service = await startService({
    role,
    config: cfg,
    logger,
    store,
    sources: setup.sources,
    book: setup.book,
    onClose: async () => {
      await setup.close();
      await store.close();
    },
  });
  closeOnSignals(service);
  if (role === 'worker') return;
  const base = `http://${displayHost(cfg.host)}:${cfg.port}`;
  const where = cfg.databaseUrl ? 'PostgreSQL' : `SQLite at ${service.store.location}`;
  process.stdout.write(`protoscore ${role}: API on ${base} (${where})\n`);
}

/**
 * `start`: the API here, the job side (sources, sandbox world, stand-ins, jobs) on a worker thread. At a terminal,
 * readable log lines and a progress bar for the first start; elsewhere JSON lines.
 */
async function runStart(opts: { token: boolean }): Promise<void> {
  const cfg = cliConfig();
  const isTerminal = process.stdout.isTTY === true;
  let terminal: StartTerminal | undefined;
  const { format, destination } = logDestination(cfg, {
    terminal: isTerminal,
    out: (text) => (terminal ? terminal.write(text) : process.stdout.write(text)),
  });
  terminal = new StartTerminal(isTerminal && format === 'pretty');
  const logger = createLogger(cfg, destination);
  let started: Embedded;
  try {
    started = await startEmbedded({
      config: cfg,
      env: process.env,
      logger,
      logLine: (line) => destination.write(line),
      onProgress: terminal.event,
      // Printed as soon as the API listens, before the job side (and a progress bar) starts.
      beforeJobSide: async (service) => {
        // The port listened on (PORT=0 picks one).
        const address = service.app?.server.address();
        const port = address && typeof address === 'object' ? address.port : cfg.port;
        const base = `http://${displayHost(cfg.host)}:${port}`;
        const where = cfg.databaseUrl ? 'PostgreSQL' : `SQLite at ${service.store.location}`;
        const lines = [`protoscore start: API on ${base} (${where}); jobs on a worker thread`];
        if (opts.token) {
          const q = await quickstartToken(
            service.store,
            cfg.dataDir,
            cfg.defaultRatePerMinute,
            nowSeconds(systemClock),
          );
          lines.push(...quickstartLines(q, base));
        }
        terminal?.write(`${lines.join('\n')}\n`);
      },
      onJobSideCrash: (err, service) => {
        terminal?.stop();
        logger.error({ err }, 'the job side stopped unexpectedly; stopping the service');
        service.close().finally(() => process.exit(1));
      },
    });
  } catch (err) {
    terminal.stop();
    exitOnOperatorError(err);
    throw err;
  }
  const service = started;
  const closeTerminal = terminal;
  closeOnSignals({
    ...service,
    close: () => {
      closeTerminal.stop();
      return service.close();
    },
  });
  const { world, standins, githubAnonymous } = started.sources;
  if (githubAnonymous) logger.warn('development: no GITHUB_TOKEN, so GitHub allows 60 requests an hour');
  if (world) {
    const lines = [
      `Sandbox chain: ${world.rpcUrl} (chain id ${world.chainId}); \`protoscore sandbox info\` lists its contracts.`,
      'DEX datasets appear once the world has caught up with the clock and the first computation has run' +
        ' (the first start simulates the history; later starts resume in seconds).',
      ...standins
        .filter((x) => x.kind === 'github')
        .map((x) => `Sandbox GitHub stand-in: ${x.url} (development data, first pass in about a minute).`),
    ];
    terminal.write(`${lines.join('\n')}\n`);
  }
}

/**
 * What `jobs list|run` read: the configured sources, or else those of the sandbox world running from this
 * `DATA_DIR` (its chain and stand-ins, as `start` configured them), so an operator can run `jobs run dex.ingest`
 * beside `protoscore start`.
 */
async function cliEnv(cfg: Config, store: Store): Promise<AreaEnv> {
  const base = { role: 'worker' as const, logger: quietLogger(cfg), etags: storeEtags(store, systemClock) };
  const ctx = { ...base, labels: standinLabels(cfg) };
  if (cfg.rpcUrls.size) return areaEnv(cfg, openSources(cfg, ctx), registryBook(cfg));
  const found = await findRunningWorld(cfg.dataDir);
  if (!found.running) return areaEnv(cfg, openSources(cfg, ctx));
  const { config, labels } = besideRunningSandbox(cfg, found.running);
  // The book `start` gave its service (every chain's, from its protocol list); a world announced before it, its own.
  const book =
    (found.running.address_book as AddressBook | undefined) ?? addressBookFromManifest(found.running.manifest);
  return areaEnv(config, openSources(config, { ...base, labels }), book);
}

export function buildCli(): Command {
  const program = new Command('protoscore')
    .description('Analytics and risk scores for crypto protocols, computed from primary sources')
    .showHelpAfterError();

  program
    .command('start')
    .description('API and worker in one process (the embedded default: SQLite in DATA_DIR)')
    .option('--no-token', 'do not create the quickstart token')
    .action((opts: { token: boolean }) => runStart(opts));
  program
    .command('serve')
    .description('API only (scale out: several behind a load balancer, one PostgreSQL)')
    .action(() => runRole('serve'));
  program
    .command('worker')
    .description('Ingest and compute jobs only (several may share one PostgreSQL)')
    .action(() => runRole('worker'));
  program
    .command('migrate')
    .description('Apply database migrations')
    .action(() =>
      withStore(async (_cfg, store) => {
        process.stdout.write(`migrations up to date (${store.dialect}: ${store.location})\n`);
      }),
    );

  const keys = program.command('keys').description('Manage API tokens');
  keys
    .command('create')
    .description('Create a token; prints it once, as the last line of stdout')
    .requiredOption('--name <name>', 'who or what the token is for')
    .option('--expires <duration>', 'lifetime such as 30d, 12h, 2w (default: never)', parseExpiry)
    .option(
      '--rate <rate>',
      'rate limit such as 600/min, 10/s, 5000/hour (default RATE_LIMIT_PER_MINUTE/min)',
      parseRate,
    )
    .action((opts: { name: string; expires?: number; rate?: { limit: number; windowSeconds: number } }) =>
      withStore(async (cfg, store) => {
        const now = nowSeconds(systemClock);
        const rate = opts.rate ?? { limit: cfg.defaultRatePerMinute, windowSeconds: 60 };
        const { id, token } = await new TokenRepository(store.db).create(
          {
            name: opts.name,
            expiresAt: opts.expires ? now + opts.expires : null,
            rateLimit: rate.limit,
            rateWindowSeconds: rate.windowSeconds,
          },
          now,
        );
        process.stdout.write(
          `created token ${id} (${opts.name}), ${rate.limit} requests per ${rate.windowSeconds}s, ` +
            `${opts.expires ? `expires ${isoSeconds(now + opts.expires)}` : 'no expiry'}; it is shown only now:\n${token}\n`,
        );
      }),
    );
  keys
    .command('list')
    .description('List tokens (never the tokens themselves)')
    .option('--json', 'one JSON array')
    .action((opts: { json?: boolean }) =>
      withStore(async (_cfg, store) => {
        const now = nowSeconds(systemClock);
        const rows = (await new TokenRepository(store.db).list()).map((t) => ({
          id: t.id,
          name: t.name,
          created: isoSeconds(t.created_at),
          expires: t.expires_at === null ? null : isoSeconds(t.expires_at),
          last_used: t.last_used_at === null ? null : isoSeconds(t.last_used_at),
          rate: `${t.rate_limit}/${t.rate_window_seconds}s`,
          state:
            t.revoked_at !== null ? 'revoked' : t.expires_at !== null && t.expires_at <= now ? 'expired' : 'active',
        }));
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        const header = ['ID', 'NAME', 'STATE', 'CREATED', 'EXPIRES', 'LAST USED', 'RATE'];
        const table = [
          header,
          ...rows.map((r) => [r.id, r.name, r.state, r.created, r.expires ?? '-', r.last_used ?? '-', r.rate]),
        ];
        const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
        for (const row of table)
          process.stdout.write(
            `${row
              .map((c, i) => c.padEnd(widths[i]!))
              .join('  ')
              .trimEnd()}\n`,
          );
      }),
    );
  keys
    .command('revoke')
    .description('Revoke a token by id (takes effect within SYNC_INTERVAL_MS)')
    .argument('<id>', 'token id from keys list')
    .action((id: string) =>
      withStore(async (cfg, store) => {
        const done = await new TokenRepository(store.db).revoke(id, nowSeconds(systemClock));
        if (!done) {
          process.stderr.write(`protoscore: no active token ${JSON.stringify(id)}\n`);
          process.exitCode = 1;
          return;
        }
        const quickstart = forgetQuickstart(cfg.dataDir, id)
          ? ' (the quickstart token: a new one at the next start)'
          : '';
        process.stdout.write(`revoked ${id}${quickstart}\n`);
      }),
    );
  keys
    .command('rotate')
    .description(
      'Replace a token by a new one (same name, rate limit and lifetime) and revoke it; prints the new token as the last line',
    )
    .argument('<id>', 'token id from keys list')
    .action((id: string) =>
      withStore(async (cfg, store) => {
        const made = await new TokenRepository(store.db).rotate(id, nowSeconds(systemClock));
        if (!made) {
          process.stderr.write(`protoscore: no active token ${JSON.stringify(id)}\n`);
          process.exitCode = 1;
          return;
        }
        const kept = replaceQuickstart(cfg.dataDir, id, made.token)
          ? `; the quickstart file holds it (${quickstartTokenFile(cfg.dataDir)})`
          : '';
        process.stdout.write(
          `revoked ${id}; created token ${made.id}, ${made.expiresAt === null ? 'no expiry' : `expires ${isoSeconds(made.expiresAt)}`}${kept}; it is shown only now:\n${made.token}\n`,
        );
      }),
    );

  const jobs = program.command('jobs').description('Inspect and run jobs');
  jobs
    .command('list')
    .description('Jobs with their schedule and last result')
    .action(() =>
      withStore(async (cfg, store) => {
        const repo = new JobRepository(store.db);
        for (const job of enabledJobs(await cliEnv(cfg, store))) {
          const state = await repo.state(job.name);
          const last = state?.last_run_id ? await repo.run(state.last_run_id) : undefined;
          const next = state ? isoSeconds(state.next_run_at) : 'not scheduled yet';
          const result = last ? `${last.status} at ${isoSeconds(Number(last.started_at_ms) / 1000)}` : 'never run';
          process.stdout.write(
            `${job.name}  every ${job.everySeconds}s  next ${next}  last ${result}\n  ${job.description}\n`,
          );
        }
      }),
    );
  jobs
    .command('run')
    .description('Run one job now (waits for it; fails if another worker is running it)')
    .argument('<name>', 'job name from jobs list')
    .action((name: string) =>
      withStore(async (cfg, store) => {
        const all = enabledJobs(await cliEnv(cfg, store));
        if (!all.some((j) => j.name === name)) {
          process.stderr.write(
            `protoscore: unknown job ${JSON.stringify(name)}; known: ${all.map((j) => j.name).join(', ')}\n`,
          );
          process.exitCode = 2;
          return;
        }
        const runner = new JobRunner({ store, clock: systemClock, log: quietLogger(cfg), jobs: all });
        const outcome = await runner.runOnce(name);
        if (outcome.status === 'busy') {
          process.stderr.write(`protoscore: ${name} is running in another worker\n`);
          process.exitCode = 75;
        } else if (outcome.status === 'failed') {
          process.stderr.write(`protoscore: ${name} failed: ${outcome.error}\n`);
          process.exitCode = 1;
        } else {
          process.stdout.write(`${name}: ok${outcome.summary ? ` — ${outcome.summary}` : ''}\n`);
        }
      }),
    );
  program.addCommand(sandboxCommand());
  program.addCommand(securityCommand());
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  await buildCli().parseAsync(argv as string[]);
}
