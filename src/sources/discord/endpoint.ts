import { type Config, DEFAULT_DISCORD_API_URL } from '../../config/index.js';
import type { Clock } from '../../core/time.js';

/**
 * The Discord API this process reads, decided once at start-up from the configuration (`DISCORD_API_URL`, default
 * Discord's own v10, `DISCORD_BOT_TOKEN` and `DISCORD_GUILDS`). The sandbox's stand-in is configured through the
 * same keys: jobs never know which one they got.
 */
export interface DiscordEndpoint {
  readonly baseUrl: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly token: string;
  /** Protocol id (registry social id) → guild id, from `DISCORD_GUILDS`; others are matched by name. */
  readonly guilds: ReadonlyMap<string, string>;
  /** Where the data comes from, in words, for `meta.source`. */
  readonly label?: string;
  /** The clock the source reads rate-limit resets against (the stand-in's, in tests). */
  readonly clock?: Clock;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly maxRetries?: number;
}

/** The configured Discord API, or undefined without a bot token (nothing can be read without one). */
export function discordFromConfig(config: Config): DiscordEndpoint | undefined {
  const { token, apiUrl, guilds } = config.discord;
  if (token === undefined) return undefined;
  return { baseUrl: apiUrl ?? DEFAULT_DISCORD_API_URL, token, guilds };
}
