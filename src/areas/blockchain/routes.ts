import { type TSchema, Type } from '@sinclair/typebox';
import { oneOf } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { BitcoinL1Record, BitcoinNetworkRecord, BitcoinTransactionRecord } from './bitcoin/schema.js';
import { daily7, EthereumL1Doc, EthereumNetworkStatsDoc, EthereumTxStatsDoc, L2Doc } from './evm/schema.js';

const layer = (name: 'l1_chain' | 'l2_chain', what: string) => (p: PathParams, r: Registry) =>
  oneOf(
    what,
    p[name]!,
    r.chainsByLayer(name === 'l1_chain' ? 'l1' : 'l2').map((c) => c.id),
  );

const l1 = layer('l1_chain', 'layer 1 chain');
const l2 = layer('l2_chain', 'layer 2 chain');

/**
 * How long the area's documents stay fresh after their `as_of`, for both parts: an hour without a newer block or
 * mempool sample means the chain, its node or the RPC stalled (Arbitrum and OP make a block every 0.25–2 s, Bitcoin
 * every 10 minutes on average, with hour-long gaps now and then).
 */
export const BLOCKCHAIN_FRESH_FOR_SECONDS = 3600;

/** The daily records each layer 1 path serves, one schema per chain family; the payload is 7 of their union. */
export const L1_TX_RECORDS: readonly TSchema[] = [EthereumTxStatsDoc, BitcoinTransactionRecord];
export const L1_NETWORK_RECORDS: readonly TSchema[] = [EthereumNetworkStatsDoc, BitcoinNetworkRecord];
export const L1_RECORDS: readonly TSchema[] = [EthereumL1Doc, BitcoinL1Record];

const union = (records: readonly TSchema[]) => (records.length === 1 ? records[0]! : Type.Union([...records]));

export const blockchainPaths: PathDef[] = [
  {
    id: 'blockchain.transaction-statistics',
    payload: daily7(union(L1_TX_RECORDS)),
    area: 'blockchain',
    template: '/data/blockchain/<l1_chain>/transaction-statistics',
    shape: 'daily-7',
    summary: 'Transaction statistics of a layer 1 chain, past 7 days',
    entity: l1,
  },
  {
    id: 'blockchain.network-statistics',
    payload: daily7(union(L1_NETWORK_RECORDS)),
    area: 'blockchain',
    template: '/data/blockchain/<l1_chain>/network-statistics',
    shape: 'daily-7',
    summary: 'Network statistics of a layer 1 chain, past 7 days',
    entity: l1,
  },
  {
    id: 'blockchain.l1',
    payload: daily7(union(L1_RECORDS)),
    area: 'blockchain',
    template: '/data/blockchain/<l1_chain>',
    shape: 'daily-7',
    summary: 'Analytics of a layer 1 chain, past 7 days',
    entity: l1,
  },
  {
    id: 'blockchain.l2',
    payload: daily7(L2Doc),
    area: 'blockchain',
    template: '/data/blockchain/<l2_chain>',
    shape: 'daily-7',
    summary: 'Analytics of a layer 2 chain, past 7 days',
    entity: l2,
  },
];
