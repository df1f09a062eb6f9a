import { type Config, DEFAULT_DISCORD_API_URL } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import type { DiscordClientOptions } from './client.js';
import { DiscordSource } from './source.js';

/**
 * The Discord API this process reads, decided once at start-up from the configuration (`DISCORD_API_URL`, default
 * Discord's own v10, `DISCORD_BOT_TOKEN` and `DISCORD_GUILDS`). The sandbox's stand-in is configured through the
 * same keys: jobs never know which one they got.
 */
export interface DiscordSettings {
  readonly baseUrl: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly token: string;
  /** Protocol id (registry social id) → guild id, from `DISCORD_GUILDS`; others are matched by name. */
  readonly guilds: ReadonlyMap<string, string>;
}

/** The opened Discord source: its one client (one rate-limit budget: buckets, the global limit, the pace). */
export interface DiscordEndpoint extends OpenedSource {
  readonly guilds: ReadonlyMap<string, string>;
  readonly client: DiscordSource;
}

/** The configured Discord API, or undefined without a bot token (nothing can be read without one). */
export function discordFromConfig(config: Config): DiscordSettings | undefined {
  const { token, apiUrl, guilds } = config.discord;
  if (token === undefined) return undefined;
  return { baseUrl: apiUrl ?? DEFAULT_DISCORD_API_URL, token, guilds };
}

/** Opens the Discord source; `tuning` sets the client's own limits (tests). */
export function openDiscord(
  settings: DiscordSettings,
  options: SourceOpenOptions & {
    readonly label?: string;
    readonly tuning?: Pick<DiscordClientOptions, 'globalPerSecond' | 'maxConcurrency'>;
  } = {},
): DiscordEndpoint {
  const client = new DiscordSource({
    baseUrl: settings.baseUrl,
    token: settings.token,
    ...options.tuning,
    ...clientOptions(options, 'discord'),
  });
  return {
    guilds: settings.guilds,
    client,
    source: options.label === undefined ? 'discord' : 'sandbox:discord',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
