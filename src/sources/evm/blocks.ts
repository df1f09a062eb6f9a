import { ServiceError } from '../../core/errors.js';
import type { RpcClient } from './rpc.js';
import { type BlockInfo, type Hex, toHexQuantity } from './types.js';

/** A bounded map that forgets the least recently used entry first. */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      // Re-inserting moves the key to the end of the Map's insertion order: the most recently used.
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) {
      const oldest = this.map.keys().next().value as K;
      this.map.delete(oldest);
    }
  }

  deleteWhere(predicate: (key: K) => boolean): void {
    for (const key of [...this.map.keys()]) if (predicate(key)) this.map.delete(key);
  }
}

function isHash(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
}

function isQuantity(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value);
}

export function parseBlock(raw: unknown, expected: number): BlockInfo {
  const r = (raw ?? {}) as Record<string, unknown>;
  if (!isQuantity(r.number) || !isHash(r.hash) || !isHash(r.parentHash) || !isQuantity(r.timestamp)) {
    throw new ServiceError(`malformed block ${expected}`, true);
  }
  const number = Number.parseInt(r.number, 16);
  if (number !== expected) throw new ServiceError(`asked block ${expected}, got ${number}`, true);
  return {
    number,
    hash: r.hash.toLowerCase() as Hex,
    parentHash: r.parentHash.toLowerCase() as Hex,
    timestamp: Number.parseInt(r.timestamp, 16),
  };
}

/**
 * Block headers and transaction senders, batched and cached. Blocks are cached by number, so a reorg makes
 * entries stale: the ingest engine checks hashes against logs and evicts (`forgetFrom`) when they disagree.
 * Senders are cached by transaction hash, which commits to the signature and so to the sender: never stale.
 */
export class BlockReader {
  private readonly blocks: LruCache<number, BlockInfo>;
  private readonly senders: LruCache<string, string>;

  constructor(
    private readonly rpc: RpcClient,
    options: { blockCacheSize?: number; senderCacheSize?: number } = {},
  ) {
    this.blocks = new LruCache(options.blockCacheSize ?? 10_000);
    this.senders = new LruCache(options.senderCacheSize ?? 100_000);
  }

  /**
   * Headers of the given blocks; blocks the node does not have (beyond its head) are absent from the map.
   * `fresh` skips the cache (reorg checks).
   */
  async getBlocks(numbers: readonly number[], options: { fresh?: boolean } = {}): Promise<Map<number, BlockInfo>> {
    const out = new Map<number, BlockInfo>();
    const missing: number[] = [];
    for (const n of new Set(numbers)) {
      const cached = options.fresh ? undefined : this.blocks.get(n);
      if (cached) out.set(n, cached);
      else missing.push(n);
    }
    const outcomes = await this.rpc.batch(
      missing.map((n) => ({ method: 'eth_getBlockByNumber', params: [toHexQuantity(n), false] })),
    );
    outcomes.forEach((outcome, k) => {
      const n = missing[k]!;
      if (!outcome.ok) throw outcome.error;
      if (outcome.result === null) return;
      const block = parseBlock(outcome.result, n);
      this.blocks.set(n, block);
      out.set(n, block);
    });
    return out;
  }

  /** Forgets cached blocks from `number` up (after a reorg there). */
  forgetFrom(number: number): void {
    this.blocks.deleteWhere((n) => n >= number);
  }

  /** Transaction hash (lowercase) → sender (`from`, lowercase). Throws when a transaction is unknown to the node. */
  async txSenders(hashes: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const missing: string[] = [];
    for (const h of new Set(hashes.map((x) => x.toLowerCase()))) {
      const cached = this.senders.get(h);
      if (cached) out.set(h, cached);
      else missing.push(h);
    }
    const outcomes = await this.rpc.batch(missing.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })));
    outcomes.forEach((outcome, k) => {
      const h = missing[k]!;
      if (!outcome.ok) throw outcome.error;
      const from = (outcome.result as { from?: unknown } | null)?.from;
      // Unknown right after its log was seen: a lagging node behind a load balancer, or a reorg. Both pass.
      if (outcome.result === null) throw new ServiceError(`transaction ${h} not found`, true);
      if (typeof from !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(from)) {
        throw new ServiceError(`malformed transaction ${h}`, true);
      }
      const sender = from.toLowerCase();
      this.senders.set(h, sender);
      out.set(h, sender);
    });
    return out;
  }
}
