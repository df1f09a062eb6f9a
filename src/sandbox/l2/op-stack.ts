/**
 * The OP Stack side of the sandbox's Optimism chain: the predeploys' bytecode from `@eth-optimism/contracts-bedrock`
 * (MIT; forge artifacts, never recompiled), their addresses, and the L1-attributes deposit of every block.
 */
import { createRequire } from 'node:module';
import { type Address, encodePacked, type Hex, keccak256, parseAbi, toHex } from 'viem';
import type { L1Origin } from './l1.js';

const require = createRequire(import.meta.url);

export const OP_CHAIN_ID = 10;
export const L1_BLOCK: Address = '0x4200000000000000000000000000000000000015';
export const GAS_PRICE_ORACLE: Address = '0x420000000000000000000000000000000000000F';
export const SEQUENCER_FEE_VAULT: Address = '0x4200000000000000000000000000000000000011';
export const BASE_FEE_VAULT: Address = '0x4200000000000000000000000000000000000019';
export const L1_FEE_VAULT: Address = '0x420000000000000000000000000000000000001A';
/** The L1-attributes depositor (`L1Block.DEPOSITOR_ACCOUNT()`). */
export const DEPOSITOR: Address = '0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001';
/** OP mainnet's batch submitter, as the `batcherHash` the L1-attributes carry. */
export const BATCHER_HASH: Hex = '0x0000000000000000000000006887246668a3b87f54deb3b94ba47a6f63f32985';
/** OP mainnet's fee scalars since Ecotone (SystemConfig `basefeeScalar`, `blobbasefeeScalar`). */
export const BASE_FEE_SCALAR = 1368;
export const BLOB_BASE_FEE_SCALAR = 810_949;
/** Gas limit of the L1-attributes deposit (op-node's `RegolithSystemTxGas`). */
export const L1_INFO_GAS = 1_000_000n;
/** An L1 address as it appears on L2 when a contract on L1 deposits (`AddressAliasHelper`). */
export const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;

export const gasPriceOracleAbi = parseAbi([
  'function getL1Fee(bytes data) view returns (uint256)',
  'function getL1GasUsed(bytes data) view returns (uint256)',
  'function isFjord() view returns (bool)',
]);

export interface Predeploy {
  readonly name: string;
  readonly address: Address;
  readonly code: Hex;
}

const ARTIFACTS = '@eth-optimism/contracts-bedrock/forge-artifacts';

function deployedCode(name: string): Hex {
  const raw = require(`${ARTIFACTS}/${name}.sol/${name}.json`) as {
    deployedBytecode: { object: string; linkReferences?: Record<string, unknown> };
  };
  const code = raw.deployedBytecode.object;
  if (!code || code.length <= 2) throw new Error(`${name}: the artifact has no deployed bytecode`);
  if (raw.deployedBytecode.linkReferences && Object.keys(raw.deployedBytecode.linkReferences).length) {
    throw new Error(`${name}: the artifact needs library linking`);
  }
  return (code.startsWith('0x') ? code : `0x${code}`) as Hex;
}

/**
 * `L1Block` (1.4.1-beta.1) and `GasPriceOracle` (1.3.0, Fjord) set directly at their addresses (no proxies: the
 * implementation's code is what a call executes either way; mainnet has them behind `Proxy` predeploys).
 */
export function opPredeploys(): readonly Predeploy[] {
  return [
    { name: 'L1Block', address: L1_BLOCK, code: deployedCode('L1Block') },
    { name: 'GasPriceOracle', address: GAS_PRICE_ORACLE, code: deployedCode('GasPriceOracle') },
  ];
}

/**
 * GasPriceOracle's storage after the Ecotone and Fjord upgrades: slot 0 packs `isEcotone` (byte 0) and `isFjord`
 * (byte 1). On mainnet the depositor set them with `setEcotone()`/`setFjord()` in the upgrade blocks, next to that
 * block's L1-attributes deposit; anvil rejects a second deposit from one sender in a block, hence the storage write.
 */
export const GAS_PRICE_ORACLE_SLOT0: Hex = `0x${'0'.repeat(60)}0101`;

const SET_L1_BLOCK_VALUES_ECOTONE = keccak256(toHex('setL1BlockValuesEcotone()')).slice(0, 10) as Hex;

/** The Ecotone L1-attributes calldata (packed, 164 bytes, as op-node builds it). */
export function l1InfoCalldata(origin: L1Origin, sequenceNumber: bigint): Hex {
  return encodePacked(
    ['bytes4', 'uint32', 'uint32', 'uint64', 'uint64', 'uint64', 'uint256', 'uint256', 'bytes32', 'bytes32'],
    [
      SET_L1_BLOCK_VALUES_ECOTONE,
      BASE_FEE_SCALAR,
      BLOB_BASE_FEE_SCALAR,
      sequenceNumber,
      origin.timestamp,
      origin.number,
      origin.baseFee,
      origin.blobBaseFee,
      origin.hash,
      BATCHER_HASH,
    ],
  );
}

/**
 * Source hash of the L1-attributes deposit (deposit spec, domain 1):
 * keccak256(bytes32(1) ‖ keccak256(l1BlockHash ‖ bytes32(sequenceNumber))).
 */
export function l1InfoSourceHash(l1Hash: Hex, sequenceNumber: bigint): Hex {
  const inner = keccak256(encodePacked(['bytes32', 'uint256'], [l1Hash, sequenceNumber]));
  return keccak256(encodePacked(['uint256', 'bytes32'], [1n, inner]));
}

/** Source hash of a user deposit (domain 0): keccak256(bytes32(0) ‖ keccak256(l1BlockHash ‖ bytes32(logIndex))). */
export function userDepositSourceHash(l1Hash: Hex, logIndex: bigint): Hex {
  const inner = keccak256(encodePacked(['bytes32', 'uint256'], [l1Hash, logIndex]));
  return keccak256(encodePacked(['uint256', 'bytes32'], [0n, inner]));
}

/** The L2 sender of a deposit made by an L1 contract (`AddressAliasHelper.applyL1ToL2Alias`). */
export function applyL1ToL2Alias(l1: Address): Address {
  const v = (BigInt(l1) + ALIAS_OFFSET) & ((1n << 160n) - 1n);
  return `0x${v.toString(16).padStart(40, '0')}` as Address;
}
