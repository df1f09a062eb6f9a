import { oneOf, seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { ChannelListing, SocialHistory } from './schema.js';

const channel = (p: PathParams, r: Registry) =>
  oneOf(
    'community channel',
    p.channel!,
    r.channels.map((c) => c.id),
  );

const subject = (p: PathParams, r: Registry) => {
  const unknownChannel = channel(p, r);
  if (unknownChannel) return unknownChannel;
  return r.socialSubjects(p.channel!).some((s) => s.protocolId === p.protocol)
    ? undefined
    : seeListing(`protocol on ${p.channel}`, p.protocol!, `/scores/social/protocols/${p.channel}`);
};

export const communityPaths: PathDef[] = [
  {
    id: 'community.protocols',
    area: 'community',
    template: '/scores/social/protocols/<channel>',
    shape: 'listing',
    payload: ChannelListing,
    summary: 'Protocol identifiers usable in the social endpoints of a channel, with where they are read',
    entity: channel,
  },
  {
    id: 'community.social',
    area: 'community',
    template: '/scores/social/<channel>/<protocol>',
    shape: 'daily-7',
    payload: SocialHistory,
    summary: 'Social score and daily channel metrics of a protocol, past 7 days',
    methodology: 'community.social',
    entity: subject,
  },
];
