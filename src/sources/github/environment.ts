import { type Config, DEFAULT_GITHUB_API_URL } from '../../config/index.js';
import type { Clock } from '../../core/time.js';

/**
 * Where the development area reads GitHub from, decided once at start-up: the API the user configured
 * (`GITHUB_API_URL`, default GitHub's own) or the sandbox's stand-in. Jobs never know which one they got.
 */
export interface GithubEnvironment {
  readonly baseUrl: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly token: string | undefined;
  /** `github` (a real API) or `sandbox` (the stand-in): shown in the datasets' `meta.source`. */
  readonly kind: 'github' | 'sandbox';
  /** The clock the source reads rate-limit resets against (the stand-in's, in tests). */
  readonly clock?: Clock;
  /** Client tuning (tests make retries instant). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly maxRetries?: number;
  /** Only these subjects (`kind:id`, e.g. `protocol:aave`); default: every registry subject. Tests use a few. */
  readonly subjects?: readonly string[];
}

/** The configured GitHub API (GITHUB_API_URL or GitHub's), with the configured token. */
export function githubFromConfig(config: Config): GithubEnvironment {
  return { baseUrl: config.github.apiUrl ?? DEFAULT_GITHUB_API_URL, token: config.github.token, kind: 'github' };
}

/** The token the sandbox's clients send to the stand-in (it accepts any: a token gets 5000 requests an hour). */
export const SANDBOX_GITHUB_TOKEN = 'sandbox';

export function githubFromStandin(url: string, clock?: Clock): GithubEnvironment {
  return { baseUrl: url, token: SANDBOX_GITHUB_TOKEN, kind: 'sandbox', ...(clock ? { clock } : {}) };
}
