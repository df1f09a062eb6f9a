/**
 * The blockchain area's public face: its computation's name, the native asset price loader (ETH, BTC) and the
 * record schemas of its EVM chains; nothing else of the area is imported from outside it.
 */
export { BLOCKCHAIN_COMPUTATION } from './jobs.js';
export { loadNativeUsdByDay, type NativeAsset, type NativeUsd, nativeUsdAt } from './prices.js';
export { EVM_METHODOLOGY } from './schema.js';
export type { BlockchainTables } from './tables.js';
