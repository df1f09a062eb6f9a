import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AREA_IDS, type AreaId } from '../core/areas.js';
import {
  type BitcoinSettings,
  COINGECKO_PLANS,
  type CoingeckoPlan,
  type CoingeckoSettings,
  type ContractSourceSettings,
  type DiscordSettings,
  type GithubSettings,
  type RedditSettings,
  type SandboxSettings,
} from './settings.js';

/**
 * The service's configuration, parsed once from the environment and an optional JSON file
 * (`CONFIG_FILE`). This module is the only reader of `process.env`. Environment values win over the file.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** The URL clients reach the API at (`servers` of the OpenAPI document); undefined: the origin they used. */
  readonly publicUrl: string | undefined;
  /**
   * How long the API keeps an idle keep-alive connection open, in ms (Fastify's 72 s by default: longer than the
   * 60 s idle timeout of common load balancers, so the server never closes a connection a proxy is about to reuse).
   */
  readonly keepAliveTimeoutMs: number;
  readonly dataDir: string;
  /** PostgreSQL connection string; absent means the embedded SQLite file in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** Redis URL; present means shared rate-limit counters and cache invalidation across replicas. */
  readonly redisUrl: string | undefined;
  readonly logLevel: LogLevel;
  /**
   * How log lines look: `json` (one JSON object a line), `pretty` (time, level, message, for a person) or `auto`
   * (pretty when stdout is a terminal, else JSON).
   */
  readonly logFormat: LogFormat;
  /** Requests per minute for a token created without `--rate`. */
  readonly defaultRatePerMinute: number;
  /** How often an API process checks the store for a newly published dataset version or token change. */
  readonly syncIntervalMs: number;
  /**
   * `PUBLISH_EVERY_SECONDS`: the least time between two publications of one computation whose inputs moved (a new
   * block moves every document's `as_of`); 0 publishes on every change. A computation's first publication is never
   * held back.
   */
  readonly publishEverySeconds: number;
  /** Store lookups per second, per API process, of token ids not yet in its copy of the token table. */
  readonly tokenLookupsPerSecond: number;
  /** Areas whose datasets, jobs and paths are switched off (the paths answer 404 no_data). */
  readonly disabledAreas: ReadonlySet<AreaId>;
  /** Where the config came from, for `/status` and start-up logs (never secrets). */
  readonly configFile: string | undefined;
  /**
   * JSON-RPC endpoints by registry chain id, from `RPC_URL_<CHAIN>` (e.g. `RPC_URL_ETHEREUM`). None set means the
   * sandbox chain (`start` only).
   */
  readonly rpcUrls: ReadonlyMap<string, string>;
  /** The embedded sandbox world (used when no RPC URL is configured). */
  readonly sandbox: SandboxSettings;
  /**
   * GitHub's REST API for the development area. `apiUrl` undefined means not configured: `start` then runs the
   * sandbox's GitHub stand-in (and other roles read https://api.github.com). The token is a secret: never logged.
   */
  readonly github: GithubSettings;
  /** `BEACON_API_URL`: the Ethereum beacon node API (validators, finality); undefined when not set. */
  readonly beaconApiUrl: string | undefined;
  /** `GMX_ORACLE_URL`: GMX's oracle keeper REST base (tickers); undefined: https://arbitrum-api.gmxinfra.io. */
  readonly gmxOracleUrl: string | undefined;
  /** `SYNTHETIX_API_URL`: the Synthetix exchange's API base (`POST /v1/info`); undefined when not set. */
  readonly synthetixApiUrl: string | undefined;
  /**
   * Bitcoin Core's JSON-RPC (`RPC_URL_BITCOIN`) and its credentials: user and password, or the node's cookie file.
   * The URL is also in `rpcUrls` (under `bitcoin`); the EVM source takes only EVM chains from there.
   */
  readonly bitcoin: BitcoinSettings;
  /**
   * Discord's API for the community area: the bot token (a secret, never logged), the base URL (undefined: Discord's
   * own) and which guild is which protocol's. No token means not configured: `start` then runs the sandbox's
   * Discord stand-in.
   */
  readonly discord: DiscordSettings;
  /** Reddit's OAuth API for the community area (app-only credentials: secrets, never logged). */
  readonly reddit: RedditSettings;
  /**
   * CoinGecko's API v3 for the tokenomics area's market data: `COINGECKO_API_URL` (undefined: the plan's own host),
   * `COINGECKO_API_KEY` (a secret, never logged; undefined: keyless public access) and `COINGECKO_API_PLAN`.
   */
  readonly coingecko: CoingeckoSettings;
  /**
   * The contract-source services of the security area: `SOURCIFY_URL` (undefined: https://sourcify.dev/server),
   * `ETHERSCAN_API_URL` (undefined: https://api.etherscan.io) and `ETHERSCAN_API_KEY` (a secret, never logged).
   */
  readonly contractSources: ContractSourceSettings;
  /** dYdX v4: `DYDX_INDEXER_URL` (undefined: https://indexer.dydx.trade) and `DYDX_NODE_REST_URL` (undefined: none). */
  readonly dydx: { readonly indexerUrl: string | undefined; readonly nodeRestUrl: string | undefined };
  /**
   * `ADDRESS_BOOK_FILE`: a JSON address book (entry points, tokens and chain id per chain) read instead of the
   * registry's own addresses: a testnet, a fork, or the sandbox world run by `protoscore sandbox run`.
   */
  readonly addressBookFile: string | undefined;
}

export * from './settings.js';

/** `RPC_URL_<CHAIN>`: one key per chain, so the set of keys is open (checked against the registry at start). */
export const RPC_URL_PREFIX = 'RPC_URL_';
const RPC_URL_KEY = /^RPC_URL_([A-Z0-9_]+)$/;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`invalid configuration ${key}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Raw = Record<string, string | undefined>;

interface KeySpec<T> {
  readonly key: string;
  readonly doc: string;
  readonly default: string | undefined;
  parse(value: string, key: string): T;
}

function integer(min: number, max: number) {
  return (value: string, key: string): number => {
    if (!/^\d+$/.test(value.trim())) throw new ConfigError(key, `expected an integer, got ${JSON.stringify(value)}`);
    const n = Number(value.trim());
    if (n < min || n > max) throw new ConfigError(key, `expected ${min}…${max}, got ${n}`);
    return n;
  };
}

function decimal(min: number, max: number) {
  return (value: string, key: string): number => {
    if (!/^\d+(\.\d+)?$/.test(value.trim()))
      throw new ConfigError(key, `expected a number, got ${JSON.stringify(value)}`);
    const n = Number(value.trim());
    if (n < min || n > max) throw new ConfigError(key, `expected ${min}…${max}, got ${n}`);
    return n;
  };
}

function url(protocols: readonly string[]) {
  return (value: string, key: string): string => {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new ConfigError(key, 'expected a URL');
    }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(key, `expected a ${protocols.join(' or ')} URL, got ${parsed.protocol}`);
    }
    return value;
  };
}

/** Every key the service reads, with its default and documentation (the README's table is generated from this). */
export const CONFIG_KEYS = {
  PORT: { key: 'PORT', doc: 'HTTP port of the API', default: '8080', parse: integer(0, 65535) },
  HOST: {
    key: 'HOST',
    doc: 'Interface the API listens on (`0.0.0.0` to accept remote clients)',
    default: '127.0.0.1',
    parse: (v: string, k: string) => {
      if (!/^[0-9A-Za-z.:\-[\]]+$/.test(v)) throw new ConfigError(k, 'expected a host name or IP address');
      return v;
    },
  },
  PUBLIC_URL: {
    key: 'PUBLIC_URL',
    doc: 'URL clients reach the API at, when a proxy serves it under another origin or a path prefix (e.g. `https://example.org/protoscore`): the `servers` entry of `/openapi.json`, used by `/docs` and generated clients. Unset: the origin the document was fetched from',
    default: undefined,
    parse: (v: string, k: string) => {
      const value = url(['http:', 'https:'])(v.trim(), k);
      const parsed = new URL(value);
      if (parsed.search || parsed.hash || parsed.username || parsed.password) {
        throw new ConfigError(k, 'expected a URL without query, fragment or credentials');
      }
      return value.replace(/\/+$/, '');
    },
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    key: 'KEEP_ALIVE_TIMEOUT_MS',
    doc: "How long the API keeps an idle keep-alive connection open, in ms (1…3600000). The default is Fastify's, chosen to outlive the 60 s idle timeout of common load balancers: behind a proxy keep it above the proxy's own idle timeout, or the proxy may reuse a connection the server is closing (intermittent 502s)",
    default: '72000',
    parse: (v: string, k: string) => {
      if (!/^\d+$/.test(v.trim())) {
        throw new ConfigError(k, `expected a whole number of milliseconds, e.g. 72000, got ${JSON.stringify(v)}`);
      }
      const n = Number(v.trim());
      if (n < 1 || n > 3_600_000) {
        throw new ConfigError(
          k,
          `expected 1…3600000 ms (at most an hour; 0 would never close an idle connection), got ${n}`,
        );
      }
      return n;
    },
  },
  DATA_DIR: {
    key: 'DATA_DIR',
    doc: 'Directory for the embedded database and the sandbox world',
    default: './data',
    parse: (v: string, k: string) => {
      if (v.trim() === '') throw new ConfigError(k, 'must not be empty');
      return path.resolve(v);
    },
  },
  DATABASE_URL: {
    key: 'DATABASE_URL',
    doc: 'PostgreSQL connection string; unset means SQLite in `DATA_DIR`',
    default: undefined,
    parse: url(['postgres:', 'postgresql:']),
  },
  REDIS_URL: {
    key: 'REDIS_URL',
    doc: 'Redis URL for shared rate limits and cache invalidation across replicas',
    default: undefined,
    parse: url(['redis:', 'rediss:']),
  },
  LOG_LEVEL: {
    key: 'LOG_LEVEL',
    doc: `Log level: ${LOG_LEVELS.join(', ')}`,
    default: 'info',
    parse: (v: string, k: string): LogLevel => {
      const level = v.trim().toLowerCase();
      if (!(LOG_LEVELS as readonly string[]).includes(level)) {
        throw new ConfigError(k, `expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(v)}`);
      }
      return level as LogLevel;
    },
  },
  LOG_FORMAT: {
    key: 'LOG_FORMAT',
    doc: `Log line format: ${LOG_FORMATS.join(', ')} (\`auto\`: readable lines and a progress bar for the first start when stdout is a terminal, JSON lines otherwise)`,
    default: 'auto',
    parse: (v: string, k: string): LogFormat => {
      const format = v.trim().toLowerCase();
      if (!(LOG_FORMATS as readonly string[]).includes(format)) {
        throw new ConfigError(k, `expected one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(v)}`);
      }
      return format as LogFormat;
    },
  },
  RATE_LIMIT_PER_MINUTE: {
    key: 'RATE_LIMIT_PER_MINUTE',
    doc: 'Default requests per minute of a token created without `--rate`',
    default: '600',
    parse: integer(1, 1_000_000),
  },
  SYNC_INTERVAL_MS: {
    key: 'SYNC_INTERVAL_MS',
    doc: 'How often an API process checks for newly published datasets and token changes',
    default: '1000',
    parse: integer(50, 600_000),
  },
  PUBLISH_EVERY_SECONDS: {
    key: 'PUBLISH_EVERY_SECONDS',
    doc: 'The least time, in seconds, between two publications of one computation whose inputs moved (each new block moves every document’s `as_of`): figures are at most this much older than the newest ingested block. 0: publish on every change. A first publication is never held back',
    default: '60',
    parse: integer(0, 86_400),
  },
  TOKEN_LOOKUPS_PER_SECOND: {
    key: 'TOKEN_LOOKUPS_PER_SECOND',
    doc: 'Store lookups per second (per API process, all clients together) of token ids not yet in its copy of the token table, so a new token works at once; beyond it an unknown token is refused as `invalid_token` without a lookup. 0: none (a new token works after the next sync)',
    default: '20',
    parse: integer(0, 100_000),
  },
  DISABLED_AREAS: {
    key: 'DISABLED_AREAS',
    doc: `Comma-separated areas to switch off: ${AREA_IDS.join(', ')}`,
    default: '',
    parse: (v: string, k: string): ReadonlySet<AreaId> => {
      const items = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items) {
        if (!(AREA_IDS as readonly string[]).includes(item)) {
          throw new ConfigError(k, `unknown area ${JSON.stringify(item)}; known: ${AREA_IDS.join(', ')}`);
        }
      }
      return new Set(items as AreaId[]);
    },
  },
  SANDBOX_SEED: {
    key: 'SANDBOX_SEED',
    doc: 'Seed of the sandbox world (same seed, same chain); a saved world keeps the seed it was created with',
    default: '1',
    parse: integer(0, 2 ** 31 - 1),
  },
  SANDBOX_DAYS: {
    key: 'SANDBOX_DAYS',
    doc: 'Days of simulated history the sandbox world starts with (first start only)',
    default: '8',
    parse: integer(1, 365),
  },
  SANDBOX_BLOCK_SECONDS: {
    key: 'SANDBOX_BLOCK_SECONDS',
    doc: 'Block interval of the sandbox chain once it has caught up with the wall clock',
    default: '5',
    parse: integer(1, 3600),
  },
  GITHUB_API_URL: {
    key: 'GITHUB_API_URL',
    doc: 'GitHub REST API base URL of the development area (default https://api.github.com; GitHub Enterprise: `https://HOST/api/v3`). Unset with the sandbox in use: `start` runs the GitHub stand-in instead',
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  GITHUB_TOKEN: {
    key: 'GITHUB_TOKEN',
    doc: 'GitHub token (classic or fine-grained, read-only public access is enough; collaborators need push access). Unset: anonymous, 60 requests an hour. Never logged',
    default: undefined,
    parse: (v: string, k: string) => {
      const token = v.trim();
      if (!/^[\x21-\x7e]+$/.test(token)) throw new ConfigError(k, 'expected a token without spaces');
      return token;
    },
  },
  BITCOIN_RPC_USER: {
    key: 'BITCOIN_RPC_USER',
    doc: "User of Bitcoin Core's RPC at `RPC_URL_BITCOIN` (its `rpcuser` or an `rpcauth` user); with `BITCOIN_RPC_PASSWORD`. Never logged",
    default: undefined,
    parse: (v: string, k: string) => {
      if (v.includes(':') || v.trim() === '') throw new ConfigError(k, 'expected a user name without `:`');
      return v;
    },
  },
  BITCOIN_RPC_PASSWORD: {
    key: 'BITCOIN_RPC_PASSWORD',
    doc: 'Password of `BITCOIN_RPC_USER`. Never logged',
    default: undefined,
    parse: (v: string) => v,
  },
  BITCOIN_RPC_COOKIE_FILE: {
    key: 'BITCOIN_RPC_COOKIE_FILE',
    doc: "Bitcoin Core's cookie file (`<datadir>/.cookie`), used when no `BITCOIN_RPC_USER` is set; read again after a 401 (the node writes a new one at every restart)",
    default: undefined,
    parse: (v: string, k: string) => {
      if (v.trim() === '') throw new ConfigError(k, 'must not be empty');
      return path.resolve(v.trim());
    },
  },
  BEACON_API_URL: {
    key: 'BEACON_API_URL',
    doc: 'Ethereum beacon node API base URL (validators by status, finality checkpoints) of the blockchain area. Unset: no beacon figures (null with a gap reason); with the sandbox in use, `start` runs the beacon stand-in instead',
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  GMX_ORACLE_URL: {
    key: 'GMX_ORACLE_URL',
    doc: "GMX v2's oracle keeper REST base URL (`/prices/tickers`, `/tokens`) of the derivatives area (default https://arbitrum-api.gmxinfra.io); with the sandbox in use and this unset, `start` runs the keeper's stand-in instead",
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  SYNTHETIX_API_URL: {
    key: 'SYNTHETIX_API_URL',
    doc: "The Synthetix exchange's API base URL, where `POST /v1/info` answers (https://papi.synthetix.io), of the derivatives area. Unset: no Synthetix figures; with the sandbox in use, its stand-in serves them",
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  DYDX_INDEXER_URL: {
    key: 'DYDX_INDEXER_URL',
    doc: 'dYdX v4 indexer REST base of the derivatives area (default https://indexer.dydx.trade; paths `/v4/...`); unset with the sandbox in use, `start` runs the dYdX stand-in instead',
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  DYDX_NODE_REST_URL: {
    key: 'DYDX_NODE_REST_URL',
    doc: "dYdX Chain node's Cosmos REST (LCD) base, read for `/cosmos/bank/v1beta1/balances/{address}` (the subaccounts module's and insurance fund's USDC: dYdX's TVL). Unset: no TVL (null with a gap reason)",
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  COINGECKO_API_URL: {
    key: 'COINGECKO_API_URL',
    doc: "CoinGecko API v3 base URL of the tokenomics area's market data, up to `/api/v3` (default the plan's: https://api.coingecko.com/api/v3 for `demo`, https://pro-api.coingecko.com/api/v3 for `pro`). With none of the CoinGecko keys set and the sandbox in use, `start` runs the CoinGecko stand-in instead",
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  COINGECKO_API_KEY: {
    key: 'COINGECKO_API_KEY',
    doc: 'CoinGecko API key, sent as `x-cg-demo-api-key` (plan `demo`) or `x-cg-pro-api-key` (plan `pro`). Unset: keyless public access (rate-limited by IP; `pro` needs a key). Never logged',
    default: undefined,
    parse: (v: string, k: string) => {
      const key = v.trim();
      if (!/^[\x21-\x7e]+$/.test(key)) throw new ConfigError(k, 'expected a key without spaces');
      return key;
    },
  },
  COINGECKO_API_PLAN: {
    key: 'COINGECKO_API_PLAN',
    doc: "CoinGecko plan of `COINGECKO_API_KEY`: `demo` (the free plan's key, api.coingecko.com, paced at 30 calls a minute) or `pro` (a paid plan's key, pro-api.coingecko.com, paced at 500 a minute). CoinGecko refuses a key on the other plan's host",
    default: 'demo',
    parse: (v: string, k: string): CoingeckoPlan => {
      const plan = v.trim().toLowerCase();
      if (!(COINGECKO_PLANS as readonly string[]).includes(plan)) {
        throw new ConfigError(k, `expected one of ${COINGECKO_PLANS.join(', ')}, got ${JSON.stringify(v)}`);
      }
      return plan as CoingeckoPlan;
    },
  },
  SOURCIFY_URL: {
    key: 'SOURCIFY_URL',
    doc: "Sourcify server of the security area's contract sources, its root (default https://sourcify.dev/server; read: `GET /v2/contract/{chainId}/{address}`). Unset with the sandbox in use, `start` runs the Sourcify stand-in instead",
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  ETHERSCAN_API_URL: {
    key: 'ETHERSCAN_API_URL',
    doc: "Etherscan API host of the security area's fallback contract sources and creation transactions (default https://api.etherscan.io; read: `GET /v2/api?chainid=…&module=contract&action=getsourcecode` and `getcontractcreation`). Unset with the sandbox in use, `start` runs the Etherscan stand-in instead",
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  ETHERSCAN_API_KEY: {
    key: 'ETHERSCAN_API_KEY',
    doc: 'Etherscan API key (V2: one key for every chain), sent as the `apikey` query parameter. Needed to read Etherscan. Never logged',
    default: undefined,
    parse: (v: string, k: string) => {
      const key = v.trim();
      if (!/^[A-Za-z0-9]+$/.test(key)) throw new ConfigError(k, 'expected an alphanumeric key');
      return key;
    },
  },
  REDDIT_API_URL: {
    key: 'REDDIT_API_URL',
    doc: 'Reddit OAuth API base URL of the community area (default https://oauth.reddit.com). Needs `REDDIT_CLIENT_ID` and `REDDIT_CLIENT_SECRET`; with none of the Reddit keys set and the sandbox in use, `start` runs the Reddit stand-in instead',
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  REDDIT_AUTH_URL: {
    key: 'REDDIT_AUTH_URL',
    doc: 'Where Reddit issues OAuth tokens (`POST /api/v1/access_token`; default https://www.reddit.com)',
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  REDDIT_CLIENT_ID: {
    key: 'REDDIT_CLIENT_ID',
    doc: 'Client id of a Reddit app (type `script` or `web`; app-only OAuth, no user account is read). Never logged',
    default: undefined,
    parse: (v: string, k: string) => {
      const id = v.trim();
      if (!/^[\x21-\x7e]+$/.test(id) || id.includes(':'))
        throw new ConfigError(k, 'expected an id without spaces or `:`');
      return id;
    },
  },
  REDDIT_CLIENT_SECRET: {
    key: 'REDDIT_CLIENT_SECRET',
    doc: 'Secret of `REDDIT_CLIENT_ID`. Never logged',
    default: undefined,
    parse: (v: string, k: string) => {
      const secret = v.trim();
      if (!/^[\x21-\x7e]+$/.test(secret)) throw new ConfigError(k, 'expected a secret without spaces');
      return secret;
    },
  },
  REDDIT_USER_AGENT: {
    key: 'REDDIT_USER_AGENT',
    doc: 'User-Agent sent to Reddit, which requires a descriptive one and throttles generic ones: `<platform>:<app id>:<version> (by /u/<reddit user>)`',
    default: undefined,
    parse: (v: string, k: string) => {
      const agent = v.trim();
      if (agent.length < 10 || /[\r\n]/.test(agent)) throw new ConfigError(k, 'expected a descriptive User-Agent');
      return agent;
    },
  },
  REDDIT_SUBREDDITS: {
    key: 'REDDIT_SUBREDDITS',
    doc: 'The subreddit read for a protocol, overriding the defaults: `id=Subreddit` pairs separated by commas (ids of `/scores/social/protocols/reddit`), e.g. `aave=Aave_Official,uniswap=UniSwap`',
    default: '',
    parse: (v: string, k: string): ReadonlyMap<string, string> => {
      const out = new Map<string, string>();
      for (const entry of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const m = /^([a-z0-9-]+)\s*=\s*(?:\/?r\/)?([A-Za-z0-9][A-Za-z0-9_]{1,20})$/.exec(entry);
        if (!m) throw new ConfigError(k, `expected id=Subreddit, got ${JSON.stringify(entry)}`);
        out.set(m[1]!, m[2]!);
      }
      return out;
    },
  },
  SANDBOX_STABLECOINS: {
    key: 'SANDBOX_STABLECOINS',
    doc: 'Deploy MakerDAO (from @makerdao/testchain) and Liquity (our own contracts) in a new sandbox world, and with them the stablecoin area in the sandbox: `true` or `false` (a lighter world without them). A saved world keeps what it was made with',
    default: 'true',
    parse: (v: string, k: string) => {
      const t = v.trim().toLowerCase();
      if (t === 'true' || t === '1') return true;
      if (t === 'false' || t === '0') return false;
      throw new ConfigError(k, 'must be true or false');
    },
  },
  DISCORD_API_URL: {
    key: 'DISCORD_API_URL',
    doc: 'Discord API base URL of the community area (default https://discord.com/api/v10). Unset with no `DISCORD_BOT_TOKEN` and the sandbox in use: `start` runs the Discord stand-in instead',
    default: undefined,
    parse: (v: string, k: string) => url(['http:', 'https:'])(v.trim(), k).replace(/\/+$/, ''),
  },
  DISCORD_BOT_TOKEN: {
    key: 'DISCORD_BOT_TOKEN',
    doc: "Token of the Discord bot the community area reads as (sent as `Authorization: Bot <token>`); the bot must be a member of each protocol's guild, and needs the message-content intent for sentiment and topics (without it counts still work). Never logged",
    default: undefined,
    parse: (v: string, k: string) => {
      const token = v.trim();
      if (!/^[\x21-\x7e]+$/.test(token)) throw new ConfigError(k, 'expected a token without spaces');
      return token;
    },
  },
  DISCORD_GUILDS: {
    key: 'DISCORD_GUILDS',
    doc: 'Which Discord guild is which protocol\'s, as JSON: `{"aave": "<guild id>", …}` by the registry\'s social id. A protocol not named here is read from the bot\'s one guild whose name matches the protocol\'s name',
    default: undefined,
    parse: (v: string, k: string): ReadonlyMap<string, string> => {
      let json: unknown;
      try {
        json = JSON.parse(v);
      } catch {
        throw new ConfigError(k, 'expected a JSON object of protocol id → guild id');
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json)) {
        throw new ConfigError(k, 'expected a JSON object of protocol id → guild id');
      }
      const out = new Map<string, string>();
      for (const [protocol, guild] of Object.entries(json)) {
        if (typeof guild !== 'string' || !/^\d{17,20}$/.test(guild)) {
          throw new ConfigError(k, `guild of ${protocol}: expected a snowflake id as a string`);
        }
        out.set(protocol, guild);
      }
      return out;
    },
  },
  ADDRESS_BOOK_FILE: {
    key: 'ADDRESS_BOOK_FILE',
    doc: "JSON address book (per chain: chain id, tokens, entry points) read instead of the registry's own addresses, for a testnet, a fork or the sandbox world: `protoscore sandbox run` writes one and names it in `DATA_DIR/sandbox/config.json`",
    default: undefined,
    parse: (v: string, k: string) => {
      if (v.trim() === '') throw new ConfigError(k, 'must not be empty');
      return path.resolve(v.trim());
    },
  },
  SANDBOX_STANDINS: {
    key: 'SANDBOX_STANDINS',
    doc: "Comma-separated kinds of source (github, bitcoin, beacon, …) whose configured URLs are a sandbox's stand-ins, as `protoscore sandbox run` writes them in its configuration: their documents' `meta.source` then says `sandbox:…`. Provenance only: the sources are read as any other",
    default: '',
    parse: (v: string, k: string): ReadonlySet<string> => {
      const items = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const item of items)
        if (!/^[a-z][a-z0-9_-]*$/.test(item))
          throw new ConfigError(k, `expected kinds of source, got ${JSON.stringify(item)}`);
      return new Set(items);
    },
  },
  SANDBOX_SCALE: {
    key: 'SANDBOX_SCALE',
    doc: 'Activity multiplier of the sandbox scenario (e.g. 0.2 for a lighter, faster world)',
    default: '1',
    parse: decimal(0.01, 100),
  },
} as const satisfies Record<string, KeySpec<unknown>>;

type Keys = typeof CONFIG_KEYS;
type Parsed = { [K in keyof Keys]: ReturnType<Keys[K]['parse']> | undefined };

function readConfigFile(file: string): Raw {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError('CONFIG_FILE', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError('CONFIG_FILE', `${file} is not valid JSON`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError('CONFIG_FILE', `${file} must hold a JSON object of KEY: value`);
  }
  const out: Raw = {};
  for (const [key, value] of Object.entries(json)) {
    if (!(key in CONFIG_KEYS) && !RPC_URL_KEY.test(key)) throw new ConfigError(key, `unknown key in ${file}`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new ConfigError(key, `expected a string or number in ${file}`);
    }
    out[key] = String(value);
  }
  return out;
}

/** The raw keys each configuration was parsed from (file and environment merged), for `configWith`. */
const rawOf = new WeakMap<Config, Raw>();

/** Parses and freezes the configuration. Throws ConfigError naming the first bad key. */
export function loadConfig(env: Raw = process.env): Config {
  const configFile = env.CONFIG_FILE?.trim() ? path.resolve(env.CONFIG_FILE) : undefined;
  const fromFile = configFile ? readConfigFile(configFile) : {};
  const merged: Raw = { ...fromFile };
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') merged[key] = value;
  return parseConfig(merged, configFile);
}

/**
 * The configuration with some keys set (the same keys and forms as the environment's), e.g. the base URL and
 * credentials of a stand-in the sandbox started. Throws ConfigError for a bad value, as at start.
 */
export function configWith(config: Config, keys: Readonly<Record<string, string>>): Config {
  for (const key of Object.keys(keys)) {
    if (!(key in CONFIG_KEYS) && !RPC_URL_KEY.test(key)) throw new ConfigError(key, 'unknown configuration key');
  }
  return parseConfig({ ...(rawOf.get(config) ?? {}), ...keys }, config.configFile);
}

function parseConfig(raw: Raw, configFile: string | undefined): Config {
  const parsed = {} as Record<string, unknown>;
  for (const spec of Object.values(CONFIG_KEYS) as KeySpec<unknown>[]) {
    const value = raw[spec.key] ?? spec.default;
    parsed[spec.key] = value === undefined ? undefined : spec.parse(value, spec.key);
  }
  const p = parsed as Parsed;
  const config: Config = Object.freeze({
    port: p.PORT ?? 8080,
    host: p.HOST ?? '127.0.0.1',
    publicUrl: p.PUBLIC_URL,
    keepAliveTimeoutMs: p.KEEP_ALIVE_TIMEOUT_MS ?? 72_000,
    dataDir: p.DATA_DIR ?? path.resolve('./data'),
    databaseUrl: p.DATABASE_URL,
    redisUrl: p.REDIS_URL,
    logLevel: p.LOG_LEVEL ?? 'info',
    logFormat: p.LOG_FORMAT ?? 'auto',
    defaultRatePerMinute: p.RATE_LIMIT_PER_MINUTE ?? 600,
    syncIntervalMs: p.SYNC_INTERVAL_MS ?? 1000,
    publishEverySeconds: p.PUBLISH_EVERY_SECONDS ?? 60,
    tokenLookupsPerSecond: p.TOKEN_LOOKUPS_PER_SECOND ?? 20,
    disabledAreas: p.DISABLED_AREAS ?? new Set<AreaId>(),
    configFile,
    rpcUrls: rpcUrlsOf(raw),
    sandbox: Object.freeze({
      seed: p.SANDBOX_SEED ?? 1,
      days: p.SANDBOX_DAYS ?? 8,
      blockSeconds: p.SANDBOX_BLOCK_SECONDS ?? 5,
      scale: p.SANDBOX_SCALE ?? 1,
      stablecoins: p.SANDBOX_STABLECOINS ?? true,
      standins: p.SANDBOX_STANDINS ?? new Set<string>(),
    }),
    github: Object.freeze({ apiUrl: p.GITHUB_API_URL, token: p.GITHUB_TOKEN }),
    bitcoin: Object.freeze({
      rpcUrl: rpcUrlsOf(raw).get('bitcoin'),
      user: p.BITCOIN_RPC_USER,
      password: p.BITCOIN_RPC_PASSWORD,
      cookieFile: p.BITCOIN_RPC_COOKIE_FILE,
    }),
    beaconApiUrl: p.BEACON_API_URL,
    gmxOracleUrl: p.GMX_ORACLE_URL,
    synthetixApiUrl: p.SYNTHETIX_API_URL,
    discord: Object.freeze({
      apiUrl: p.DISCORD_API_URL,
      token: p.DISCORD_BOT_TOKEN,
      guilds: p.DISCORD_GUILDS ?? new Map<string, string>(),
    }),
    dydx: Object.freeze({ indexerUrl: p.DYDX_INDEXER_URL, nodeRestUrl: p.DYDX_NODE_REST_URL }),
    contractSources: Object.freeze({
      sourcifyUrl: p.SOURCIFY_URL,
      etherscanUrl: p.ETHERSCAN_API_URL,
      etherscanApiKey: p.ETHERSCAN_API_KEY,
    }),
    coingecko: Object.freeze({
      apiUrl: p.COINGECKO_API_URL,
      apiKey: p.COINGECKO_API_KEY,
      plan: p.COINGECKO_API_PLAN ?? 'demo',
    }),
    reddit: Object.freeze({
      apiUrl: p.REDDIT_API_URL,
      authUrl: p.REDDIT_AUTH_URL,
      clientId: p.REDDIT_CLIENT_ID,
      clientSecret: p.REDDIT_CLIENT_SECRET,
      userAgent: p.REDDIT_USER_AGENT,
      subreddits: p.REDDIT_SUBREDDITS ?? new Map<string, string>(),
    }),
    addressBookFile: p.ADDRESS_BOOK_FILE,
  });
  if (config.bitcoin.rpcUrl !== undefined && config.bitcoin.user === undefined && !config.bitcoin.cookieFile) {
    throw new ConfigError(
      'RPC_URL_BITCOIN',
      'needs BITCOIN_RPC_USER and BITCOIN_RPC_PASSWORD, or BITCOIN_RPC_COOKIE_FILE',
    );
  }
  if (config.bitcoin.user !== undefined && config.bitcoin.password === undefined) {
    throw new ConfigError('BITCOIN_RPC_PASSWORD', 'must be set with BITCOIN_RPC_USER');
  }
  if (config.discord.apiUrl !== undefined && config.discord.token === undefined) {
    throw new ConfigError('DISCORD_BOT_TOKEN', 'must be set with DISCORD_API_URL');
  }
  if ((config.reddit.clientId === undefined) !== (config.reddit.clientSecret === undefined)) {
    throw new ConfigError('REDDIT_CLIENT_SECRET', 'REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET are set together');
  }
  if (config.coingecko.plan === 'pro' && config.coingecko.apiKey === undefined) {
    throw new ConfigError(
      'COINGECKO_API_KEY',
      'must be set with COINGECKO_API_PLAN=pro (the Pro API has no keyless access)',
    );
  }
  if (config.reddit.apiUrl !== undefined && config.reddit.clientId === undefined) {
    throw new ConfigError(
      'REDDIT_API_URL',
      "needs REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET (Reddit's API is read with OAuth)",
    );
  }
  rawOf.set(config, Object.freeze({ ...raw }));
  return config;
}

function rpcUrlsOf(raw: Raw): ReadonlyMap<string, string> {
  const parse = url(['http:', 'https:']);
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(raw).sort(([a], [b]) => a.localeCompare(b))) {
    const m = RPC_URL_KEY.exec(key);
    if (!m || value === undefined || value === '') continue;
    out.set(m[1]!.toLowerCase().replaceAll('_', '-'), parse(value, key));
  }
  return out;
}
