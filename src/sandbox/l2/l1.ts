/**
 * The layer-1 values the sandbox's layer-2 chains see: the L1 origin block (number, time, hash) and L1 prices (base
 * fee, blob base fee). They are seeded and documented (docs/sandbox.md, "Layer-2 chains"), not read from the
 * sandbox's Ethereum chain: that chain runs with a zero base fee and hourly blocks in its history, which would give
 * free L1 data and an L1 origin an hour old. Pure functions of (seed, time): both L2 chains see the same L1, and a
 * resumed world the same values as before.
 *
 * - L1 block number: as if every 12-second slot since the Merge (block 15,537,394 at 1,663,224,179) had a block, the
 *   origin being the block 3 slots (36 s) before the L2 block's time, as an OP sequencer's origin lags;
 * - L1 hash: keccak256 of `protoscore/sandbox/l1/<seed>/<number>` (no such chain exists to check it against);
 * - L1 base fee: log-normal per L1 hour, median 3 gwei, log-sd 0.6, drawn from the hash of (seed, hour);
 * - blob base fee: per L1 hour, 1 wei most hours (blob space mostly unused, as on mainnet since EIP-4844), otherwise
 *   log-uniform up to ~1 gwei.
 */
import { keccak256, toHex } from 'viem';
import { hashNormal, hashUniform } from '../world/hash-draw.js';

const MERGE_BLOCK = 15_537_394;
const MERGE_TIME = 1_663_224_179;
const SLOT_SECONDS = 12;
const ORIGIN_LAG_SLOTS = 3;

export interface L1Origin {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly hash: `0x${string}`;
  readonly baseFee: bigint;
  readonly blobBaseFee: bigint;
}

/** The L1 origin an L2 block at `timestamp` (Unix seconds) refers to. */
export function l1OriginAt(seed: number, timestamp: number): L1Origin {
  const slot = Math.floor((timestamp - MERGE_TIME) / SLOT_SECONDS) - ORIGIN_LAG_SLOTS;
  const number = MERGE_BLOCK + slot;
  const time = MERGE_TIME + slot * SLOT_SECONDS;
  const hour = Math.floor(time / 3600);
  const baseFee = BigInt(Math.round(3e9 * Math.exp(0.6 * hashNormal('protoscore/sandbox/l1-base-fee', seed, hour))));
  const busy = hashUniform('protoscore/sandbox/l1-blob-busy', seed, hour) < 0.25;
  const blobBaseFee = busy
    ? BigInt(Math.round(Math.exp(20.7 * hashUniform('protoscore/sandbox/l1-blob-fee', seed, hour))))
    : 1n;
  return {
    number: BigInt(number),
    timestamp: BigInt(time),
    hash: keccak256(toHex(`protoscore/sandbox/l1/${seed}/${number}`)),
    baseFee,
    blobBaseFee: blobBaseFee < 1n ? 1n : blobBaseFee,
  };
}
