import { ServiceError } from '../../core/errors.js';
import { isLogRangeMessage, type RpcClient, RpcError } from './rpc.js';
import { type EvmLog, type EvmLogger, type Hex, type LogFilter, type LogTopics, toHexQuantity } from './types.js';

/** Providers cap the address list of one `eth_getLogs` (e.g. 1000 on several hosted nodes). */
export const MAX_ADDRESSES_PER_CALL = 1000;

/**
 * The block span of `eth_getLogs` calls, adapted to what the provider accepts: halved when a call is refused for
 * its size, grown by a quarter after each success at full size (so a dense stretch of chain does not keep ranges
 * small forever). A refusal that names a block-range cap sets a ceiling instead, since such caps do not move.
 */
export class AdaptiveWindow {
  private current: number;
  private ceiling: number;

  constructor(private readonly max: number) {
    this.current = max;
    this.ceiling = max;
  }

  get size(): number {
    return this.current;
  }

  onSuccess(span: number): void {
    if (span < this.current) return;
    this.current = Math.min(this.ceiling, Math.max(this.current + 1, Math.floor(this.current * 1.25)));
  }

  /** A call over `span` blocks was refused with `message`. */
  onRefused(span: number, message: string): void {
    const hinted = hintedSpan(message);
    if (hinted !== undefined && hinted < span) {
      this.current = hinted;
      return;
    }
    const cap = blockRangeCap(message, span);
    if (cap !== undefined) {
      this.ceiling = cap;
      this.current = Math.min(this.current, cap);
      return;
    }
    this.current = Math.max(1, Math.min(this.current, Math.floor(span / 2)));
    if (/block range|range (is )?too|max(imum)? (block )?range|range limit/i.test(message)) {
      // A range cap whose number we could not read: stay at or below half of what failed.
      this.ceiling = Math.min(this.ceiling, this.current);
    }
  }
}

/** Alchemy-style hint: "… this block range should work: [0x10, 0x2f]". */
function hintedSpan(message: string): number | undefined {
  const m = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(message);
  if (!m) return undefined;
  const span = Number(BigInt(m[2]!) - BigInt(m[1]!)) + 1;
  return span >= 1 ? span : undefined;
}

/** "exceed maximum block range: 5000", "max range: 3500", "limited to a 10,000 range": the cap, if below `span`. */
function blockRangeCap(message: string, span: number): number | undefined {
  if (!/range/i.test(message) || /results|logs/i.test(message)) return undefined;
  const numbers = [...message.matchAll(/\d[\d,]*/g)].map((m) => Number(m[0].replace(/,/g, '')));
  const caps = numbers.filter((n) => n >= 1 && n < span);
  return caps.length > 0 ? Math.max(...caps) : undefined;
}

function isHex(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value);
}

function quantity(value: unknown, field: string): number {
  if (!isHex(value) || value.length < 3) throw new ServiceError(`malformed log: ${field} ${String(value)}`, true);
  return Number.parseInt(value, 16);
}

/** Validates one raw log of `eth_getLogs`; undefined for logs the engine ignores (pending or removed). */
export function normaliseLog(raw: unknown): EvmLog | undefined {
  if (typeof raw !== 'object' || raw === null) throw new ServiceError('malformed log: not an object', true);
  const r = raw as Record<string, unknown>;
  if (r.removed === true || r.blockNumber === null || r.blockHash === null) return undefined;
  if (!isHex(r.address) || !isHex(r.data) || !isHex(r.blockHash) || !isHex(r.transactionHash)) {
    throw new ServiceError('malformed log: address, data or hashes', true);
  }
  if (!Array.isArray(r.topics) || !r.topics.every(isHex)) throw new ServiceError('malformed log: topics', true);
  return {
    address: r.address.toLowerCase() as Hex,
    topics: (r.topics as Hex[]).map((t) => t.toLowerCase() as Hex),
    data: r.data.toLowerCase() as Hex,
    blockNumber: quantity(r.blockNumber, 'blockNumber'),
    blockHash: r.blockHash.toLowerCase() as Hex,
    logIndex: quantity(r.logIndex, 'logIndex'),
    transactionHash: r.transactionHash.toLowerCase() as Hex,
    transactionIndex: quantity(r.transactionIndex, 'transactionIndex'),
  };
}

/** Sorted by (blockNumber, logIndex), one log per position. */
export function mergeLogs(lists: readonly (readonly EvmLog[])[]): EvmLog[] {
  const byPosition = new Map<string, EvmLog>();
  for (const list of lists) {
    for (const log of list) {
      const key = `${log.blockNumber}:${log.logIndex}`;
      if (!byPosition.has(key)) byPosition.set(key, log);
    }
  }
  return [...byPosition.values()].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}

export interface LogFetchStats {
  /** `eth_getLogs` calls that returned logs. */
  calls: number;
  /** Calls refused for their size, each followed by a smaller range. */
  splits: number;
  logs: number;
}

export interface LogFetcherOptions {
  readonly chain: string;
  readonly maxAddressesPerCall?: number;
  readonly log?: EvmLogger;
}

/** `eth_getLogs` over any block range and address list: chunked, split on refusal, merged, sorted, de-duplicated. */
export class LogFetcher {
  readonly stats: LogFetchStats = { calls: 0, splits: 0, logs: 0 };
  private readonly maxAddresses: number;

  constructor(
    private readonly rpc: RpcClient,
    private readonly options: LogFetcherOptions,
  ) {
    this.maxAddresses = options.maxAddressesPerCall ?? MAX_ADDRESSES_PER_CALL;
  }

  async getLogs(filter: LogFilter, window: AdaptiveWindow): Promise<EvmLog[]> {
    if (filter.toBlock < filter.fromBlock) return [];
    const addresses = [...new Set(filter.addresses.map((a) => a.toLowerCase() as Hex))].sort();
    if (addresses.length === 0) return [];
    const chunks: Hex[][] = [];
    for (let i = 0; i < addresses.length; i += this.maxAddresses)
      chunks.push(addresses.slice(i, i + this.maxAddresses));
    // Chunks run in parallel: the RPC client's concurrency limit bounds what reaches the provider.
    const lists = await Promise.all(
      chunks.map((chunk) => this.fetchSpan(chunk, filter.topics, filter.fromBlock, filter.toBlock, window)),
    );
    return mergeLogs(lists);
  }

  private async fetchSpan(
    addresses: readonly Hex[],
    topics: LogTopics,
    fromBlock: number,
    toBlock: number,
    window: AdaptiveWindow,
  ): Promise<EvmLog[]> {
    const out: EvmLog[] = [];
    let start = fromBlock;
    while (start <= toBlock) {
      const span = Math.min(window.size, toBlock - start + 1);
      const end = start + span - 1;
      let raw: unknown;
      try {
        raw = await this.rpc.call('eth_getLogs', [
          {
            address: addresses.length === 1 ? addresses[0] : addresses,
            topics,
            fromBlock: toHexQuantity(start),
            toBlock: toHexQuantity(end),
          },
        ]);
      } catch (err) {
        if (!(err instanceof RpcError) || err.retryable) throw err;
        if (span > 1) {
          // Any refusal over several blocks may be about size (providers word it in many ways): split and retry.
          window.onRefused(span, err.rpcMessage);
          this.stats.splits++;
          this.options.log?.debug(
            {
              chain: this.options.chain,
              fromBlock: start,
              toBlock: end,
              nextSpan: window.size,
              sizeError: isLogRangeMessage(err.rpcMessage),
              reason: err.rpcMessage,
            },
            'eth_getLogs refused: splitting the range',
          );
          continue;
        }
        if (addresses.length > 1) {
          // One block still too big: halve the address list instead.
          this.stats.splits++;
          const half = Math.ceil(addresses.length / 2);
          const parts = await Promise.all([
            this.fetchSpan(addresses.slice(0, half), topics, start, start, window),
            this.fetchSpan(addresses.slice(half), topics, start, start, window),
          ]);
          out.push(...parts.flat());
          start = end + 1;
          continue;
        }
        throw new ServiceError(
          `${this.options.chain}: eth_getLogs refused for block ${start}: ${err.rpcMessage}`,
          false,
          {
            cause: err,
          },
        );
      }
      if (!Array.isArray(raw)) throw new ServiceError(`${this.options.chain}: eth_getLogs returned no array`, true);
      for (const item of raw) {
        const log = normaliseLog(item);
        if (!log) continue;
        if (log.blockNumber < start || log.blockNumber > end) {
          throw new ServiceError(
            `${this.options.chain}: eth_getLogs [${start}, ${end}] returned a log of block ${log.blockNumber}`,
            true,
          );
        }
        out.push(log);
      }
      this.stats.calls++;
      this.stats.logs += raw.length;
      window.onSuccess(span);
      start = end + 1;
    }
    return out;
  }
}
