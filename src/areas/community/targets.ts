import type { DiscordEndpoint } from '../../sources/discord/endpoint.js';
import type { RedditEndpoint } from '../../sources/reddit/endpoint.js';
import type { AreaEnv } from '../kit/module.js';
import type { SocialTarget } from './repo.js';

/**
 * What the community area reads: the registry's protocols tracked on each channel (`registry.socialSubjects`), from
 * the Discord and Reddit APIs this process has, the real ones or the sandbox's stand-ins alike. A channel without
 * its source is not read (and not published).
 */
export interface CommunityTargets {
  readonly discord?: { readonly endpoint: DiscordEndpoint; readonly subjects: readonly SocialTarget[] };
  readonly reddit?: { readonly endpoint: RedditEndpoint; readonly subjects: readonly SocialTarget[] };
  /** Every target read, both channels. */
  readonly all: readonly SocialTarget[];
}

/** The targets, or undefined when this process has neither source. */
export function communityTargets(env: Pick<AreaEnv, 'registry' | 'sources'>): CommunityTargets | undefined {
  const subjects = (channel: 'discord' | 'reddit'): SocialTarget[] =>
    env.registry.socialSubjects(channel).map((s) => ({ channel, protocolId: s.protocolId, name: s.name }));
  const discordEndpoint = env.sources.get('discord');
  const redditEndpoint = env.sources.get('reddit');
  const discord = discordEndpoint ? { endpoint: discordEndpoint, subjects: subjects('discord') } : undefined;
  const reddit = redditEndpoint ? { endpoint: redditEndpoint, subjects: subjects('reddit') } : undefined;
  if (!discord && !reddit) return undefined;
  return {
    ...(discord ? { discord } : {}),
    ...(reddit ? { reddit } : {}),
    all: [...(discord?.subjects ?? []), ...(reddit?.subjects ?? [])],
  };
}
