import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { DEFAULT_REDDIT_USER_AGENT, REDDIT_API_URL, REDDIT_AUTH_URL } from './client.js';
import { RedditSource } from './source.js';
import { subredditFor } from './subreddits.js';

/**
 * The Reddit API this process reads, decided once at start-up from the configuration: the OAuth API host
 * (`REDDIT_API_URL`, default https://oauth.reddit.com), the host that issues tokens (`REDDIT_AUTH_URL`, default
 * https://www.reddit.com), the app's credentials and its User-Agent, and the subreddit of each protocol. The
 * sandbox's stand-in is configured through the same keys: jobs never know which one they got.
 */
export interface RedditSettings {
  readonly apiUrl: string;
  readonly authUrl: string;
  readonly clientId: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly clientSecret: string;
  readonly userAgent: string;
  /** The subreddit read for a social id (`registry.socialSubjects('reddit')`). */
  subredditFor(socialId: string): string;
}

/** The opened Reddit source: its one client (one token, one rate-limit window). */
export interface RedditEndpoint extends OpenedSource {
  readonly client: RedditSource;
  /** The subreddit read for a social id (`registry.socialSubjects('reddit')`). */
  subredditFor(socialId: string): string;
}

/** The configured Reddit API, or undefined when no app credentials are configured. */
export function redditFromConfig(config: Config): RedditSettings | undefined {
  const { reddit } = config;
  if (reddit.clientId === undefined || reddit.clientSecret === undefined) return undefined;
  return {
    apiUrl: reddit.apiUrl ?? REDDIT_API_URL,
    authUrl: reddit.authUrl ?? REDDIT_AUTH_URL,
    clientId: reddit.clientId,
    clientSecret: reddit.clientSecret,
    userAgent: reddit.userAgent ?? DEFAULT_REDDIT_USER_AGENT,
    subredditFor: (id) => subredditFor(id, reddit.subreddits),
  };
}

/** Opens the Reddit source. */
export function openReddit(
  settings: RedditSettings,
  options: SourceOpenOptions & { readonly label?: string } = {},
): RedditEndpoint {
  const client = new RedditSource({
    apiUrl: settings.apiUrl,
    authUrl: settings.authUrl,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    userAgent: settings.userAgent,
    ...clientOptions(options, 'reddit'),
  });
  return {
    client,
    subredditFor: (id) => settings.subredditFor(id),
    source: options.label === undefined ? 'reddit' : 'sandbox:reddit',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
