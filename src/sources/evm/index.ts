export { BlockReader, LruCache } from './blocks.js';
export type {
  ApplyContext,
  BlockRange,
  EvmCheckpoint,
  IngestOptions,
  IngestResult,
  IngestSink,
  LogQuery,
} from './ingest.js';
export { ingest } from './ingest.js';
export { AdaptiveWindow, MAX_ADDRESSES_PER_CALL, mergeLogs } from './logs.js';
export type { MulticallArgs, MulticallMode } from './multicall.js';
export type { RpcCall, RpcClientOptions, RpcOutcome, RpcStats } from './rpc.js';
export { isLogRangeMessage, isTransientRpcError, RpcClient, RpcError, RpcUnavailableError } from './rpc.js';
export type { EvmSourceOptions, EvmSourceStats } from './source.js';
export { createEvmSource, EvmSource } from './source.js';
export type {
  BlockInfo,
  EvmChainConfig,
  EvmLog,
  EvmLogger,
  Hex,
  LogFilter,
  LogTopics,
  ResolvedChainConfig,
  SleepFn,
} from './types.js';
export { CHAIN_DEFAULTS, resolveChainConfig } from './types.js';
