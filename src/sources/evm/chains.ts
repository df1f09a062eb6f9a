import { createEvmSource, type EvmSource, type EvmSourceOptions } from './source.js';

/** One EVM chain this process reads: its registry id, RPC endpoint and the engine's limits for it. */
export interface EvmEndpoint {
  /** Registry chain id, e.g. `ethereum`. */
  readonly id: string;
  readonly rpcUrl: string;
  /** Blocks below the head after which a block is treated as final (with `finality: 'tag'`, the fallback). */
  readonly finalityDepth: number;
  /** `tag`: the node's `finalized` block is final (registry `finality`); default `depth`. */
  readonly finality?: 'depth' | 'tag';
  /** Largest `eth_getLogs` block range to start with (the engine adapts it). */
  readonly maxBlockRange?: number;
  /** Per-request timeout in milliseconds (engine default 20 s). */
  readonly timeoutMs?: number;
  /** Requests in flight at once to this endpoint (engine default 4), for every area together. */
  readonly maxConcurrency?: number;
  /** Retries of a transient failure before a call gives up (engine default 6). */
  readonly maxRetries?: number;
}

/**
 * The EVM sources of this process, one per chain, made once at start and shared by every area: one concurrency
 * limit, one block-header and sender cache and one set of adaptive log windows per endpoint, whichever area asks.
 */
export class EvmChains {
  private readonly sources = new Map<string, EvmSource>();

  constructor(
    readonly endpoints: readonly EvmEndpoint[],
    options: EvmSourceOptions = {},
  ) {
    for (const e of endpoints) {
      this.sources.set(
        e.id,
        createEvmSource(
          {
            id: e.id,
            rpcUrl: e.rpcUrl,
            finalityDepth: e.finalityDepth,
            ...(e.finality ? { finality: e.finality } : {}),
            ...(e.maxBlockRange ? { maxBlockRange: e.maxBlockRange } : {}),
            ...(e.timeoutMs ? { timeoutMs: e.timeoutMs } : {}),
            ...(e.maxConcurrency ? { maxConcurrency: e.maxConcurrency } : {}),
            ...(e.maxRetries !== undefined ? { maxRetries: e.maxRetries } : {}),
          },
          options,
        ),
      );
    }
  }

  /** Registry ids of the chains with an endpoint. */
  get ids(): string[] {
    return this.endpoints.map((e) => e.id);
  }

  has(chain: string): boolean {
    return this.sources.has(chain);
  }

  /** The chain's source; throws for a chain without an endpoint (callers filter by `has` first). */
  source(chain: string): EvmSource {
    const source = this.sources.get(chain);
    if (!source) throw new Error(`no RPC endpoint for chain ${chain}`);
    return source;
  }

  endpoint(chain: string): EvmEndpoint {
    const endpoint = this.endpoints.find((e) => e.id === chain);
    if (!endpoint) throw new Error(`no RPC endpoint for chain ${chain}`);
    return endpoint;
  }
}

/**
 * The last block whose timestamp is ≤ `t`, by bisection over [lo, hi] (default: genesis to the head); undefined
 * when block `lo` is already later than `t`. Headers are cached by the source, so repeated searches are cheap.
 */
export async function blockAtOrBefore(source: EvmSource, t: number, lo = 0, hi?: number): Promise<number | undefined> {
  let high = hi ?? (await source.blockNumber());
  let low = lo;
  const at = async (n: number) => {
    const block = await source.getBlock(n);
    if (!block) throw new Error(`${source.chain.id}: block ${n} is not on the node`);
    return block.timestamp;
  };
  if ((await at(low)) > t) return undefined;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if ((await at(mid)) <= t) low = mid;
    else high = mid - 1;
  }
  return low;
}
