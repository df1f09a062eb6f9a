import { Type } from '@sinclair/typebox';
import { oneOf } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { CollateralsPayload, StableScoreHistory, StableScoreRecord, WeeklyRecord } from './schema.js';

const protocol = (p: PathParams, r: Registry) =>
  oneOf(
    'stablecoin protocol',
    p.protocol!,
    r.stablecoinProtocols().map((x) => x.id),
  );

const market = (p: PathParams, r: Registry) => {
  const unknownProtocol = protocol(p, r);
  if (unknownProtocol) return unknownProtocol;
  return oneOf(`chain for ${p.protocol}`, p.chain!, r.protocol(p.protocol!)!.stablecoin!.chains);
};

export const stablecoinPaths: PathDef[] = [
  {
    id: 'stablecoin.weekly',
    area: 'stablecoin',
    template: '/data/stablecoin/<protocol>',
    shape: 'daily-7',
    payload: Type.Array(WeeklyRecord, { minItems: 7, maxItems: 7 }),
    methodology: 'stablecoin.liquidity',
    summary: 'Weekly analytics of key liquidity metrics of a stablecoin',
    entity: protocol,
  },
  {
    id: 'stablecoin.collaterals',
    area: 'stablecoin',
    template: '/data/stablecoin/<protocol>/collaterals',
    shape: 'snapshot',
    payload: CollateralsPayload,
    methodology: 'stablecoin.liquidity',
    summary: 'Collateral analytics of a stablecoin',
    entity: protocol,
  },
  {
    id: 'stablecoin.score',
    area: 'stablecoin',
    template: '/scores/liquidity-stablecoin/<chain>/<protocol>',
    shape: 'score-history',
    payload: StableScoreHistory,
    summary: 'Liquidity score of a stablecoin on a chain',
    methodology: 'stablecoin.liquidity',
    entity: market,
  },
  {
    id: 'stablecoin.all-markets',
    area: 'stablecoin',
    template: '/scores/liquidity-stablecoin-all-markets',
    shape: 'all-scores',
    payload: Type.Array(StableScoreRecord),
    summary: 'Current liquidity scores of all stablecoins on all chains',
    methodology: 'stablecoin.liquidity',
    entity: () => undefined,
  },
];
