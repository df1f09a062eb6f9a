/**
 * Control, classified: what one address is from what it answered (`classifyAddress`), who holds a role from the
 * role logs (`roleMembers`), and the weakest path to an upgrade along a resolved chain (`upgradePath`,
 * `weakestNode`). Pure: the reader (`reader.ts`) does the calls and hands their results here.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { InputError } from '../analyser/input.js';
import { addressOfWord, type ControlLog } from './history.js';
import type { AdminNode, ControlKind, UpgradePath } from './model.js';
import { canonicalSafeSingleton } from './safe-singletons.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * What an address answered at a block; a field is undefined when the call reverted or returned nothing decodable
 * (`getOwners` on a contract without it), so that each kind is recognised by the calls only it answers.
 */
export interface AddressProbe {
  readonly address: string;
  /** Whether the address has code at the block (an EOA has none). */
  readonly hasCode: boolean;
  readonly getThreshold?: bigint;
  readonly getOwners?: readonly string[];
  /** A Safe proxy's singleton (its storage slot 0) and the keccak256 of the singleton's runtime code. */
  readonly safeSingleton?: string;
  readonly safeSingletonCodeHash?: string;
  readonly VERSION?: string;
  readonly getMinDelay?: bigint;
  readonly delay?: bigint;
  readonly getDelay?: bigint;
  readonly admin?: string;
  readonly getAdmin?: string;
  readonly votingDelay?: bigint;
  readonly votingPeriod?: bigint;
  readonly CLOCK_MODE?: string;
  readonly timelock?: string;
  readonly owner?: string;
}

/** Where the walk goes from a classified address. */
export type NextHop =
  | { readonly type: 'address'; readonly address: string }
  /** An OpenZeppelin TimelockController: its proposers, from its `RoleGranted`/`RoleRevoked` logs. */
  | { readonly type: 'proposers' }
  | null;

export interface Classified {
  readonly kind: ControlKind;
  readonly threshold: number | null;
  readonly owners: readonly string[] | null;
  readonly delay_s: number | null;
  readonly details: Readonly<Record<string, unknown>>;
  readonly next: NextHop;
}

const lower = (a: string) => a.toLowerCase();

/** A uint256 that must fit an integer of seconds or a count. */
function small(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new InputError(`${what} out of range: ${value}`);
  return Number(value);
}

const addressHop = (address: string | undefined): NextHop =>
  address === undefined ? null : { type: 'address', address: lower(address) };

/**
 * The kind of one address from its probe, in the order that keeps kinds apart: no code is an EOA; `getThreshold`
 * with `getOwners` a Safe; `getMinDelay` an OpenZeppelin timelock; `votingDelay` with `votingPeriod` a governor;
 * Compound's `delay()` with `admin()` and Aave executors' `getDelay()` timelocks; an `owner()` a proxy admin (the
 * zero owner: renounced, so nothing above it can act); anything else `unknown`.
 */
export function classifyAddress(probe: AddressProbe): Classified {
  const none = { threshold: null, owners: null, delay_s: null, details: {} };
  if (!probe.hasCode) return { kind: 'eoa', ...none, next: null };
  if (probe.getThreshold !== undefined && probe.getOwners !== undefined) {
    const owners = probe.getOwners.map(lower);
    const threshold = small(probe.getThreshold, 'Safe threshold');
    if (threshold < 1 || threshold > owners.length) {
      throw new InputError(`Safe ${probe.address}: threshold ${threshold} of ${owners.length} owners`);
    }
    const singleton = probe.safeSingletonCodeHash ? canonicalSafeSingleton(probe.safeSingletonCodeHash) : undefined;
    return {
      kind: 'safe',
      threshold,
      owners,
      delay_s: null,
      details: {
        singleton: probe.safeSingleton ? lower(probe.safeSingleton) : null,
        singleton_code_hash: probe.safeSingletonCodeHash ?? null,
        canonical: singleton !== undefined,
        version: singleton?.version ?? probe.VERSION ?? null,
        ...(singleton ? { l2: singleton.l2 } : {}),
      },
      // A Safe's owners sign together: the Safe is the root, its threshold what it takes.
      next: null,
    };
  }
  if (probe.getMinDelay !== undefined) {
    return {
      kind: 'timelock',
      threshold: null,
      owners: null,
      delay_s: small(probe.getMinDelay, 'getMinDelay'),
      details: { flavour: 'openzeppelin' },
      next: { type: 'proposers' },
    };
  }
  if (probe.votingDelay !== undefined && probe.votingPeriod !== undefined) {
    return {
      kind: 'governor',
      ...none,
      details: {
        voting_delay: probe.votingDelay.toString(),
        voting_period: probe.votingPeriod.toString(),
        // ERC-6372: `mode=timestamp` counts seconds; without it (or `mode=blocknumber`) the periods are blocks.
        clock: probe.CLOCK_MODE?.includes('timestamp') ? 'timestamp' : 'blocknumber',
        timelock: probe.timelock ? lower(probe.timelock) : null,
      },
      // The token holders vote: the governor is the root.
      next: null,
    };
  }
  if (probe.delay !== undefined && probe.admin !== undefined) {
    return {
      kind: 'timelock',
      threshold: null,
      owners: null,
      delay_s: small(probe.delay, 'delay'),
      details: { flavour: 'compound' },
      next: addressHop(probe.admin),
    };
  }
  if (probe.getDelay !== undefined) {
    return {
      kind: 'timelock',
      threshold: null,
      owners: null,
      delay_s: small(probe.getDelay, 'getDelay'),
      details: { flavour: 'aave' },
      next: addressHop(probe.getAdmin ?? probe.owner ?? probe.admin),
    };
  }
  if (probe.owner !== undefined) {
    return { kind: 'proxy_admin', ...none, next: addressHop(probe.owner) };
  }
  return { kind: 'unknown', ...none, next: null };
}

export const ROLE_EVENTS = {
  granted: `0x${bytesToHex(keccak_256(utf8ToBytes('RoleGranted(bytes32,address,address)')))}`,
  revoked: `0x${bytesToHex(keccak_256(utf8ToBytes('RoleRevoked(bytes32,address,address)')))}`,
} as const;

/** OpenZeppelin's `PROPOSER_ROLE`, keccak256 of its name. */
export const PROPOSER_ROLE = `0x${bytesToHex(keccak_256(utf8ToBytes('PROPOSER_ROLE')))}`;

/**
 * The holders of `role` after the logs (`RoleGranted`/`RoleRevoked` of OpenZeppelin's AccessControl: role, account
 * and sender all indexed), lowercase, in the order they were first granted.
 */
export function roleMembers(logs: readonly ControlLog[], role: string): string[] {
  const members = new Set<string>();
  const sorted = [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  for (const log of sorted) {
    const topic = log.topics[0]?.toLowerCase();
    if (topic !== ROLE_EVENTS.granted && topic !== ROLE_EVENTS.revoked) continue;
    if (log.topics[1]?.toLowerCase() !== role.toLowerCase()) continue;
    if (log.topics.length < 3) throw new InputError(`role log ${log.transactionHash}#${log.logIndex}: no account`);
    const account = addressOfWord(log.topics[2]!, 'role account');
    if (topic === ROLE_EVENTS.granted) members.add(account);
    else members.delete(account);
  }
  return [...members];
}

/** The weakest path to an upgrade along a resolved chain (each hop's `next`), from its first hop to its root. */
export function upgradePath(node: AdminNode): UpgradePath {
  const path: string[] = [];
  let delay = 0;
  let weakestSafe: { m: number; n: number } | undefined;
  let last = node;
  for (let at: AdminNode | null = node; at; at = at.next) {
    last = at;
    if (at.address) path.push(at.address);
    if (at.delay_s !== null) delay += at.delay_s;
    if (at.kind === 'safe' && at.threshold !== null && at.owners) {
      const safe = { m: at.threshold, n: at.owners.length };
      if (!weakestSafe || safe.m < weakestSafe.m || (safe.m === weakestSafe.m && safe.n > weakestSafe.n)) {
        weakestSafe = safe;
      }
    }
  }
  const root_kind = last.stopped ? 'unknown' : last.kind;
  return {
    root_kind,
    path,
    multisig_threshold: weakestSafe ? `${weakestSafe.m}/${weakestSafe.n}` : null,
    timelock_delay_s: delay,
    critical: root_kind === 'eoa',
  };
}

/**
 * The weakest of several chains that can each act (a timelock's proposers): one an EOA roots first, then the shortest
 * total delay, then the lowest Safe threshold (no Safe counts as a threshold of one), then the first given.
 */
export function weakestNode(nodes: readonly AdminNode[]): AdminNode | null {
  let best: { node: AdminNode; key: [number, number, number] } | undefined;
  for (const node of nodes) {
    const p = upgradePath(node);
    const m = p.multisig_threshold ? Number(p.multisig_threshold.split('/')[0]) : 1;
    const key: [number, number, number] = [p.critical ? 0 : 1, p.timelock_delay_s, m];
    if (!best || compareKeys(key, best.key) < 0) best = { node, key };
  }
  return best?.node ?? null;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
