/**
 * Draws that are pure functions of their parts (a seed, an hour, a block time), not of a stream's position: a
 * resumed world and any step grid see the same values. The Ethereum world's base fee (chain/fees.ts) and the L1
 * values the layer-2 chains see (l2/l1.ts) share them, so the hourly base fee is one draw for both.
 */
import { keccak256, toHex } from 'viem';
import { pow } from './pow.js';

/** A uniform number in [0, 1) from the hash of the parts. */
export function hashUniform(...parts: (string | number)[]): number {
  const h = keccak256(toHex(parts.join('/')));
  return Number(BigInt(h.slice(0, 15)) & ((1n << 52n) - 1n)) / pow(2, 52);
}

/** A standard normal draw from two hash-uniforms (Box–Muller). */
export function hashNormal(...parts: (string | number)[]): number {
  const u = Math.max(hashUniform(...parts, 'a'), 1e-12);
  const v = hashUniform(...parts, 'b');
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
