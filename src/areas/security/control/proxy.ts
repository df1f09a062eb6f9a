/**
 * A contract's proxy state at a block from what was read there: its runtime code (the pattern, by
 * `analyser/bytecode.ts`), its EIP-1967 (and legacy zeppelinos/EIP-1822) storage slots, its beacon's
 * `implementation()`, a diamond's `facets()`, an admin kept as a constant in its code, its own `owner()`. Pure.
 */
import { bytecodeFacts } from '../analyser/bytecode.js';
import { InputError } from '../analyser/input.js';
import type { ProxyState } from './model.js';

/** 32-byte storage words (`eth_getStorageAt`), 0x-prefixed. */
export interface ProxySlots {
  readonly implementation: string;
  readonly admin: string;
  readonly beacon: string;
  readonly eip1822: string;
  readonly zeppelinos: string;
  /** Slot 0: a Safe proxy's singleton. */
  readonly zero: string;
}

export interface ProxyRead {
  readonly address: string;
  /** Runtime code at the block, 0x-prefixed hex; `0x` for an account without code. */
  readonly code: string;
  readonly slots: ProxySlots;
  /** The beacon's `implementation()`, when the beacon slot is set. */
  readonly beaconImplementation?: string;
  /** A diamond's `facets()`. */
  readonly facets?: readonly { readonly address: string; readonly selectors: readonly string[] }[];
  /** An address pushed by the code that answered `admin()` as itself (an immutable admin, `ifAdmin`). */
  readonly immutableAdmin?: string;
  /** The contract's own `owner()` (a UUPS proxy's implementation, a diamond's ERC-173 owner). */
  readonly owner?: string;
}

/** The address held in a storage word, lowercase; null for the zero word. */
export function slotAddress(word: string, what: string): string | null {
  const hex = word.replace(/^0x/i, '').toLowerCase().padStart(64, '0');
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new InputError(`${what}: ${word} is not a 32-byte word`);
  if (!hex.startsWith('0'.repeat(24))) throw new InputError(`${what}: ${word} holds more than an address`);
  const address = `0x${hex.slice(24)}`;
  return /^0x0{40}$/.test(address) ? null : address;
}

const DIAMOND_CUT = '0x1f931c1c';

/**
 * The proxy state: the kind and the implementation (from the slot its kind uses), the first hop of its control
 * (`admin`: the EIP-1967 admin slot, else an admin constant in the code, else the beacon, else the contract's own
 * `owner()`), and whether it is upgradeable (a minimal clone and a non-proxy are not; a diamond is while a facet
 * routes `diamondCut`).
 */
export function proxyState(read: ProxyRead): ProxyState {
  const address = read.address.toLowerCase();
  const base = { address, beacon: null, facets: null } as const;
  if (/^0x$/i.test(read.code.trim())) {
    return { ...base, kind: null, implementation: null, admin: null, admin_source: 'none', upgradeable: false };
  }
  const facts = bytecodeFacts(read.code);
  const implementationSlot = slotAddress(read.slots.implementation, 'implementation slot');
  const adminSlot = slotAddress(read.slots.admin, 'admin slot');
  const beaconSlot = slotAddress(read.slots.beacon, 'beacon slot');
  const owner = read.owner && !/^0x0{40}$/i.test(read.owner) ? read.owner.toLowerCase() : null;

  if (facts.proxy?.kind === 'eip1167') {
    return {
      ...base,
      kind: 'eip1167',
      implementation: facts.proxy.implementation!.toLowerCase(),
      admin: null,
      admin_source: 'none',
      upgradeable: false,
    };
  }
  if (read.facets && read.facets.length > 0) {
    const cut = read.facets.some((f) => f.selectors.some((s) => s.toLowerCase() === DIAMOND_CUT));
    return {
      ...base,
      kind: 'diamond',
      implementation: null,
      facets: read.facets.map((f) => ({
        address: f.address.toLowerCase(),
        selectors: f.selectors.map((s) => s.toLowerCase()),
      })),
      admin: cut ? owner : null,
      admin_source: cut && owner ? 'owner' : 'none',
      upgradeable: cut,
    };
  }
  if (beaconSlot) {
    return {
      ...base,
      kind: 'eip1967-beacon',
      beacon: beaconSlot,
      implementation: read.beaconImplementation?.toLowerCase() ?? null,
      admin: beaconSlot,
      admin_source: 'beacon',
      upgradeable: true,
    };
  }
  const legacy =
    (implementationSlot && { kind: 'eip1967' as const, implementation: implementationSlot }) ||
    (slotAddress(read.slots.zeppelinos, 'zeppelinos slot') && {
      kind: 'zeppelinos' as const,
      implementation: slotAddress(read.slots.zeppelinos, 'zeppelinos slot')!,
    }) ||
    (slotAddress(read.slots.eip1822, 'EIP-1822 slot') && {
      kind: 'eip1822' as const,
      implementation: slotAddress(read.slots.eip1822, 'EIP-1822 slot')!,
    });
  if (legacy) {
    if (adminSlot)
      return { ...base, ...legacy, admin: adminSlot, admin_source: 'eip1967-admin-slot', upgradeable: true };
    if (read.immutableAdmin) {
      return {
        ...base,
        kind: 'eip1967-immutable-admin',
        implementation: legacy.implementation,
        admin: read.immutableAdmin.toLowerCase(),
        admin_source: 'immutable-in-code',
        upgradeable: true,
      };
    }
    // UUPS (EIP-1822 style): the implementation upgrades itself, guarded by its owner when it has one.
    if (owner) return { ...base, ...legacy, admin: owner, admin_source: 'owner', upgradeable: true };
    return { ...base, ...legacy, admin: null, admin_source: 'none', upgradeable: null };
  }
  if (facts.proxy?.kind === 'safe') {
    // A Safe proxy changes its singleton only through its own transactions: the Safe is its own admin.
    return {
      ...base,
      kind: 'safe',
      implementation: slotAddress(read.slots.zero, 'slot 0'),
      admin: address,
      admin_source: 'self',
      upgradeable: true,
    };
  }
  if (facts.proxy) {
    // A pattern the code shows whose slots read empty (not initialised at this block).
    return {
      ...base,
      kind: facts.proxy.kind,
      implementation: null,
      admin: null,
      admin_source: 'none',
      upgradeable: null,
    };
  }
  return { ...base, kind: null, implementation: null, admin: null, admin_source: 'none', upgradeable: false };
}
