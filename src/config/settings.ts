/**
 * The settings groups of `Config` (src/config/index.ts), one per source or subsystem, and their defaults: what the
 * parsed configuration hands each part of the service. Kept apart from the keys and their parsing, which index.ts
 * holds and re-exports these from.
 */
export interface ContractSourceSettings {
  /** `SOURCIFY_URL` (no trailing slash, the server's root: `/v2/contract/...` below it). */
  readonly sourcifyUrl: string | undefined;
  /** `ETHERSCAN_API_URL` (no trailing slash, the host: `/v2/api` below it). */
  readonly etherscanUrl: string | undefined;
  /** `ETHERSCAN_API_KEY`. Secret: never logged. */
  readonly etherscanApiKey: string | undefined;
}

/** CoinGecko's plans with their own key header and host: `demo` (free, api.coingecko.com) or `pro` (paid). */
export const COINGECKO_PLANS = ['demo', 'pro'] as const;
export type CoingeckoPlan = (typeof COINGECKO_PLANS)[number];

export interface CoingeckoSettings {
  /** `COINGECKO_API_URL` (no trailing slash, up to `/api/v3`); undefined: the plan's host. */
  readonly apiUrl: string | undefined;
  /** `COINGECKO_API_KEY`. Secret: never logged. */
  readonly apiKey: string | undefined;
  /** `COINGECKO_API_PLAN` (default `demo`): which header carries the key, and the default host. */
  readonly plan: CoingeckoPlan;
}

export interface RedditSettings {
  /** `REDDIT_API_URL` (no trailing slash); undefined: https://oauth.reddit.com. */
  readonly apiUrl: string | undefined;
  /** `REDDIT_AUTH_URL`, where tokens are issued; undefined: https://www.reddit.com. */
  readonly authUrl: string | undefined;
  readonly clientId: string | undefined;
  /** Secret: never logged. */
  readonly clientSecret: string | undefined;
  readonly userAgent: string | undefined;
  /** `REDDIT_SUBREDDITS`: social id → subreddit, overriding the defaults (src/sources/reddit/subreddits.ts). */
  readonly subreddits: ReadonlyMap<string, string>;
}

export interface DiscordSettings {
  /** `DISCORD_API_URL` as configured (no trailing slash); undefined when not set. */
  readonly apiUrl: string | undefined;
  /** `DISCORD_BOT_TOKEN`. */
  readonly token: string | undefined;
  /** `DISCORD_GUILDS`: protocol id (the registry's social id) → guild id. */
  readonly guilds: ReadonlyMap<string, string>;
}

/** Discord's API, version 10: what the community area reads when `DISCORD_API_URL` is not set. */
export const DEFAULT_DISCORD_API_URL = 'https://discord.com/api/v10';

export interface BitcoinSettings {
  readonly rpcUrl: string | undefined;
  /** Secrets: never logged. */
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly cookieFile: string | undefined;
}

export interface GithubSettings {
  /** `GITHUB_API_URL` as configured (no trailing slash); undefined when not set. */
  readonly apiUrl: string | undefined;
  /** `GITHUB_TOKEN`; undefined means anonymous requests (60 an hour on GitHub). */
  readonly token: string | undefined;
}

/** GitHub's public REST API: what the development area reads when `GITHUB_API_URL` is not set outside the sandbox. */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

export interface SandboxSettings {
  /** Seed of the world's scenario: the same seed and clock give the same chain, block for block. */
  readonly seed: number;
  /** Simulated history before the first start, in days. */
  readonly days: number;
  /** Block interval once the world has caught up with the wall clock (live mode), in seconds. */
  readonly blockSeconds: number;
  /** Activity multiplier of the scenario (1 = the default demo; lower is faster to simulate). */
  readonly scale: number;
  /** `SANDBOX_STABLECOINS`: a new world deploys MakerDAO and Liquity (default true). */
  readonly stablecoins: boolean;
  /**
   * `SANDBOX_STANDINS`: the kinds of source (`github`, `bitcoin`, …) that a sandbox's stand-ins serve at the
   * configured URLs, as `sandbox run` writes them: provenance only (`meta.source` says `sandbox:…`).
   */
  readonly standins: ReadonlySet<string>;
}
