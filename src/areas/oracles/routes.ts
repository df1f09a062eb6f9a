import { Type } from '@sinclair/typebox';
import { oneOf, seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { OracleDailyRecord, OraclePair } from './schema.js';

const oracle = (p: PathParams, r: Registry) =>
  oneOf(
    'oracle',
    p.oracle!,
    r.oracles().map((o) => o.id),
  );

const pair = (p: PathParams, r: Registry) =>
  oracle(p, r) ??
  (r.oracleFeed(p.oracle!, p.pair!)
    ? undefined
    : seeListing(`${p.oracle} feed`, p.pair!, `/data/oracle/${p.oracle}/pairs`));

export const oraclesPaths: PathDef[] = [
  {
    id: 'oracles.pairs',
    payload: Type.Array(OraclePair),
    area: 'oracles',
    template: '/data/oracle/<oracle>/pairs',
    shape: 'listing',
    summary: 'Price feed pairs of the oracle',
    entity: oracle,
  },
  {
    id: 'oracles.pair',
    payload: Type.Array(OracleDailyRecord, { minItems: 7, maxItems: 7 }),
    area: 'oracles',
    template: '/data/oracle/<oracle>/<pair>',
    shape: 'daily-7',
    summary: 'Weekly dynamic parameters of a price feed pair, one record per day of the past 7',
    entity: pair,
  },
];
