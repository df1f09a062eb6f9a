export { BlockReader, LruCache } from './blocks.js';
export { blockAtOrBefore, EvmChains, type EvmEndpoint } from './chains.js';
export { type FinalBlock, FinalityResolver } from './finality.js';
export type { FeeHistory, FullBlock, FullReceipt, NotAvailable, TxpoolStatus } from './full-blocks.js';
export { FullBlockReader, isMethodMissing, isNotAvailable } from './full-blocks.js';
export { AdaptiveWindow, MAX_ADDRESSES_PER_CALL, mergeLogs } from './logs.js';
export type { MulticallArgs, MulticallMode } from './multicall.js';
export type { RpcCall, RpcClientOptions, RpcOutcome, RpcStats } from './rpc.js';
export { isLogRangeMessage, isTransientRpcError, RpcClient, RpcError, RpcUnavailableError } from './rpc.js';
export type { EvmSourceOptions, EvmSourceStats, StateCall } from './source.js';
export { createEvmSource, EvmSource, readCallsAt, STATE_CALL_BATCH } from './source.js';
export type {
  BlockInfo,
  EvmChainConfig,
  EvmLog,
  EvmLogger,
  Hex,
  LogFilter,
  LogTopics,
  ResolvedChainConfig,
} from './types.js';
export { CHAIN_DEFAULTS, resolveChainConfig } from './types.js';
