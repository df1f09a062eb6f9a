import { Type } from '@sinclair/typebox';
import { seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import {
  AllMarketsEntry,
  AssetAnalytics,
  AvailableMarket,
  LendingScoreHistory,
  MarketAnalytics,
  MarketOverview,
} from './schema.js';

const LISTING = '/data/liquidity/lending/available-markets';

const market = (p: PathParams, r: Registry) =>
  r.lendingMarket(p.chain!, p.protocol!, p.version!.toUpperCase(), p.base_asset!.toUpperCase())
    ? undefined
    : seeListing('lending market', `${p.chain}/${p.protocol}/${p.version}/${p.base_asset}`, LISTING);

const asset = (p: PathParams, r: Registry) => {
  const m = r.lendingMarket(p.chain!, p.protocol!, p.version!, p.base_asset!);
  if (!m) return seeListing('lending market', `${p.chain}/${p.protocol}/${p.version}/${p.base_asset}`, LISTING);
  return r.lendingAsset(m, p.token_address!)
    ? undefined
    : seeListing(`asset in ${p.protocol} ${p.version} ${p.base_asset}`, p.token_address!.toLowerCase(), LISTING);
};

const protocol = (p: PathParams, r: Registry) =>
  r.lendingProtocols().some((x) => x.id === p.protocol)
    ? undefined
    : seeListing('lending protocol', p.protocol!, LISTING);

export const lendingPaths: PathDef[] = [
  {
    id: 'lending.available-markets',
    payload: Type.Array(AvailableMarket),
    area: 'lending',
    template: '/data/liquidity/lending/available-markets',
    shape: 'listing',
    summary: 'Supported chains, versions, base assets and token addresses of all lending protocols',
    entity: () => undefined,
  },
  {
    id: 'lending.asset-analytics',
    payload: AssetAnalytics,
    area: 'lending',
    template: '/data/liquidity/lending/asset-analytics/<chain>/<protocol>/<version>/<base_asset>/<token_address>',
    shape: 'snapshot',
    summary: 'Liquidity data of an asset in a lending market',
    entity: asset,
  },
  {
    id: 'lending.protocol-analytics',
    payload: MarketAnalytics,
    area: 'lending',
    template: '/data/liquidity/lending/protocol-analytics/<chain>/<protocol>/<version>/<base_asset>',
    shape: 'snapshot',
    summary: 'Analytics of a lending market',
    entity: market,
  },
  {
    id: 'lending.market-overview',
    payload: MarketOverview,
    area: 'lending',
    template: '/data/liquidity/lending/market-overview/<protocol>',
    shape: 'snapshot',
    summary: 'Market data of a lending protocol across its markets',
    entity: protocol,
  },
  {
    id: 'lending.protocol-score',
    payload: LendingScoreHistory,
    area: 'lending',
    template: '/scores/liquidity/lending/protocol-score/<chain>/<protocol>/<version>/<base_asset>',
    letterCase: 'lower',
    shape: 'score-history',
    summary: 'Liquidity health score of a lending market',
    methodology: 'lending.liquidity-health',
    entity: market,
  },
  {
    id: 'lending.market-overview-score',
    payload: LendingScoreHistory,
    area: 'lending',
    template: '/scores/liquidity/lending/market-overview/<protocol>',
    shape: 'score-history',
    summary: 'Liquidity health score of a lending protocol across its markets',
    methodology: 'lending.liquidity-health',
    entity: protocol,
  },
  {
    id: 'lending.all-markets',
    payload: Type.Array(AllMarketsEntry),
    area: 'lending',
    template: '/scores/liquidity/lending/all-markets',
    shape: 'all-scores',
    summary: 'Current liquidity health scores of all lending markets',
    methodology: 'lending.liquidity-health',
    entity: () => undefined,
  },
];
