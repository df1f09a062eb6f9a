import { type TSchema, Type } from '@sinclair/typebox';
import { oneOf } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { GroupRecords, TokenomicsRecord } from './schema.js';

const protocol = (p: PathParams, r: Registry) =>
  oneOf(
    'tokenomics for protocol',
    p.protocol!,
    r.tokenomicsProtocols().map((x) => x.id),
  );

const history = (record: TSchema) => Type.Array(record, { minItems: 7, maxItems: 7 });

const group = (name: keyof typeof GroupRecords, summary: string): PathDef => ({
  id: `tokenomics.${name}`,
  area: 'tokenomics',
  template: `/data/tokenomics/${name}/<protocol>`,
  payload: history(GroupRecords[name]),
  shape: 'daily-7',
  summary,
  entity: protocol,
});

/**
 * The tokenomics paths: 7 daily records of a token, all groups (`/data/tokenomics/<protocol>`) or one group per
 * sub-path. Their documents carry `meta.methodology` = `TOKENOMICS_METHODOLOGY` (schema.ts; the methodology index
 * lists `/data/tokenomics/*` under it); the rows name no model, as no path here serves a score.
 */
export const tokenomicsPaths: PathDef[] = [
  {
    id: 'tokenomics.all',
    area: 'tokenomics',
    template: '/data/tokenomics/<protocol>',
    payload: history(TokenomicsRecord),
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
