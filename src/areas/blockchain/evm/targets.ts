import type { AreaEnv } from '../../kit/module.js';
import type { EvmChainKind } from './facts.js';

/**
 * What the blockchain area reads of EVM chains: the registry's EVM chains of layer 1 or 2 that this process has an
 * `evm` source for (Ethereum, and the OP and Nitro layer 2s once their RPC URLs are configured or the sandbox runs
 * them), each with its counting convention; the beacon API for Ethereum when one is configured. One code path for
 * production and the sandbox.
 */
export interface EvmChainTarget {
  readonly chain: string;
  readonly layer: 'l1' | 'l2';
  readonly kind: EvmChainKind;
  readonly finalityDepth: number;
  readonly blockTimeSeconds: number;
  /** Whether the beacon API is read for this chain's validators and finality. */
  readonly beacon: boolean;
}

/** The rollup stack of each layer 2 the area knows how to count (docs/methodology/blockchain-evm.md). */
export const L2_STACKS: Readonly<Record<string, 'op' | 'nitro'>> = { optimism: 'op', arbitrum: 'nitro' };

export function blockchainTargets(env: Pick<AreaEnv, 'registry' | 'sources'>): EvmChainTarget[] {
  const evm = env.sources.get('evm');
  const beacon = env.sources.get('beacon');
  const out: EvmChainTarget[] = [];
  for (const layer of ['l1', 'l2'] as const) {
    for (const c of env.registry.chainsByLayer(layer)) {
      if (c.family !== 'evm' || !evm?.has(c.id)) continue;
      const kind: EvmChainKind | undefined = layer === 'l1' ? 'l1' : L2_STACKS[c.id];
      if (!kind) continue;
      out.push({
        chain: c.id,
        layer,
        kind,
        finalityDepth: c.finalityDepth,
        blockTimeSeconds: c.blockTimeSeconds,
        beacon: beacon?.chain === c.id,
      });
    }
  }
  return out;
}
