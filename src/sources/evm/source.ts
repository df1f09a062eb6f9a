import { createPublicClient, custom, type MulticallReturnType, type PublicClient } from 'viem';
import { ServiceError } from '../../core/errors.js';
import type { SleepFn } from '../../core/retry.js';
import { BlockReader } from './blocks.js';
import { type FinalBlock, FinalityResolver } from './finality.js';
import { FullBlockReader } from './full-blocks.js';
import { AdaptiveWindow, LogFetcher, type LogFetchStats } from './logs.js';
import { type MulticallArgs, type MulticallMode, MulticallReader } from './multicall.js';
import { RpcClient, type RpcStats } from './rpc.js';
import {
  type BlockInfo,
  type EvmChainConfig,
  type EvmLog,
  type EvmLogger,
  type LogFilter,
  type ResolvedChainConfig,
  resolveChainConfig,
} from './types.js';

export interface EvmSourceOptions {
  readonly log?: EvmLogger;
  /** Waits between retries (tests inject a recorder). */
  readonly sleep?: SleepFn;
  /** Jitter source, [0, 1). */
  readonly random?: () => number;
  readonly fetch?: typeof fetch;
  /** Calls per JSON-RPC batch (default 100). */
  readonly maxBatchSize?: number;
  /** Addresses per `eth_getLogs` (default 1000). */
  readonly maxAddressesPerCall?: number;
  /** Cached block headers (default 10,000) and transaction senders (default 100,000). */
  readonly blockCacheSize?: number;
  readonly senderCacheSize?: number;
  /** How multicall reads state (default `deployless`, which falls back to `eth_call` by itself when refused). */
  readonly multicall?: MulticallMode;
}

export interface EvmSourceStats {
  readonly rpc: RpcStats;
  readonly logs: LogFetchStats;
}

/**
 * One chain's access point: JSON-RPC with retries and a concurrency limit, adaptive log fetching, cached blocks
 * and senders, multicall state reads, and a viem client over the same transport for anything else.
 */
export class EvmSource {
  readonly chain: ResolvedChainConfig;
  readonly rpc: RpcClient;
  /** viem over the engine's transport (retries and limits included); viem's own retries are off. */
  readonly client: PublicClient;
  readonly log: EvmLogger | undefined;
  /** Whole blocks, receipts, fee history, block tags and the transaction pool (chain statistics). */
  readonly full: FullBlockReader;
  private readonly logs: LogFetcher;
  private readonly blocks: BlockReader;
  private readonly reader: MulticallReader;
  private readonly finality: FinalityResolver;
  private readonly windows = new Map<string, AdaptiveWindow>();

  constructor(config: EvmChainConfig, options: EvmSourceOptions = {}) {
    this.chain = resolveChainConfig(config);
    this.log = options.log;
    this.rpc = new RpcClient({
      url: this.chain.rpcUrl,
      chain: this.chain.id,
      timeoutMs: this.chain.timeoutMs,
      maxRetries: this.chain.maxRetries,
      maxConcurrency: this.chain.maxConcurrency,
      ...(options.maxBatchSize === undefined ? {} : { maxBatchSize: options.maxBatchSize }),
      ...(options.log ? { log: options.log } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const rpc = this.rpc;
    this.client = createPublicClient({
      transport: custom(
        { request: ({ method, params }) => rpc.call(method, (params ?? []) as unknown[]) },
        { retryCount: 0 },
      ),
    });
    this.logs = new LogFetcher(this.rpc, {
      chain: this.chain.id,
      ...(options.maxAddressesPerCall === undefined ? {} : { maxAddressesPerCall: options.maxAddressesPerCall }),
      ...(options.log ? { log: options.log } : {}),
    });
    this.blocks = new BlockReader(this.rpc, {
      ...(options.blockCacheSize === undefined ? {} : { blockCacheSize: options.blockCacheSize }),
      ...(options.senderCacheSize === undefined ? {} : { senderCacheSize: options.senderCacheSize }),
    });
    this.full = new FullBlockReader(this.rpc, this.chain.id);
    this.finality = new FinalityResolver(this.chain, this.full, options.log);
    this.reader = new MulticallReader(this.client, this.rpc, {
      chain: this.chain.id,
      ...(options.multicall ? { mode: options.multicall } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
  }

  get stats(): EvmSourceStats {
    return { rpc: this.rpc.stats, logs: this.logs.stats };
  }

  /**
   * The adaptive `eth_getLogs` span of one consumer (an ingest sink's key): consumers with dense and sparse logs
   * learn their own span. Lives as long as the source.
   */
  window(key: string): AdaptiveWindow {
    let w = this.windows.get(key);
    if (!w) {
      w = new AdaptiveWindow(this.chain.maxBlockRange);
      this.windows.set(key, w);
    }
    return w;
  }

  async blockNumber(): Promise<number> {
    const hex = await this.rpc.call<string>('eth_blockNumber');
    if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]+$/.test(hex)) {
      throw new ServiceError(`${this.chain.id}: malformed eth_blockNumber ${String(hex)}`, true);
    }
    return Number.parseInt(hex, 16);
  }

  /**
   * The chain's final block given the head `latest`, by its finality model (`finality.ts`): the node's `finalized`
   * tag or a depth. The tag is asked once per new head (`FinalityResolver`), however many runs ask with that head.
   */
  finalBlock(latest: number): Promise<FinalBlock> {
    return this.finality.finalBlock(latest);
  }

  /** Logs of the filter, sorted by (blockNumber, logIndex), de-duplicated; pending and removed logs dropped. */
  getLogs(filter: LogFilter, options: { window?: AdaptiveWindow } = {}): Promise<EvmLog[]> {
    return this.logs.getLogs(filter, options.window ?? this.window('default'));
  }

  getBlocks(numbers: readonly number[], options: { fresh?: boolean } = {}): Promise<Map<number, BlockInfo>> {
    return this.blocks.getBlocks(numbers, options);
  }

  /** One block, or null when the node does not have it. */
  async getBlock(number: number, options: { fresh?: boolean } = {}): Promise<BlockInfo | null> {
    return (await this.blocks.getBlocks([number], options)).get(number) ?? null;
  }

  /** Forgets cached headers from `number` up. */
  forgetBlocksFrom(number: number): void {
    this.blocks.forgetFrom(number);
  }

  /** Transaction hash → sender, both lowercase. */
  txSenders(hashes: readonly string[]): Promise<Map<string, string>> {
    return this.blocks.txSenders(hashes);
  }

  /** viem multicall at a block (`blockNumber`), failures per call by default (`allowFailure`). */
  multicall<const contracts extends readonly unknown[], allowFailure extends boolean = true>(
    args: MulticallArgs<contracts, allowFailure>,
  ): Promise<MulticallReturnType<contracts, allowFailure>> {
    return this.reader.multicall(args);
  }

  get multicallMode(): MulticallMode {
    return this.reader.currentMode;
  }
}

export function createEvmSource(config: EvmChainConfig, options: EvmSourceOptions = {}): EvmSource {
  return new EvmSource(config, options);
}

/** One contract call of `readCallsAt`. */
export interface StateCall {
  readonly address: `0x${string}`;
  readonly abi: readonly unknown[];
  readonly functionName: string;
  readonly args?: readonly unknown[];
}

/** Calls per multicall request: large enough to be few, small enough for any node's gas cap on eth_call. */
export const STATE_CALL_BATCH = 400;

/**
 * The results of state calls at a block, in order, through multicall in batches of `STATE_CALL_BATCH`: a reverted
 * call is undefined (the caller decides whether that is a gap or an error); a transport failure throws (retryable).
 */
export async function readCallsAt(
  source: Pick<EvmSource, 'multicall'>,
  calls: readonly StateCall[],
  block: number,
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < calls.length; i += STATE_CALL_BATCH) {
    const results = (await source.multicall({
      contracts: calls.slice(i, i + STATE_CALL_BATCH) as never,
      allowFailure: true,
      blockNumber: BigInt(block),
    })) as readonly { status: 'success' | 'failure'; result?: unknown }[];
    for (const r of results) out.push(r.status === 'success' ? r.result : undefined);
  }
  return out;
}
