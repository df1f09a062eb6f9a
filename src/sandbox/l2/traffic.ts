/**
 * The seeded traffic of the sandbox's layer-2 chains (docs/sandbox.md, "Layer-2 chains"): users (EOAs with ETH and
 * a token), ETH transfers, ERC-20 transfers, a few contract deployments, a few failing transactions, bursts and quiet
 * hours, and on OP user deposits from L1. Deterministic by seed: every draw comes from the chain's own stream, saved
 * with the chain, and hour characters from the hash of (seed, chain, hour).
 */
import { type Address, type Hex, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { pow } from '../world/pow.js';
import { Rng } from '../world/random.js';

export const L2_USERS = 40;
/** Mean user transactions per hour at the daily mean (before the diurnal curve and the hour's character). */
export const TX_PER_HOUR = 6;
/** OP user deposits (L1 → L2) per hour. */
export const DEPOSITS_PER_HOUR = 1;
/** Token units each user mints in the chain's first block (1,000,000 tokens of 6 decimals). */
export const USER_TOKENS = 1_000_000_000_000n;

export interface L2User {
  readonly address: Address;
  readonly key: Hex;
  /** Relative activity (log-normal, log-sd 0.8). */
  readonly weight: number;
}

/** The chain's users and its deployer, derived from the seed (`keccak256("protoscore/sandbox/l2/<chain>/<seed>/<i>")`). */
export function l2Cast(chain: string, seed: number): { deployer: L2User; users: L2User[] } {
  const rng = Rng.fromSeed(seed, `l2-users-${chain}`);
  const make = (label: string, weight: number): L2User => {
    const key = keccak256(toHex(`protoscore/sandbox/l2/${chain}/${seed}/${label}`));
    return { address: privateKeyToAccount(key).address, key, weight };
  };
  const users = Array.from({ length: L2_USERS }, (_, i) => make(String(i), rng.logNormal(1, 0.8)));
  return { deployer: make('deployer', 1), users };
}

function hourUniform(seed: number, chain: string, hour: number, what: string): number {
  const h = keccak256(toHex(`protoscore/sandbox/l2/${what}/${chain}/${seed}/${hour}`));
  return Number(BigInt(h.slice(0, 15)) & ((1n << 52n) - 1n)) / pow(2, 52);
}

/**
 * The hour's activity multiplier: the diurnal curve 1 + 0.4·cos(2π(h − 15)/24) of the Ethereum world, times the
 * hour's character: 8 % of hours are bursts (×6), 12 % quiet (×0.1), the rest ordinary (×1).
 */
export function hourFactor(seed: number, chain: string, timestamp: number): number {
  const hour = Math.floor(timestamp / 3600);
  const diurnal = 1 + 0.4 * Math.cos((2 * Math.PI * ((hour % 24) - 15)) / 24);
  const u = hourUniform(seed, chain, hour, 'character');
  return diurnal * (u < 0.08 ? 6 : u < 0.2 ? 0.1 : 1);
}

export type TrafficKind = 'eth' | 'erc20' | 'fail' | 'deploy';

/** One user transaction to build: who sends what. */
export interface PlannedTx {
  readonly kind: TrafficKind;
  readonly from: number;
  readonly to: number;
  /** Wei (eth) or token units (erc20); for `fail` more than all the tokens there are. */
  readonly amount: bigint;
}

/**
 * The user transactions of a block ending at `timestamp` and lasting `stepSeconds`: a Poisson count at the hour's
 * rate; kinds 55 % ETH, 36 % ERC-20, 6 % failing (an ERC-20 transfer above the balance), 3 % deployments.
 */
export function planBlock(
  rng: Rng,
  seed: number,
  chain: string,
  users: readonly L2User[],
  balances: readonly bigint[],
  timestamp: number,
  stepSeconds: number,
): PlannedTx[] {
  const n = Math.min(2000, rng.poisson((TX_PER_HOUR * hourFactor(seed, chain, timestamp) * stepSeconds) / 3600));
  const weights = users.map((u) => u.weight);
  // A block's transactions may execute in any order (anvil takes a batch in parallel): a sender spends only what it
  // held at the block's start, and a failing transfer asks for more than all the tokens there are.
  const spendable = [...balances];
  const supply = balances.reduce((a, b) => a + b, 0n);
  const out: PlannedTx[] = [];
  for (let i = 0; i < n; i++) {
    const from = rng.weightedIndex(weights);
    let to = rng.int(users.length - 1);
    if (to >= from) to++;
    const u = rng.next();
    if (u < 0.55) {
      out.push({ kind: 'eth', from, to, amount: BigInt(Math.round(rng.logNormal(0.05, 1.2) * 1e9)) * 1_000_000_000n });
    } else if (u < 0.91) {
      const want = BigInt(Math.max(1, Math.round(rng.logNormal(500, 1.3) * 1e6)));
      const amount = want < spendable[from]! ? want : spendable[from]! / 2n;
      spendable[from] = spendable[from]! - amount;
      out.push({ kind: 'erc20', from, to, amount });
    } else if (u < 0.97) {
      out.push({ kind: 'fail', from, to, amount: supply + 1n + BigInt(rng.int(1_000_000)) });
    } else {
      out.push({ kind: 'deploy', from, to: from, amount: 0n });
    }
  }
  return out;
}

/** User deposits (OP) of a block: a Poisson count; each from its own aliased L1 sender. */
export function planDeposits(rng: Rng, seed: number, chain: string, timestamp: number, stepSeconds: number): number {
  return Math.min(50, rng.poisson((DEPOSITS_PER_HOUR * hourFactor(seed, chain, timestamp) * stepSeconds) / 3600));
}
