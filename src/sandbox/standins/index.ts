/**
 * The sandbox's stand-ins, one entry per service: each starts on loopback and answers with the configuration keys
 * a production deployment would set for the real service (base URL, credentials), so that the runtime opens the
 * source from them exactly as it would from an operator's configuration.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../../core/time.js';
import type { SourceKind } from '../../sources/index.js';
import { TOKEN_PLAN } from '../world/plan.js';
import type { WorldView } from '../world/view.js';
import { DAY_MS, dayOf } from './base/generate.js';
import { type BeaconStandinOptions, startBeaconStandin } from './beacon/server.js';
import {
  type BitcoinStandinOptions,
  SANDBOX_BITCOIN_PASSWORD,
  SANDBOX_BITCOIN_USER,
  startBitcoinStandin,
} from './bitcoin/server.js';
import {
  type CoingeckoStandinOptions,
  SANDBOX_COINGECKO_FAULTS,
  SANDBOX_COINGECKO_KEY,
  startCoingeckoStandin,
} from './coingecko/server.js';
import {
  type DiscordStandinOptions,
  SANDBOX_DISCORD_FAULTS,
  SANDBOX_DISCORD_TOKEN,
  startDiscordStandin,
  worldOriginDay,
} from './discord/server.js';
import { type DydxStandinOptions, SANDBOX_DYDX_FAULTS, startDydxStandin } from './dydx/server.js';
import {
  type EtherscanStandinOptions,
  SANDBOX_ETHERSCAN_FAULTS,
  SANDBOX_ETHERSCAN_KEY,
  startEtherscanStandin,
} from './etherscan/server.js';
import { type GithubStandinOptions, SANDBOX_GITHUB_FAULTS, startGithubStandin } from './github/server.js';
import { type GmxOracleStandinOptions, SANDBOX_GMX_ORACLE_FAULTS, startGmxOracleStandin } from './gmx-oracle/server.js';
import { syntheticReferencePrices, worldReferencePrices } from './perps/prices.js';
import {
  type RedditStandinOptions,
  SANDBOX_REDDIT_CLIENT_ID,
  SANDBOX_REDDIT_CLIENT_SECRET,
  SANDBOX_REDDIT_FAULTS,
  startRedditStandin,
} from './reddit/server.js';
import { SANDBOX_SOURCIFY_FAULTS, type SourcifyStandinOptions, startSourcifyStandin } from './sourcify/server.js';
import { SANDBOX_SYNTHETIX_FAULTS, type SynthetixStandinOptions, startSynthetixStandin } from './synthetix/server.js';

export interface StartedStandin {
  /** The service's base URL on loopback. */
  readonly url: string;
  /** Configuration keys that point a source at it (`GITHUB_API_URL`, `GITHUB_TOKEN`, …). */
  readonly config: Readonly<Record<string, string>>;
  /** Provenance for `meta.source`. */
  readonly label: string;
  /** Fields for `running.json` (`protoscore sandbox info`). */
  readonly announce: Readonly<Record<string, string>>;
  /**
   * Its entry under `standins` of `sandbox info --json`, keyed by `service`: `url` (the value the service's own
   * base-URL configuration key takes) and any credential a client needs.
   */
  readonly service: string;
  readonly info: Readonly<{ url: string } & Record<string, string>>;
  /**
   * A chain this stand-in serves (e.g. Bitcoin Core's RPC), for `chains` of `sandbox info --json`, keyed by the
   * registry's chain id.
   */
  readonly chain?: Readonly<{ id: string; rpc_url: string } & Record<string, string>>;
  /** The stand-in's own server (its world, request counts and fault injector), for tests' ground truth. */
  readonly server: object;
  close(): Promise<void>;
}

export interface StandinStartOptions {
  readonly seed: number;
  readonly clock: Clock;
  /** The service's data directory: a stand-in that keeps state between starts keeps it under `<dataDir>/sandbox/`. */
  readonly dataDir: string;
  /** Simulated history of a new sandbox world, in days (`SANDBOX_DAYS`). */
  readonly days: number;
  /**
   * The sandbox's chains: registry chain id → RPC URL, once they answer (a stand-in that follows a chain, e.g. the
   * beacon API, waits for it; the others start while the chains load).
   */
  readonly chains?: Promise<ReadonlyMap<string, string>>;
  /**
   * The world, read-only, once it is open (sandbox/world/view.ts): the manifest per chain, every deployed contract's
   * name and compiler input where its artifact ships one, the reference prices and DEX activity per hour. A stand-in
   * that quotes market data or serves contract sources reads it; the others need not wait for it.
   */
  readonly world?: Promise<WorldView>;
  /**
   * What a test changes of a stand-in's own start options, by kind (fewer subjects, no faults, a private subreddit):
   * the sandbox passes none. The stand-in is otherwise started as the sandbox starts it.
   */
  readonly overrides?: StandinOverrides;
}

/** Per kind of stand-in, options of its server that replace the sandbox's (tests only). */
export interface StandinOverrides {
  readonly github?: Partial<GithubStandinOptions>;
  readonly bitcoin?: Partial<BitcoinStandinOptions>;
  readonly beacon?: Partial<BeaconStandinOptions>;
  readonly discord?: Partial<DiscordStandinOptions>;
  readonly reddit?: Partial<RedditStandinOptions>;
  readonly gmx_oracle?: Partial<GmxOracleStandinOptions>;
  readonly dydx?: Partial<DydxStandinOptions>;
  readonly synthetix?: Partial<SynthetixStandinOptions>;
  readonly coingecko?: Partial<CoingeckoStandinOptions>;
  readonly sourcify?: Partial<SourcifyStandinOptions>;
  readonly etherscan?: Partial<EtherscanStandinOptions>;
}

export interface StandinDef {
  readonly kind: SourceKind;
  start(options: StandinStartOptions): Promise<StartedStandin>;
}

/** The token the sandbox's clients send to the GitHub stand-in (it accepts any: a token gets 5000 requests an hour). */
export const SANDBOX_GITHUB_TOKEN = 'sandbox';

const github: StandinDef = {
  kind: 'github',
  async start({ seed, clock, overrides }) {
    const standin = await startGithubStandin({ seed, clock, faults: SANDBOX_GITHUB_FAULTS, ...overrides?.github });
    return {
      url: standin.url,
      config: { GITHUB_API_URL: standin.url, GITHUB_TOKEN: SANDBOX_GITHUB_TOKEN },
      label: 'sandbox GitHub stand-in (REST API v3)',
      announce: { github_api_url: standin.url },
      service: 'github',
      info: { url: standin.url, token: SANDBOX_GITHUB_TOKEN },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/** Bitcoin Core's RPC over a regtest chain of real blocks, kept under `<dataDir>/sandbox/bitcoin/`. */
const bitcoin: StandinDef = {
  kind: 'bitcoin',
  async start({ seed, clock, dataDir, days, overrides }) {
    const dir = path.join(dataDir, 'sandbox', 'bitcoin');
    const standin = await startBitcoinStandin({ seed, clock, days, dir, ...overrides?.bitcoin });
    const credentials = { rpc_user: SANDBOX_BITCOIN_USER, rpc_password: SANDBOX_BITCOIN_PASSWORD };
    return {
      url: standin.url,
      config: {
        RPC_URL_BITCOIN: standin.url,
        BITCOIN_RPC_USER: SANDBOX_BITCOIN_USER,
        BITCOIN_RPC_PASSWORD: SANDBOX_BITCOIN_PASSWORD,
      },
      label: 'sandbox:bitcoin:regtest',
      announce: { bitcoin_rpc_url: standin.url },
      service: 'bitcoin',
      info: { url: standin.url, ...credentials },
      chain: { id: 'bitcoin', rpc_url: standin.url, ...credentials },
      server: standin,
      close: () => standin.close(),
    };
  },
};

const beacon: StandinDef = {
  kind: 'beacon',
  async start({ seed, clock, days, chains, overrides }) {
    const rpcUrl = (await chains)?.get('ethereum');
    const standin = await startBeaconStandin({
      seed,
      clock,
      days,
      ...(rpcUrl ? { rpcUrl } : {}),
      ...overrides?.beacon,
    });
    return {
      url: standin.url,
      config: { BEACON_API_URL: standin.url },
      label: 'sandbox beacon node API stand-in',
      announce: { beacon_api_url: standin.url },
      service: 'beacon',
      info: { url: standin.url },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/**
 * Discord's API v10 over a guild per protocol tracked on Discord; the world's first day is kept under
 * `<dataDir>/sandbox/discord/` so that its calendar (characters, the exploit, the raid) survives restarts.
 */
const discord: StandinDef = {
  kind: 'discord',
  async start({ seed, clock, dataDir, days, overrides }) {
    const originDay = worldOriginDay(path.join(dataDir, 'sandbox', 'discord'), seed, days, clock.nowMs());
    const standin = await startDiscordStandin({
      seed,
      clock,
      originDay,
      days,
      faults: SANDBOX_DISCORD_FAULTS,
      ...overrides?.discord,
    });
    // The base URL plays the part of `https://discord.com/api/v10`: the stand-in serves its routes at the root.
    return {
      url: standin.url,
      config: { DISCORD_API_URL: standin.url, DISCORD_BOT_TOKEN: SANDBOX_DISCORD_TOKEN },
      label: 'sandbox Discord stand-in (API v10)',
      announce: { discord_api_url: standin.url },
      service: 'discord',
      info: { url: standin.url, token: SANDBOX_DISCORD_TOKEN },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/**
 * Reddit's token host and OAuth API, a subreddit per tracked protocol. The scenario's first day is fixed at the first
 * start (`<dataDir>/sandbox/reddit.json`), so that its events stay on the same days across restarts.
 */
const reddit: StandinDef = {
  kind: 'reddit',
  async start({ seed, clock, dataDir, days, overrides }) {
    const file = path.join(dataDir, 'sandbox', 'reddit.json');
    let epochDay: number;
    try {
      epochDay = (JSON.parse(await readFile(file, 'utf8')) as { epoch_day: number }).epoch_day;
      if (!Number.isInteger(epochDay)) throw new Error(`${file}: no epoch_day`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      epochDay = dayOf(clock.nowMs()) - days;
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify({ epoch_day: epochDay })}\n`);
    }
    const standin = await startRedditStandin({
      seed,
      clock,
      days,
      epochDay,
      faults: SANDBOX_REDDIT_FAULTS,
      ...overrides?.reddit,
    });
    return {
      url: standin.url,
      config: {
        REDDIT_API_URL: standin.url,
        REDDIT_AUTH_URL: standin.authUrl,
        REDDIT_CLIENT_ID: SANDBOX_REDDIT_CLIENT_ID,
        REDDIT_CLIENT_SECRET: SANDBOX_REDDIT_CLIENT_SECRET,
      },
      label: 'sandbox Reddit stand-in (OAuth API)',
      announce: { reddit_api_url: standin.url },
      service: 'reddit',
      info: {
        url: standin.url,
        auth_url: standin.authUrl,
        client_id: SANDBOX_REDDIT_CLIENT_ID,
        client_secret: SANDBOX_REDDIT_CLIENT_SECRET,
      },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/** GMX's oracle keeper (tickers, tokens) for the sandbox's GMX v2 on Arbitrum, at the world's reference prices. */
const gmxOracle: StandinDef = {
  kind: 'gmx_oracle',
  async start({ seed, clock, world, overrides }) {
    const standin = await startGmxOracleStandin({
      seed,
      clock,
      ...(world ? { world } : {}),
      faults: SANDBOX_GMX_ORACLE_FAULTS,
      ...overrides?.gmx_oracle,
    });
    return {
      url: standin.url,
      config: { GMX_ORACLE_URL: standin.url },
      label: 'sandbox GMX oracle keeper stand-in (REST API)',
      announce: { gmx_oracle_url: standin.url },
      service: 'gmx_oracle',
      info: { url: standin.url },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/**
 * dYdX v4's indexer REST API and its node's Cosmos REST on one server (both keys name it), trading at the world's
 * hourly reference prices; without a world (a test's stand-in on its own), at a seeded path from the world's initial
 * prices over the last `days`.
 */
const dydx: StandinDef = {
  kind: 'dydx',
  async start({ seed, clock, days, world, overrides }) {
    const prices = await perpsPrices(seed, clock, days, world);
    const standin = await startDydxStandin({ seed, clock, prices, faults: SANDBOX_DYDX_FAULTS, ...overrides?.dydx });
    return {
      url: standin.url,
      config: { DYDX_INDEXER_URL: standin.url, DYDX_NODE_REST_URL: standin.url },
      label: 'sandbox dYdX v4 stand-in (indexer REST API, node Cosmos REST)',
      announce: { dydx_indexer_url: standin.url },
      service: 'dydx',
      info: { url: standin.url, node_rest_url: standin.url },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/** The synthetix stand-in: the exchange's info API (`POST /v1/info`) on the same simulation, its own symbols. */
const synthetix: StandinDef = {
  kind: 'synthetix',
  async start({ seed, clock, days, world, overrides }) {
    const prices = await perpsPrices(seed, clock, days, world);
    const standin = await startSynthetixStandin({
      seed,
      clock,
      prices,
      faults: SANDBOX_SYNTHETIX_FAULTS,
      ...overrides?.synthetix,
    });
    return {
      url: standin.url,
      config: { SYNTHETIX_API_URL: standin.url },
      label: 'sandbox Synthetix exchange stand-in (info API)',
      announce: { synthetix_api_url: standin.url },
      service: 'synthetix',
      info: { url: standin.url },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/**
 * CoinGecko's API v3 (demo host, the sandbox's demo key) quoting the world: its reference prices, the tokens'
 * `totalSupply()` and the pools' swaps read on the Ethereum chain, seeded CEX venues (docs/standins.md).
 */
const coingecko: StandinDef = {
  kind: 'coingecko',
  async start({ seed, clock, world, chains, overrides }) {
    const rpcUrl = chains?.then((c) => c.get('ethereum'));
    rpcUrl?.catch(() => undefined);
    const standin = await startCoingeckoStandin({
      seed,
      clock,
      ...(world ? { world } : {}),
      ...(rpcUrl ? { rpcUrl } : {}),
      faults: SANDBOX_COINGECKO_FAULTS,
      ...overrides?.coingecko,
    });
    return {
      url: standin.url,
      config: { COINGECKO_API_URL: standin.url, COINGECKO_API_KEY: SANDBOX_COINGECKO_KEY, COINGECKO_API_PLAN: 'demo' },
      label: 'sandbox CoinGecko stand-in (API v3)',
      announce: { coingecko_api_url: standin.url },
      service: 'coingecko',
      info: { url: standin.url, api_key: SANDBOX_COINGECKO_KEY, plan: 'demo' },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/**
 * Sourcify's API v2 serving the world's contracts: the compiler input of every address whose artifact ships one
 * (ours, Aave's build-info), "not verified" for the rest (docs/standins.md).
 */
const sourcify: StandinDef = {
  kind: 'sourcify',
  async start({ seed, clock, world, overrides }) {
    const standin = await startSourcifyStandin({
      seed,
      clock,
      ...(world ? { world } : {}),
      faults: SANDBOX_SOURCIFY_FAULTS,
      ...overrides?.sourcify,
    });
    return {
      url: standin.url,
      config: { SOURCIFY_URL: standin.url },
      label: 'sandbox Sourcify stand-in (API v2)',
      announce: { sourcify_url: standin.url },
      service: 'sourcify',
      info: { url: standin.url },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/** Etherscan's API V2 (`getsourcecode`) on the same contracts, the sandbox's key. */
const etherscan: StandinDef = {
  kind: 'etherscan',
  async start({ seed, clock, world, overrides }) {
    const standin = await startEtherscanStandin({
      seed,
      clock,
      ...(world ? { world } : {}),
      faults: SANDBOX_ETHERSCAN_FAULTS,
      ...overrides?.etherscan,
    });
    return {
      url: standin.url,
      config: { ETHERSCAN_API_URL: standin.url, ETHERSCAN_API_KEY: SANDBOX_ETHERSCAN_KEY },
      label: 'sandbox Etherscan stand-in (API V2)',
      announce: { etherscan_api_url: standin.url },
      service: 'etherscan',
      info: { url: standin.url, api_key: SANDBOX_ETHERSCAN_KEY },
      server: standin,
      close: () => standin.close(),
    };
  },
};

/**
 * The order-book venues' reference prices: the world's closed hours, or (a test without a world) a seeded walk from
 * the plan's initial prices over the sandbox's days.
 */
async function perpsPrices(
  seed: number,
  clock: StandinStartOptions['clock'],
  days: number,
  world: StandinStartOptions['world'],
) {
  const view = await world;
  return view
    ? worldReferencePrices(view)
    : syntheticReferencePrices(
        seed,
        clock,
        (dayOf(clock.nowMs()) - days) * (DAY_MS / 1000),
        Object.fromEntries(TOKEN_PLAN.map((t) => [t.symbol, t.initialPriceUsd])),
      );
}

export const STANDINS: readonly StandinDef[] = [
  github,
  bitcoin,
  beacon,
  discord,
  reddit,
  dydx,
  gmxOracle,
  synthetix,
  coingecko,
  sourcify,
  etherscan,
];
