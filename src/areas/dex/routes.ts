import { Type } from '@sinclair/typebox';
import { seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import {
  AvailableDex,
  AvailablePool,
  DexDeploymentScoreHistory,
  DexOverviewScoreHistory,
  DexPoolScoreHistory,
  DexProtocolScore,
  PoolAnalytics,
  ProtocolAnalytics,
  ProtocolOverview,
} from './schema.js';

const LISTING = '/data/liquidity/dex/available-dexes';

const deployment = (p: PathParams, r: Registry) =>
  r.dexDeployment(p.chain!, p.protocol!, p.version!)
    ? undefined
    : seeListing('exchange', `${p.chain}/${p.protocol}/${p.version}`, LISTING);

const protocol = (p: PathParams, r: Registry) =>
  r.dexProtocols().some((x) => x.id === p.protocol) ? undefined : seeListing('exchange protocol', p.protocol!, LISTING);

const pool = (p: PathParams, r: Registry) =>
  r.dexPool(p.pool_address!)
    ? undefined
    : seeListing('pool', p.pool_address!.toLowerCase(), `${LISTING} and /data/liquidity/dex/available-pools/…`);

export const dexPaths: PathDef[] = [
  {
    id: 'dex.available-dexes',
    payload: Type.Array(AvailableDex),
    area: 'dex',
    template: '/data/liquidity/dex/available-dexes',
    shape: 'listing',
    summary: 'Supported chains and protocol versions of all exchange protocols',
    entity: () => undefined,
  },
  {
    id: 'dex.available-pools',
    payload: Type.Array(AvailablePool),
    area: 'dex',
    template: '/data/liquidity/dex/available-pools/<chain>/<protocol>/<version>/<page_size>/<page_skip>',
    shape: 'paged',
    summary: 'Pools of an exchange protocol on a chain, by TVL, one page (offset = page_size × page_skip)',
    entity: deployment,
  },
  {
    id: 'dex.pool-analytics',
    payload: PoolAnalytics,
    area: 'dex',
    template: '/data/liquidity/dex/pool-analytics/<pool_address>',
    shape: 'snapshot',
    summary: 'Analytics of one pool',
    entity: pool,
  },
  {
    id: 'dex.protocol-analytics',
    payload: ProtocolAnalytics,
    area: 'dex',
    template: '/data/liquidity/dex/protocol-analytics/<chain>/<protocol>/<version>',
    shape: 'snapshot',
    summary: 'Analytics of an exchange protocol version on a chain',
    entity: deployment,
  },
  {
    id: 'dex.protocol-overview',
    payload: ProtocolOverview,
    area: 'dex',
    template: '/data/liquidity/dex/protocol-overview/<protocol>',
    shape: 'snapshot',
    summary: 'Overview of an exchange protocol across chains and versions',
    entity: protocol,
  },
  {
    id: 'dex.pool-score',
    payload: DexPoolScoreHistory,
    area: 'dex',
    template: '/scores/liquidity/dex/pool-score/<pool_address>',
    shape: 'score-history',
    summary: 'Volume continuity score of a pool',
    methodology: 'dex.volume-continuity',
    entity: pool,
  },
  {
    id: 'dex.protocol-score',
    payload: DexDeploymentScoreHistory,
    area: 'dex',
    template: '/scores/liquidity/dex/protocol-score/<chain>/<protocol>/<version>',
    shape: 'score-history',
    summary: 'Volume continuity score of an exchange protocol version on a chain',
    methodology: 'dex.volume-continuity',
    entity: deployment,
  },
  {
    id: 'dex.protocol-overview-score',
    payload: DexOverviewScoreHistory,
    area: 'dex',
    template: '/scores/liquidity/dex/protocol-overview/<protocol>',
    shape: 'score-history',
    summary: 'Volume continuity score of an exchange protocol across chains and versions',
    methodology: 'dex.volume-continuity',
    entity: protocol,
  },
  {
    id: 'dex.all-protocols',
    payload: Type.Array(DexProtocolScore),
    area: 'dex',
    template: '/scores/liquidity/dex/all-protocols',
    shape: 'all-scores',
    summary: 'Current volume continuity scores of all exchange protocols',
    methodology: 'dex.volume-continuity',
    entity: () => undefined,
  },
];
