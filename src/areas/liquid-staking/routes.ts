import { Type } from '@sinclair/typebox';
import { seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import {
  AvailableDexExposure,
  AvailableLendingExposure,
  LendingExposureAnalytics,
  LstPoolAnalytics,
  LstScoreHistory,
} from './schema.js';

const LENDING_LISTING = '/data/liquidity/liquid-staking/available-lending-markets-exposure';
const DEX_LISTING = '/data/liquidity/liquid-staking/available-dexes-exposure';

const lendingMarket = (p: PathParams, r: Registry) =>
  r
    .lstLendingMarkets()
    .some(
      (m) =>
        m.chain === p.chain && m.protocol === p.protocol && m.version === p.version && m.baseAsset === p.base_asset,
    )
    ? undefined
    : seeListing(
        'liquid staking exposure in lending market',
        `${p.chain}/${p.protocol}/${p.version}/${p.base_asset}`,
        LENDING_LISTING,
      );

const dexPool = (p: PathParams, r: Registry) =>
  r.lstDexPools().some((x) => x.pool === p.pool_address!.toLowerCase())
    ? undefined
    : seeListing('liquid staking exposure in pool', p.pool_address!.toLowerCase(), DEX_LISTING);

export const liquidStakingPaths: PathDef[] = [
  {
    id: 'liquid-staking.available-lending-markets-exposure',
    payload: Type.Array(AvailableLendingExposure),
    area: 'liquid-staking',
    template: '/data/liquidity/liquid-staking/available-lending-markets-exposure',
    shape: 'listing',
    summary: 'Lending markets in which liquid staking exposure is analysed',
    entity: () => undefined,
  },
  {
    id: 'liquid-staking.available-dexes-exposure',
    payload: Type.Array(AvailableDexExposure),
    area: 'liquid-staking',
    template: '/data/liquidity/liquid-staking/available-dexes-exposure',
    shape: 'listing',
    summary: 'Exchange protocols and pools in which liquid staking exposure is analysed',
    entity: () => undefined,
  },
  {
    id: 'liquid-staking.asset-analytics-in-lending',
    payload: LendingExposureAnalytics,
    area: 'liquid-staking',
    template:
      '/data/liquidity/liquid-staking/asset-analytics-in-lending/<chain>/<protocol>/<version>/<base_asset>/<flag>',
    shape: 'snapshot',
    summary:
      'Liquid staking token exposure in a lending market; flag true: looped positions only, false: every position with the token as collateral',
    entity: lendingMarket,
  },
  {
    id: 'liquid-staking.pool-analytics-in-dex',
    payload: LstPoolAnalytics,
    area: 'liquid-staking',
    template: '/data/liquidity/liquid-staking/pool-analytics-in-dex/<pool_address>',
    shape: 'snapshot',
    summary: 'Analytics of an exchange pool of a liquid staking token',
    entity: dexPool,
  },
  {
    id: 'liquid-staking.exposure-in-lending',
    payload: LstScoreHistory,
    area: 'liquid-staking',
    template: '/scores/liquidity/liquid-staking/exposure-in-lending/<chain>/<protocol>/<version>/<base_asset>/<flag>',
    shape: 'score-history',
    summary: 'Exposure score of a liquid staking token in a lending market',
    methodology: 'liquid-staking.lending-exposure',
    entity: lendingMarket,
  },
  {
    id: 'liquid-staking.dex-pool-scores',
    payload: LstScoreHistory,
    area: 'liquid-staking',
    template: '/scores/liquidity/liquid-staking/dex-pool-scores/<pool_address>',
    shape: 'score-history',
    summary: 'Score of an exchange pool of a liquid staking token',
    methodology: 'liquid-staking.dex-pool',
    entity: dexPool,
  },
];
