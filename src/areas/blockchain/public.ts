/**
 * The blockchain area's public face: its computation's name, the native asset price loader (ETH, BTC) and the
 * record schemas of its EVM chains; nothing else of the area is imported from outside it.
 */
export { BLOCKCHAIN_COMPUTATION } from './evm/jobs.js';
export { EVM_METHODOLOGY } from './evm/schema.js';
export type { BlockchainTables } from './evm/tables.js';
export { loadNativeUsdByDay, type NativeAsset, type NativeUsd, nativeUsdAt } from './prices.js';
