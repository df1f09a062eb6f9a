/**
 * The Ethereum world's base fee (docs/sandbox.md, "Blocks, transactions and determinism"): set before each block with
 * `anvil_setNextBlockBaseFeePerGas`, as the world's hourly blocks are far too big and its 5-second blocks far too
 * small for EIP-1559's own update to mean anything. A pure function of (seed, block time), so a resumed world and
 * any step grid see the same fees: per hour, log-normal with median 3 gwei and log-sd 0.6, the same hourly draw as
 * the L1 base fee the layer-2 chains see (l2/l1.ts); per block, a small jitter (log-sd 0.05).
 */
import { keccak256, toHex } from 'viem';
import { pow } from '../world/pow.js';
import type { SessionOptions } from './session.js';

/** A uniform number in [0, 1) from the hash of the parts. */
function hashUniform(...parts: (string | number)[]): number {
  const h = keccak256(toHex(parts.join('/')));
  return Number(BigInt(h.slice(0, 15)) & ((1n << 52n) - 1n)) / pow(2, 52);
}

/** A standard normal draw from two hash-uniforms (Box–Muller). */
function hashNormal(...parts: (string | number)[]): number {
  const u = Math.max(hashUniform(...parts, 'a'), 1e-12);
  const v = hashUniform(...parts, 'b');
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

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
