/** Shared shapes of the EVM engine: chain config, normalised logs and blocks, a pino-compatible logger. */

export type Hex = `0x${string}`;

/** One chain's RPC endpoint and the engine's limits for it. */
export interface EvmChainConfig {
  /** Chain id of the service, e.g. `ethereum` (not the numeric chain id). */
  readonly id: string;
  readonly rpcUrl: string;
  /**
   * Blocks deeper than this below the head are treated as final; reorgs above it are rolled back. With
   * `finality: 'tag'` only the fallback for a node that does not know the `finalized` tag.
   */
  readonly finalityDepth: number;
  /** Which blocks are final: `depth` (default) or the node's `finalized` block (`tag`); see `finality.ts`. */
  readonly finality?: 'depth' | 'tag';
  /** Largest block span of one `eth_getLogs` call and of one committed ingest range (default 2000). */
  readonly maxBlockRange?: number;
  /** HTTP requests in flight at once to this endpoint (default 4). */
  readonly maxConcurrency?: number;
  /** Per HTTP request (default 20000). */
  readonly timeoutMs?: number;
  /** Retries of a transient failure before giving up (default 6). */
  readonly maxRetries?: number;
}

export type ResolvedChainConfig = Required<EvmChainConfig>;

export const CHAIN_DEFAULTS = {
  maxBlockRange: 2000,
  maxConcurrency: 4,
  timeoutMs: 20_000,
  maxRetries: 6,
} as const;

export function resolveChainConfig(config: EvmChainConfig): ResolvedChainConfig {
  const resolved: ResolvedChainConfig = {
    id: config.id,
    rpcUrl: config.rpcUrl,
    finalityDepth: config.finalityDepth,
    finality: config.finality ?? 'depth',
    maxBlockRange: config.maxBlockRange ?? CHAIN_DEFAULTS.maxBlockRange,
    maxConcurrency: config.maxConcurrency ?? CHAIN_DEFAULTS.maxConcurrency,
    timeoutMs: config.timeoutMs ?? CHAIN_DEFAULTS.timeoutMs,
    maxRetries: config.maxRetries ?? CHAIN_DEFAULTS.maxRetries,
  };
  const positive = ['maxBlockRange', 'maxConcurrency', 'timeoutMs'] as const;
  for (const key of positive) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1) throw new Error(`${config.id}: ${key} must be ≥ 1`);
  }
  if (!Number.isInteger(resolved.maxRetries) || resolved.maxRetries < 0) {
    throw new Error(`${config.id}: maxRetries must be ≥ 0`);
  }
  if (!Number.isInteger(resolved.finalityDepth) || resolved.finalityDepth < 0) {
    throw new Error(`${config.id}: finalityDepth must be ≥ 0`);
  }
  if (resolved.finality !== 'depth' && resolved.finality !== 'tag') {
    throw new Error(`${config.id}: finality must be depth or tag, not ${JSON.stringify(resolved.finality)}`);
  }
  return Object.freeze(resolved);
}

/** A log as the engine hands it to sinks: numbers for positions (all far below 2^53), lowercase hex. */
export interface EvmLog {
  readonly address: Hex;
  readonly topics: readonly Hex[];
  readonly data: Hex;
  readonly blockNumber: number;
  readonly blockHash: Hex;
  readonly logIndex: number;
  readonly transactionHash: Hex;
  readonly transactionIndex: number;
}

export interface BlockInfo {
  readonly number: number;
  readonly hash: Hex;
  readonly parentHash: Hex;
  /** Unix seconds. */
  readonly timestamp: number;
}

/** Topic filter of `eth_getLogs`: per position one topic, any of several, or null for any. */
export type LogTopics = readonly (Hex | readonly Hex[] | null)[];

export interface LogFilter {
  /** Contracts to read logs of; an empty list matches nothing (the engine never asks for logs of every contract). */
  readonly addresses: readonly Hex[];
  readonly topics: LogTopics;
  readonly fromBlock: number;
  readonly toBlock: number;
}

type LogFn = (obj: Record<string, unknown>, msg: string) => void;

/** The subset of a pino logger the engine uses. */
export interface EvmLogger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}

export function toHexQuantity(n: number | bigint): Hex {
  return `0x${n.toString(16)}`;
}
