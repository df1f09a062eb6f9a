import { type Config, DEFAULT_GITHUB_API_URL } from '../../config/index.js';
import type { Clock } from '../../core/time.js';

/**
 * The GitHub REST API this process reads, decided once at start-up from the configuration (`GITHUB_API_URL`,
 * default GitHub's own, and `GITHUB_TOKEN`). The sandbox's stand-in is configured the same way, through those
 * two keys: jobs never know which one they got.
 */
export interface GithubEndpoint {
  readonly baseUrl: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly token: string | undefined;
  /** Where the data comes from, in words, for `meta.source` (the runtime names the sandbox's stand-in so). */
  readonly label?: string;
  /** The clock the source reads rate-limit resets against (the stand-in's, in tests). */
  readonly clock?: Clock;
  /** Client tuning (tests make retries instant). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly maxRetries?: number;
  /** Only these subjects (`kind:id`, e.g. `protocol:aave`); default: every registry subject. Tests use a few. */
  readonly subjects?: readonly string[];
}

/** The configured GitHub API (GITHUB_API_URL or GitHub's), with the configured token. */
export function githubFromConfig(config: Config): GithubEndpoint {
  return { baseUrl: config.github.apiUrl ?? DEFAULT_GITHUB_API_URL, token: config.github.token };
}
