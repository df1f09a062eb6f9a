/**
 * The shapes of a contract's control (issue 29's `/static` path): the proxy pattern it follows at a block, its
 * upgrade history, and who can change its code, followed hop by hop to the root. Pure data, no I/O.
 */
import type { ProxyKind } from '../analyser/bytecode.js';

/**
 * What holds an upgrade key: `eoa` (an account without code), `safe` (a Safe multisig: `getThreshold`/`getOwners`),
 * `timelock` (OpenZeppelin `getMinDelay`, Compound `delay()`, Aave executors' `getDelay()`), `governor` (an
 * OpenZeppelin Governor: `votingDelay`/`votingPeriod`), `proxy_admin` (a contract that administers a proxy and has an
 * `owner()`: OpenZeppelin's ProxyAdmin, an UpgradeableBeacon, Aave's addresses provider), `immutable` (no key at
 * all: not a proxy, a minimal clone, a renounced owner), `unknown` (code that answers none of these).
 */
export const CONTROL_KINDS = ['eoa', 'safe', 'timelock', 'governor', 'proxy_admin', 'immutable', 'unknown'] as const;
export type ControlKind = (typeof CONTROL_KINDS)[number];

/**
 * The proxy patterns of a contract at a block: those bytecode shows (`analyser/bytecode.ts`) and `eip1967-immutable-
 * admin`, an EIP-1967 proxy whose admin is a constant in its code (Aave's `InitializableImmutableAdminUpgradeability
 * Proxy`, found by asking `admin()` as each address the code pushes).
 */
export type ControlProxyKind = ProxyKind | 'eip1967-immutable-admin';

/** Where a proxy's admin was read from. */
export type AdminSource = 'eip1967-admin-slot' | 'immutable-in-code' | 'beacon' | 'owner' | 'self' | 'none';

export interface ProxyState {
  readonly address: string;
  /** null: not a proxy (its code is what runs). */
  readonly kind: ControlProxyKind | null;
  /** Lowercase; null for a diamond (see `facets`), a non-proxy, or a slot that reads zero. */
  readonly implementation: string | null;
  /** The first hop of the control chain: the key holder (or the beacon, the diamond's owner, the Safe itself). */
  readonly admin: string | null;
  readonly admin_source: AdminSource;
  readonly beacon: string | null;
  /** A diamond's facets (`facets()`), each with its selectors; null for anything else. */
  readonly facets: readonly { readonly address: string; readonly selectors: readonly string[] }[] | null;
  /** Whether someone can change the code that runs; null when a proxy's admin could not be found. */
  readonly upgradeable: boolean | null;
}

export interface PastUpgrade {
  /** ISO-8601 UTC seconds. */
  readonly time: string;
  readonly block_number: number;
  readonly transaction: string;
  readonly implementation: string;
}

export interface AdminChange {
  readonly time: string;
  readonly block_number: number;
  readonly transaction: string;
  readonly previous: string;
  readonly admin: string;
}

export interface OwnershipTransfer {
  readonly time: string;
  readonly block_number: number;
  readonly transaction: string;
  readonly previous: string;
  readonly owner: string;
}

export interface BeaconUpgrade {
  readonly time: string;
  readonly block_number: number;
  readonly transaction: string;
  readonly beacon: string;
}

export interface UpgradeHistory {
  /** The `Upgraded` events, the one a proxy emits at deployment included (a beacon proxy: its beacon's). */
  readonly upgrade_count: number;
  /** Oldest first. */
  readonly past_upgrades: readonly PastUpgrade[];
  readonly beacon_upgrades: readonly BeaconUpgrade[];
  readonly admin_changes: readonly AdminChange[];
  readonly ownership_transfers: readonly OwnershipTransfer[];
}

/** One hop of a control chain, as the `/static` path nests it. */
export interface AdminNode {
  readonly kind: ControlKind;
  /** Lowercase; null only for `immutable` without an address (a clone, a non-proxy). */
  readonly address: string | null;
  /** A Safe's threshold (m). */
  readonly threshold: number | null;
  /** A Safe's owners, lowercase. */
  readonly owners: readonly string[] | null;
  /** A timelock's minimum delay in seconds. */
  readonly delay_s: number | null;
  /** The hop that controls this one (a timelock's proposer, or its admin; a proxy admin's owner); null at the root. */
  readonly next: AdminNode | null;
  /** What else was read at this hop (a Safe's singleton and version, a governor's voting periods, proposers). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Why the walk stopped here without reaching a root (`cycle`, `depth`, `read_failed`). */
  readonly stopped?: 'cycle' | 'depth' | 'read_failed';
}

/** The weakest path from a root to an upgrade, and what it takes. */
export interface UpgradePath {
  /** The root's kind (the last hop). */
  readonly root_kind: ControlKind;
  /** The hops' addresses from the proxy's admin to the root. */
  readonly path: readonly string[];
  /** `m/n` of the weakest Safe on the path; null when no Safe is on it. */
  readonly multisig_threshold: string | null;
  /** The delays of the timelocks on the path, added (each must pass in turn); 0 when none is on it. */
  readonly timelock_delay_s: number;
  /** An externally owned account can upgrade alone (the root is an EOA). */
  readonly critical: boolean;
}
