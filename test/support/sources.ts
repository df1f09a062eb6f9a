/**
 * The sources of a test, on the production composition: the stand-ins a test reads are started through the
 * sandbox's list (`STANDINS`, by the runtime's `startStandins`), and their sources are opened from the configuration
 * keys they answer with by the runtime's `openSources` (each source's `open<X>()`), so a test reads the same
 * handles, clients and `meta.source` labels as `start`. What a test changes is said here, once: fewer subjects, no
 * injected faults unless asked for, its clock and sleep for the clients.
 */
import pino from 'pino';
import { type Config, configWith, loadConfig } from '../../src/config/index.js';
import { registry } from '../../src/registry/index.js';
import { openSources, SOURCES, startStandins } from '../../src/runtime/sources.js';
import type { BeaconStandin } from '../../src/sandbox/standins/beacon/server.js';
import type { BitcoinStandin } from '../../src/sandbox/standins/bitcoin/server.js';
import type { CoingeckoStandin } from '../../src/sandbox/standins/coingecko/server.js';
import type { DiscordStandin } from '../../src/sandbox/standins/discord/server.js';
import type { DydxStandin } from '../../src/sandbox/standins/dydx/server.js';
import type { EtherscanStandin } from '../../src/sandbox/standins/etherscan/server.js';
import type { GithubStandin } from '../../src/sandbox/standins/github/server.js';
import type { GmxOracleStandin } from '../../src/sandbox/standins/gmx-oracle/server.js';
import type { StandinOverrides } from '../../src/sandbox/standins/index.js';
import type { RedditStandin } from '../../src/sandbox/standins/reddit/server.js';
import type { SourcifyStandin } from '../../src/sandbox/standins/sourcify/server.js';
import type { SynthetixStandin } from '../../src/sandbox/standins/synthetix/server.js';
import type { WorldView } from '../../src/sandbox/world/view.js';
import type { EtagStore } from '../../src/sources/github/etag.js';
import type { SourceKind, SourceMap } from '../../src/sources/index.js';
import type { TestClock } from '../helpers.js';
import { makeTempDir } from './temp-dirs.js';

/** Each stand-in's own server, by the kind of source it stands in for. */
export interface StandinServers {
  readonly github: GithubStandin;
  readonly bitcoin: BitcoinStandin;
  readonly beacon: BeaconStandin;
  readonly discord: DiscordStandin;
  readonly reddit: RedditStandin;
  readonly gmx_oracle: GmxOracleStandin;
  readonly dydx: DydxStandin;
  readonly synthetix: SynthetixStandin;
  readonly coingecko: CoingeckoStandin;
  readonly sourcify: SourcifyStandin;
  readonly etherscan: EtherscanStandin;
}

export interface TestSourcesOptions {
  /**
   * The stand-ins to start. The other sources stay closed: a source `start` opens on its public host without
   * configuration (CoinGecko keyless, GMX's keeper, dYdX's indexer) is left out unless its stand-in is started here
   * or `keys` configure it (a test has no network).
   */
  readonly kinds: readonly (keyof StandinServers)[];
  /** The world the stand-ins that quote one read (CoinGecko), and its chains' RPC URLs by registry id. */
  readonly world?: WorldView;
  readonly chains?: ReadonlyMap<string, string>;
  readonly clock: TestClock;
  /** `SANDBOX_SEED` (default 7). */
  readonly seed?: number;
  /** `SANDBOX_DAYS` (default the configuration's). */
  readonly days?: number;
  /**
   * Each stand-in's own options over the sandbox's. The sandbox's injected faults are off unless given here (a test
   * that wants faults injects them, or names its rates).
   */
  readonly overrides?: StandinOverrides;
  /** GitHub: the subjects read (`GithubEndpoint.subjects`, `<kind>:<id>`), and the only ones the stand-in serves. */
  readonly githubSubjects?: readonly string[];
  /** Configuration keys over the stand-ins' own (e.g. a Discord token without the message-content intent). */
  readonly keys?: Readonly<Record<string, string>>;
  /** The HTTP clients' retries of a transient failure (default their own). */
  readonly maxRetries?: number;
  /** The ETag store the runtime gives the sources that revalidate (`storeEtags(store, clock)`); memory only without. */
  readonly etags?: EtagStore;
  /**
   * The clients wait for real (a stop must end the wait) rather than by advancing the test clock (the default, so
   * that a rate-limit wait costs no time).
   */
  readonly realSleep?: boolean;
}

export interface TestSources {
  /** The opened sources, as `start` opens them. */
  readonly sources: SourceMap;
  /** The configuration they were opened from (the stand-ins' keys included). */
  readonly config: Config;
  /** A started stand-in's own server (its world for ground truth, its request counts and fault injector). */
  server<K extends keyof StandinServers>(kind: K): StandinServers[K];
  close(): Promise<void>;
}

const NO_FAULTS = { faults: undefined };

/** Starts the stand-ins of `options.kinds` and opens their sources through the runtime's code. */
export async function startTestSources(options: TestSourcesOptions): Promise<TestSources> {
  const dir = makeTempDir('protoscore-sources-');
  const config = loadConfig({
    DATA_DIR: dir.path,
    SANDBOX_SEED: String(options.seed ?? 7),
    ...(options.days !== undefined ? { SANDBOX_DAYS: String(options.days) } : {}),
  });
  const o = options.overrides ?? {};
  const subjects = options.githubSubjects;
  const overrides: StandinOverrides = {
    github: {
      ...NO_FAULTS,
      ...(subjects
        ? { subjects: registry.developmentSubjects().filter((s) => subjects.includes(`${s.kind}:${s.id}`)) }
        : {}),
      ...o.github,
    },
    discord: { ...NO_FAULTS, ...o.discord },
    reddit: { ...NO_FAULTS, ...o.reddit },
    gmx_oracle: { ...NO_FAULTS, ...o.gmx_oracle },
    dydx: { ...NO_FAULTS, ...o.dydx },
    synthetix: { ...NO_FAULTS, ...o.synthetix },
    coingecko: { ...NO_FAULTS, ...o.coingecko },
    sourcify: { ...NO_FAULTS, ...o.sourcify },
    etherscan: { ...NO_FAULTS, ...o.etherscan },
    ...(o.bitcoin ? { bitcoin: o.bitcoin } : {}),
    ...(o.beacon ? { beacon: o.beacon } : {}),
  };
  const logger = pino({ level: 'warn' });
  const started = await startStandins(config, {
    clock: options.clock,
    logger,
    kinds: options.kinds,
    overrides,
    ...(options.world ? { world: Promise.resolve(options.world) } : {}),
    ...(options.chains ? { chains: Promise.resolve(options.chains) } : {}),
  });
  try {
    const missing = options.kinds.filter((k) => !started.servers.has(k));
    if (missing.length) throw new Error(`no stand-in started for ${missing.join(', ')}`);
    const opened = configWith(config, { ...started.config, ...options.keys });
    let sources = openSources(opened, {
      role: 'start',
      logger,
      labels: started.labels,
      ...(options.etags ? { etags: options.etags } : {}),
      client: {
        clock: options.clock,
        ...(options.realSleep ? {} : { sleep: async (ms: number) => options.clock.advance(ms / 1000) }),
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      },
    });
    // Only what this test started or configured: not a public host the runtime would open by default.
    const closed = SOURCES.filter(
      (d) => !d.configured(opened) && !(options.kinds as readonly string[]).includes(d.kind),
    ).map((d) => d.kind);
    sources = sources.without(closed);
    const github = sources.get('github');
    if (github && subjects) sources = sources.with('github', { ...github, subjects });
    return {
      sources,
      config: opened,
      server: <K extends keyof StandinServers>(kind: K) => {
        const server = started.servers.get(kind as SourceKind);
        if (!server) throw new Error(`no ${kind} stand-in in this test (started: ${options.kinds.join(', ')})`);
        return server as StandinServers[K];
      },
      close: async () => {
        await started.close();
        dir.remove();
      },
    };
  } catch (err) {
    await started.close();
    dir.remove();
    throw err;
  }
}
