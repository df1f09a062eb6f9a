import type { FullBlockReader } from './full-blocks.js';
import type { EvmLogger, ResolvedChainConfig } from './types.js';

/**
 * Which blocks of a chain are final, per the chain's finality model (`EvmChainConfig.finality`):
 *
 * - `depth`: every block `finalityDepth` or more below the head.
 * - `tag`: the node's own `eth_getBlockByNumber("finalized")`. On Ethereum that is the beacon chain's finalized
 *   checkpoint; op-node derives it from finalised L1 blocks; Nitro from the L1-finalised batches and assertions.
 *   Where the node does not know the tag (a JSON-RPC refusal such as -32602 or -32000, or `null`: no finalized
 *   block yet), or answers a block above the head it was asked with, the depth is the fallback; the first time
 *   per reason is logged as a warning, later ones at debug.
 */

export interface FinalBlock {
  /** The highest final block: it and every block below can no longer reorg. May be negative (nothing final). */
  readonly number: number;
  /** Where the number comes from: the node's tag, the depth model, or the depth as the tag's fallback. */
  readonly by: 'tag' | 'depth' | 'fallback';
  /** Why the tag was not used (`by: 'fallback'`). */
  readonly reason?: string;
}

export class FinalityResolver {
  private readonly warned = new Set<string>();
  /**
   * The last resolution, by the head it was asked with: the areas' ingest runs of one chain (one per sink, every few
   * seconds) ask with the same head until a block comes, and one call answers them all. An answer kept while the
   * node's finalized block moved on is lower than the node's, so it only treats fewer blocks as final.
   */
  private last: { readonly latest: number; readonly answer: Promise<FinalBlock> } | undefined;

  constructor(
    private readonly chain: ResolvedChainConfig,
    private readonly full: Pick<FullBlockReader, 'taggedBlock'>,
    private readonly log: EvmLogger | undefined,
  ) {}

  /**
   * The final block given the head `latest`: one `eth_getBlockByNumber("finalized")` call (through the source's
   * retry policy) per new head for the tag model, none for the depth model. A transient failure that outlasts the retries
   * throws, as any other call of the run would.
   */
  finalBlock(latest: number): Promise<FinalBlock> {
    if (this.chain.finality === 'depth')
      return Promise.resolve({ number: latest - this.chain.finalityDepth, by: 'depth' });
    if (this.last?.latest !== latest) {
      const answer = this.resolve(latest);
      this.last = { latest, answer };
      // A failed resolution is not kept: the next run asks again.
      answer.catch(() => {
        if (this.last?.answer === answer) this.last = undefined;
      });
    }
    return this.last.answer;
  }

  private async resolve(latest: number): Promise<FinalBlock> {
    const byDepth = latest - this.chain.finalityDepth;
    const tagged = await this.full.taggedBlock('finalized');
    let reason: string | undefined;
    let kind: string | undefined;
    if ('notAvailable' in tagged) {
      reason = tagged.notAvailable;
      kind = 'unavailable';
    } else if (tagged.number > latest) {
      reason = `${this.chain.id}: finalized block ${tagged.number} is above the head ${latest} (a lagging node behind a load balancer?)`;
      kind = 'ahead';
    } else {
      return { number: tagged.number, by: 'tag' };
    }
    const fields = { chain: this.chain.id, latest, finalityDepth: this.chain.finalityDepth, reason };
    const message = 'finalized tag not usable: final block by the fallback depth';
    if (this.warned.has(kind)) this.log?.debug(fields, message);
    else {
      this.warned.add(kind);
      this.log?.warn(fields, message);
    }
    return { number: byDepth, by: 'fallback', reason };
  }
}
