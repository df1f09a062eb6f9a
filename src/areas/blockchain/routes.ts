import { oneOf } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';

const layer = (name: 'l1_chain' | 'l2_chain', what: string) => (p: PathParams, r: Registry) =>
  oneOf(
    what,
    p[name]!,
    r.chainsByLayer(name === 'l1_chain' ? 'l1' : 'l2').map((c) => c.id),
  );

const l1 = layer('l1_chain', 'layer 1 chain');
const l2 = layer('l2_chain', 'layer 2 chain');

export const blockchainPaths: PathDef[] = [
  {
    id: 'blockchain.transaction-statistics',
    area: 'blockchain',
    template: '/data/blockchain/<l1_chain>/transaction-statistics',
    shape: 'daily-7',
    summary: 'Transaction statistics of a layer 1 chain, past 7 days',
    entity: l1,
  },
  {
    id: 'blockchain.network-statistics',
    area: 'blockchain',
    template: '/data/blockchain/<l1_chain>/network-statistics',
    shape: 'daily-7',
    summary: 'Network statistics of a layer 1 chain, past 7 days',
    entity: l1,
  },
  {
    id: 'blockchain.l1',
    area: 'blockchain',
    template: '/data/blockchain/<l1_chain>',
    shape: 'daily-7',
    summary: 'Analytics of a layer 1 chain, past 7 days',
    entity: l1,
  },
  {
    id: 'blockchain.l2',
    area: 'blockchain',
    template: '/data/blockchain/<l2_chain>',
    shape: 'daily-7',
    summary: 'Analytics of a layer 2 chain, past 7 days',
    entity: l2,
  },
];
