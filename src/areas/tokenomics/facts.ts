import type { LabelCategory, LabelKind } from './targets.js';

/**
 * What the ingest reads of a labelled contract at a snapshot's block: the token balance it holds and the views its
 * kind has, as the contract answered them (integers as decimal strings, addresses lowercase; a view that reverted
 * or that the kind has not is absent). The computation interprets them (vesting.ts); nothing is derived here.
 *
 * - `treasury_vester` (Uniswap's TreasuryVester): `recipient`, `vestingAmount`, `vestingBegin`, `vestingCliff`,
 *   `vestingEnd`, `lastUpdate`;
 * - `vesting_wallet` (OpenZeppelin VestingWallet): `beneficiary`, `start`, `duration`, `released` (of the token),
 *   `vestedAmount` (of the token at the block's time);
 * - `token_timelock` (OpenZeppelin TokenTimelock): `beneficiary`, `releaseTime`, `token`;
 * - `merkle_distributor` (Uniswap's MerkleDistributor): `token`, `merkleRoot`;
 * - `timelock` (Compound's and Uniswap's Timelock): `admin`, `delay`; `timelock_controller` (OpenZeppelin):
 *   `getMinDelay`;
 * - the others (`eoa`, `safe`, `burn`, `pool`, `bridge`): the balance only.
 */
export interface ContractReading {
  readonly address: string;
  readonly category: LabelCategory;
  readonly kind: LabelKind;
  readonly label: string;
  /** `balanceOf(address)` of the token at the block, raw units. */
  readonly held: string;
  readonly views: Readonly<Record<string, string>>;
}

/** One sampled address: its balance in the ledger and `balanceOf` at the same block. */
export interface SampleReading {
  readonly address: string;
  readonly ledger: string;
  readonly onchain: string;
}

/** A snapshot of a token at a block, as stored. */
export interface TokenSnapshotFact {
  readonly chain: string;
  readonly token: string;
  readonly blockNumber: number;
  readonly timestamp: number;
  readonly totalSupply: bigint;
  readonly replayedSupply: bigint;
  readonly sample: readonly SampleReading[];
  readonly contracts: readonly ContractReading[];
}

/** A retained transfer, as stored. */
export interface TransferFact {
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly txHash: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly timestamp: number;
}
