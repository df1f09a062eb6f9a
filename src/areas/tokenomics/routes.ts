import { oneOf } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';

const protocol = (p: PathParams, r: Registry) =>
  oneOf(
    'tokenomics for protocol',
    p.protocol!,
    r.tokenomicsProtocols().map((x) => x.id),
  );

const group = (name: string, summary: string): PathDef => ({
  id: `tokenomics.${name}`,
  area: 'tokenomics',
  template: `/data/tokenomics/${name}/<protocol>`,
  shape: 'daily-7',
  summary,
  entity: protocol,
});

export const tokenomicsPaths: PathDef[] = [
  {
    id: 'tokenomics.all',
    area: 'tokenomics',
    template: '/data/tokenomics/<protocol>',
    shape: 'daily-7',
    summary: 'Tokenomics data of a protocol, past 7 days (all groups)',
    entity: protocol,
  },
  group('supply', 'Supply metrics of a protocol token, past 7 days'),
  group('allocations', 'Allocation of a protocol token, past 7 days'),
  group('indicators', 'Market indicators of a protocol token, past 7 days'),
  group('metrics', 'Holder and activity metrics of a protocol token, past 7 days'),
  group('exchanges', 'Exchange listings and volumes of a protocol token, past 7 days'),
  group('breakdown', 'Supply by holder category of a protocol token, past 7 days'),
];
