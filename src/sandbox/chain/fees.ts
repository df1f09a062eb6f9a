/**
 * The Ethereum world's base fee (docs/sandbox.md, "Blocks, transactions and determinism"): set before each block with
 * `anvil_setNextBlockBaseFeePerGas`, as the world's hourly blocks are far too big and its 5-second blocks far too
 * small for EIP-1559's own update to mean anything. A pure function of (seed, block time), so a resumed world and
 * any step grid see the same fees: per hour, log-normal with median 3 gwei and log-sd 0.6, the same hourly draw as
 * the L1 base fee the layer-2 chains see (l2/l1.ts); per block, a small jitter (log-sd 0.05).
 */
import { hashNormal } from '../world/hash-draw.js';
import type { SessionOptions } from './session.js';

/** The base fee (wei) of the Ethereum world's block at `timestamp`: always at least 1 gwei / 10. */
export function ethereumBaseFee(seed: number, timestamp: number): bigint {
  const hour = Math.floor(timestamp / 3600);
  const hourly = 0.6 * hashNormal('protoscore/sandbox/l1-base-fee', seed, hour);
  const jitter = 0.05 * hashNormal('protoscore/sandbox/base-fee-block', seed, timestamp);
  const fee = BigInt(Math.round(3e9 * Math.exp(hourly + jitter)));
  return fee < 100_000_000n ? 100_000_000n : fee;
}

/** The Ethereum world's session: ordered by fee, over the base-fee schedule of its seed. */
export function ethereumSession(seed: number): SessionOptions {
  return { baseFee: (timestamp) => ethereumBaseFee(seed, timestamp) };
}
