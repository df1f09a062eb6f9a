/**
 * The state reads of the stablecoin area's ingestion (ingest.ts schedules them): a protocol's state at one block,
 * read with multicall, the snapshot the figures are computed from.
 *
 * MakerDAO: the MCD contracts resolved from the Chainlog; the Vat's totals, each ilk (IlkRegistry, Vat, Spot, Jug,
 * Dog, its join's balance, its Clipper), the PSMs, and the vaults, kept incrementally: from a base snapshot's set,
 * only the vaults the Vat's notes touched since are read again, all of them at least every `URN_RECONCILE_EVERY`.
 *
 * Liquity: the contracts resolved from the TroveManager; the system's totals, rates and price, and every trove its
 * stored `TroveUpdated` events named up to the block.
 */
import { stringToHex } from 'viem';
import { DAY } from '../../core/time.js';
import { type EvmSource, readCallsAt, type StateCall } from '../../sources/evm/source.js';
import type { Hex } from '../../sources/evm/types.js';
import { type ChangedSetBase, mergeChangedSet, planChangedSet } from '../kit/changed-set.js';
import {
  ABACUS_ABI,
  bytes32ToText,
  CHAINLOG_ABI,
  CLIPPER_ABI,
  DOG_ABI,
  ILK_REGISTRY_ABI,
  JUG_ABI,
  PRICE_FEED_ABI,
  SPOT_ABI,
  STABILITY_POOL_ABI,
  TOKEN_ABI,
  TROVE_MANAGER_ABI,
  VAT_ABI,
} from './events.js';
import type {
  LiquitySnapshot,
  MakerClipperState,
  MakerIlkState,
  MakerSnapshot,
  StableEventFact,
  StableSnapshot,
  TroveState,
  UrnKey,
  UrnState,
} from './facts.js';
import { readPsms } from './psms.js';
import type { StablecoinRepository } from './repo.js';
import type { StablecoinTarget } from './targets.js';

type Address = `0x${string}`;

type Call = StateCall;

const read = readCallsAt;

/** A value every figure needs: its absence is the source's error, never a zero. */
export function required<T>(value: unknown, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what}: the call reverted or returned nothing`);
  return value as T;
}

export const lower = (a: unknown) => String(a).toLowerCase() as Address;
export const ZERO = '0x0000000000000000000000000000000000000000';
const RAY = 10n ** 27n;

// ---- MakerDAO ----

/** The Chainlog keys of the MCD contracts the area reads. */
const MAKER_KEYS = ['MCD_VAT', 'MCD_DAI', 'MCD_SPOT', 'MCD_JUG', 'MCD_DOG', 'ILK_REGISTRY', 'MCD_JOIN_DAI'] as const;

export interface MakerContracts {
  /** Every Chainlog entry, key → lowercase address. */
  readonly chainlog: Readonly<Record<string, Address>>;
  readonly vat: Address;
  readonly dai: Address;
  readonly spot: Address;
  readonly jug: Address;
  readonly dog: Address;
  readonly ilkRegistry: Address;
}

/** The Chainlog's entries at a block (`list()` then `getAddress(key)` for each). */
export async function resolveMaker(source: EvmSource, chainlog: Address, block: number): Promise<MakerContracts> {
  const [keys] = await read(source, [{ address: chainlog, abi: CHAINLOG_ABI, functionName: 'list' }], block);
  const listed = required<readonly Hex[]>(keys, `Chainlog ${chainlog} list()`);
  const names = new Set<string>([...listed.map((k) => bytes32ToText(k)), ...MAKER_KEYS]);
  const ordered = [...names].sort();
  const addresses = await read(
    source,
    ordered.map((key) => ({
      address: chainlog,
      abi: CHAINLOG_ABI,
      functionName: 'getAddress',
      args: [stringToHex(key, { size: 32 })],
    })),
    block,
  );
  const entries: Record<string, Address> = {};
  ordered.forEach((key, i) => {
    if (addresses[i] !== undefined) entries[key] = lower(addresses[i]);
  });
  const need = (key: (typeof MAKER_KEYS)[number]) =>
    required<Address>(entries[key], `Chainlog ${chainlog} getAddress(${key})`);
  return {
    chainlog: entries,
    vat: need('MCD_VAT'),
    dai: need('MCD_DAI'),
    spot: need('MCD_SPOT'),
    jug: need('MCD_JUG'),
    dog: need('MCD_DOG'),
    ilkRegistry: need('ILK_REGISTRY'),
  };
}

/**
 * The Vat notes that write a vault (`Vat.urns`): `frob` (its owner's), `grab` (liquidation, End) and `fork` (both
 * sides). No other Vat function writes `urns`; `fold` changes an ilk's `rate`, not `art`, so a vault no note touched
 * keeps its (ink, art), and its debt art × rate stays exact with the ilk's rate read at each snapshot.
 */
export const URN_NOTE_KINDS = ['frob', 'grab', 'fork'] as const;

/** The kept set's vaults are read again in full at least this often (chain time): the reconciliation. */
export const URN_RECONCILE_EVERY = DAY;

/** The vaults the Vat's notes named (frob/grab `u`, fork `src`/`dst`), by ilk. */
export function urnsOfNotes(events: readonly StableEventFact[]): UrnKey[] {
  const named = new Map<string, UrnKey>();
  addUrnsOfNotes(events, named);
  return [...named.values()].sort(byIlkAndUrn);
}

/** Adds the vaults the notes named to `into`, by their key. */
function addUrnsOfNotes(events: readonly StableEventFact[], into: Map<string, UrnKey>): void {
  const add = (ilk: string, urn: string) => into.set(urnKey({ ilk, urn }), { ilk, urn });
  for (const { event: e } of events) {
    if (e.source !== 'vat_note') continue;
    if (e.kind === 'frob' || e.kind === 'grab') add(e.ilk, e.u);
    else if (e.kind === 'fork') {
      add(e.ilk, e.src);
      add(e.ilk, e.dst);
    }
  }
}

/** A vault's key in the kept set (an address has no `/`). */
const urnKey = (u: UrnKey) => `${u.ilk}/${u.urn}`;
const byIlkAndUrn = (a: UrnKey, b: UrnKey) => (a.ilk + a.urn < b.ilk + b.urn ? -1 : 1);

type UrnValue = { readonly ink: bigint; readonly art: bigint };

/**
 * The vaults a Maker snapshot reads: the set and values of a base snapshot (null: none; every vault `touched` names is
 * read) and the vaults the notes between the base and the snapshot's block touched.
 */
export interface MakerVaults {
  readonly base: { readonly blockNumber: number; readonly kept: ChangedSetBase<UrnValue> } | null;
  readonly touched: readonly UrnKey[];
}

/** The kept set of a stored snapshot; null for one taken before the set was kept (it has no `emptyUrns`). */
export function keptUrns(s: MakerSnapshot): MakerVaults['base'] {
  if (!s.emptyUrns) return null;
  const values = new Map<string, UrnValue>(s.urns.map((u) => [urnKey(u), { ink: u.ink, art: u.art }]));
  return {
    blockNumber: s.blockNumber,
    kept: {
      keys: [...values.keys(), ...s.emptyUrns.map(urnKey)],
      values,
      reconciledAt: s.urnRead?.reconciledAt ?? s.timestamp,
    },
  };
}

const isEmptyUrn = (v: UrnValue | undefined) => v === undefined || (v.ink === 0n && v.art === 0n);
const sameUrn = (a: UrnValue | undefined, b: UrnValue | undefined) =>
  isEmptyUrn(a) ? isEmptyUrn(b) : !isEmptyUrn(b) && a!.ink === b!.ink && a!.art === b!.art;

export async function readMakerSnapshot(
  source: EvmSource,
  target: StablecoinTarget,
  block: { number: number; timestamp: number },
  vaults: MakerVaults,
): Promise<MakerSnapshot> {
  const touched = vaults.touched.map(urnKey);
  const kept = vaults.base?.kept ?? null;
  const plan = planChangedSet(kept, touched, block.timestamp, URN_RECONCILE_EVERY);
  const byKey = new Map<string, UrnKey>(vaults.touched.map((u) => [urnKey(u), u]));
  const keyOf = (k: string): UrnKey => {
    const known = byKey.get(k);
    if (known) return known;
    const at = k.lastIndexOf('/');
    return { ilk: k.slice(0, at), urn: k.slice(at + 1) };
  };
  const urnKeys = plan.read.map(keyOf);
  const c = await resolveMaker(source, target.entryPoint, block.number);
  const n = block.number;
  const [ilkList] = await read(source, [{ address: c.ilkRegistry, abi: ILK_REGISTRY_ABI, functionName: 'list' }], n);
  const ilkWords = required<readonly Hex[]>(ilkList, `IlkRegistry ${c.ilkRegistry} list()`);
  const perIlk = ilkWords.flatMap((w): Call[] => [
    { address: c.ilkRegistry, abi: ILK_REGISTRY_ABI, functionName: 'info', args: [w] },
    { address: c.vat, abi: VAT_ABI, functionName: 'ilks', args: [w] },
    { address: c.spot, abi: SPOT_ABI, functionName: 'ilks', args: [w] },
    { address: c.jug, abi: JUG_ABI, functionName: 'ilks', args: [w] },
    { address: c.dog, abi: DOG_ABI, functionName: 'ilks', args: [w] },
  ]);
  const held = Object.entries(c.chainlog).filter(([, a]) => a !== ZERO);
  const vow = c.chainlog.MCD_VOW;
  const calls: Call[] = [
    { address: c.vat, abi: VAT_ABI, functionName: 'debt' },
    { address: c.vat, abi: VAT_ABI, functionName: 'vice' },
    ...(vow
      ? [
          { address: c.vat, abi: VAT_ABI, functionName: 'dai', args: [vow] } as Call,
          { address: c.vat, abi: VAT_ABI, functionName: 'sin', args: [vow] } as Call,
        ]
      : []),
    { address: c.vat, abi: VAT_ABI, functionName: 'Line' },
    { address: c.jug, abi: JUG_ABI, functionName: 'base' },
    { address: c.spot, abi: SPOT_ABI, functionName: 'par' },
    { address: c.dai, abi: TOKEN_ABI, functionName: 'totalSupply' },
    { address: c.dog, abi: DOG_ABI, functionName: 'Hole' },
    { address: c.dog, abi: DOG_ABI, functionName: 'Dirt' },
    ...perIlk,
    ...held.map(([, a]): Call => ({ address: c.dai, abi: TOKEN_ABI, functionName: 'balanceOf', args: [a] })),
    ...urnKeys.map(
      (u): Call => ({
        address: c.vat,
        abi: VAT_ABI,
        functionName: 'urns',
        args: [stringToHex(u.ilk, { size: 32 }), u.urn],
      }),
    ),
  ];
  const r = await read(source, calls, n);
  let i = 0;
  const next = () => r[i++];
  const debt = required<bigint>(next(), 'Vat.debt()');
  const vice = required<bigint>(next(), 'Vat.vice()');
  const vowDai = vow ? required<bigint>(next(), 'Vat.dai(MCD_VOW)') : null;
  const vowSin = vow ? required<bigint>(next(), 'Vat.sin(MCD_VOW)') : null;
  const Line = required<bigint>(next(), 'Vat.Line()');
  const base = required<bigint>(next(), 'Jug.base()');
  const par = required<bigint>(next(), 'Spot.par()');
  const totalSupply = required<bigint>(next(), 'DAI.totalSupply()');
  const Hole = required<bigint>(next(), 'Dog.Hole()');
  const Dirt = required<bigint>(next(), 'Dog.Dirt()');
  const ilks: Omit<MakerIlkState, 'joinBalance'>[] = ilkWords.map((w) => {
    const name = bytes32ToText(w);
    const info = required<readonly [string, string, bigint, bigint, string, string, string, string]>(
      next(),
      `IlkRegistry.info(${name})`,
    );
    const vat = required<readonly bigint[]>(next(), `Vat.ilks(${name})`);
    const spot = required<readonly [string, bigint]>(next(), `Spot.ilks(${name})`);
    const jug = required<readonly bigint[]>(next(), `Jug.ilks(${name})`);
    const dog = next() as readonly [string, bigint, bigint, bigint] | undefined;
    return {
      ilk: name,
      name: info[0],
      symbol: info[1],
      class: Number(info[2]),
      dec: Number(info[3]),
      gem: lower(info[4]),
      pip: lower(info[5]),
      join: lower(info[6]),
      clip: lower(dog?.[0] ?? info[7]),
      Art: vat[0]!,
      rate: vat[1]!,
      spot: vat[2]!,
      line: vat[3]!,
      dust: vat[4]!,
      mat: spot[1],
      duty: jug[0]!,
      // An ilk the Dog does not know (no liquidations: PSM, some RWA) has no penalty and no auction limit.
      chop: dog?.[1] ?? 0n,
      hole: dog?.[2] ?? 0n,
      dirt: dog?.[3] ?? 0n,
    };
  });
  // The join adapters' balances, once the registry named each ilk's gem and join.
  const balances = await read(
    source,
    ilks.map((x): Call => ({ address: x.gem as Address, abi: TOKEN_ABI, functionName: 'balanceOf', args: [x.join] })),
    n,
  );
  const clippers = await readClippers(source, ilks, n);
  const withBalances = ilks.map((x, k) => ({
    ...x,
    joinBalance: (balances[k] as bigint | undefined) ?? null,
    clipper: clippers[k]!,
  }));
  // The PSMs by what they are, whatever their Chainlog names, with their gems where they keep them.
  const psms = await readPsms(source, c.chainlog, c.vat, n);
  let protocolHeld = 0n;
  for (const [key] of held) protocolHeld += required<bigint>(next(), `DAI.balanceOf(${key})`);
  const urnsRead = new Map<string, UrnValue>();
  for (const u of urnKeys) {
    const [ink, art] = required<readonly [bigint, bigint]>(next(), `Vat.urns(${u.ilk}, ${u.urn})`);
    urnsRead.set(urnKey(u), { ink, art });
  }
  const merged = mergeChangedSet(plan, kept, urnsRead, touched, sameUrn);
  const urns: UrnState[] = [];
  const emptyUrns: UrnKey[] = [];
  for (const [k, v] of merged.values) {
    const u = keyOf(k);
    if (v === undefined || isEmptyUrn(v)) emptyUrns.push({ ilk: u.ilk, urn: u.urn });
    else urns.push({ ilk: u.ilk, urn: u.urn, ink: v.ink, art: v.art });
  }
  urns.sort(byIlkAndUrn);
  emptyUrns.sort(byIlkAndUrn);
  return {
    design: 'maker-mcd',
    chain: target.chain,
    protocol: target.protocol,
    blockNumber: block.number,
    timestamp: block.timestamp,
    addresses: c.chainlog,
    token: c.dai,
    vat: c.vat,
    totalSupply,
    protocolHeld,
    debt,
    vice,
    vowDai,
    vowSin,
    par,
    Line,
    base,
    Hole,
    Dirt,
    ilks: withBalances,
    psms,
    urns,
    emptyUrns,
    urnRead: {
      full: plan.full,
      base: vaults.base?.blockNumber ?? null,
      reconciledAt: plan.reconciledAt,
      read: urnKeys.length,
      drift: merged.drift.length,
    },
  };
}

/**
 * Each type's Clipper as the Dog names it (null where it names none): `buf`, `tail`, `cusp`, its Abacus `calc`, and
 * the curve at the tail, `calc.price(RAY, tail)`, asked of the Abacus itself whichever kind it is.
 */
async function readClippers(
  source: EvmSource,
  ilks: readonly Pick<MakerIlkState, 'ilk' | 'clip' | 'chop'>[],
  n: number,
): Promise<(MakerClipperState | null)[]> {
  // The Dog names a clip for the types it auctions; `chop` 0 means the Dog does not know the type (its `clip` then
  // comes from the IlkRegistry, which may name a Flipper).
  const auctioned = ilks.map((x) => x.chop > 0n && x.clip !== ZERO);
  const params = await read(
    source,
    ilks.flatMap((x, k): Call[] =>
      auctioned[k]
        ? (['buf', 'tail', 'cusp', 'calc'] as const).map((f) => ({
            address: x.clip as Address,
            abi: CLIPPER_ABI,
            functionName: f,
          }))
        : [],
    ),
    n,
  );
  let i = 0;
  const parsed = ilks.map((x, k) => {
    if (!auctioned[k]) return null;
    const [buf, tail, cusp, calc] = params.slice(i, i + 4);
    i += 4;
    return {
      buf: required<bigint>(buf, `Clipper(${x.ilk}).buf()`),
      tail: required<bigint>(tail, `Clipper(${x.ilk}).tail()`),
      cusp: required<bigint>(cusp, `Clipper(${x.ilk}).cusp()`),
      calc: lower(required<string>(calc, `Clipper(${x.ilk}).calc()`)),
    };
  });
  const curve = await read(
    source,
    parsed.flatMap((p): Call[] =>
      p ? [{ address: p.calc, abi: ABACUS_ABI, functionName: 'price', args: [RAY, p.tail] }] : [],
    ),
    n,
  );
  let j = 0;
  return parsed.map((p, k) =>
    p ? { ...p, curveAtTail: required<bigint>(curve[j++], `Abacus(${ilks[k]!.ilk}).price(RAY, tail)`) } : null,
  );
}

// ---- Liquity ----

const LIQUITY_GETTERS = [
  'stabilityPool',
  'activePool',
  'defaultPool',
  'lusdToken',
  'sortedTroves',
  'priceFeed',
  'borrowerOperationsAddress',
  'gasPoolAddress',
] as const;

export interface LiquityContracts {
  readonly troveManager: Address;
  readonly stabilityPool: Address;
  readonly lusdToken: Address;
  readonly priceFeed: Address;
  readonly borrowerOperations: Address;
  readonly gasPool: Address | undefined;
  readonly all: Readonly<Record<string, Address>>;
}

export async function resolveLiquity(
  source: EvmSource,
  troveManager: Address,
  block: number,
): Promise<LiquityContracts> {
  const r = await read(
    source,
    LIQUITY_GETTERS.map((functionName) => ({ address: troveManager, abi: TROVE_MANAGER_ABI, functionName })),
    block,
  );
  const all: Record<string, Address> = { troveManager };
  LIQUITY_GETTERS.forEach((g, i) => {
    if (r[i] !== undefined) all[g] = lower(r[i]);
  });
  const need = (g: string) => required<Address>(all[g], `TroveManager ${troveManager} ${g}()`);
  return {
    troveManager,
    stabilityPool: need('stabilityPool'),
    lusdToken: need('lusdToken'),
    priceFeed: need('priceFeed'),
    borrowerOperations: need('borrowerOperationsAddress'),
    gasPool: all.gasPoolAddress,
    all,
  };
}

/** Borrowers the TroveUpdated events named up to a block. */
export function borrowersOfEvents(events: readonly StableEventFact[]): string[] {
  const out = new Set<string>();
  for (const { event: e } of events) if (e.source === 'event' && e.kind === 'trove_updated') out.add(e.borrower);
  return [...out].sort();
}

export async function readLiquitySnapshot(
  source: EvmSource,
  target: StablecoinTarget,
  block: { number: number; timestamp: number },
  borrowers: readonly string[],
): Promise<LiquitySnapshot> {
  const c = await resolveLiquity(source, target.entryPoint, block.number);
  const n = block.number;
  const [priceRaw] = await read(
    source,
    [{ address: c.priceFeed, abi: PRICE_FEED_ABI, functionName: 'lastGoodPrice' }],
    n,
  );
  const price = required<bigint>(priceRaw, 'PriceFeed.lastGoodPrice()');
  const tm = (functionName: string, args?: readonly unknown[]): Call => ({
    address: c.troveManager,
    abi: TROVE_MANAGER_ABI,
    functionName,
    ...(args ? { args } : {}),
  });
  const r = await read(
    source,
    [
      tm('getEntireSystemColl'),
      tm('getEntireSystemDebt'),
      tm('getTCR', [price]),
      tm('checkRecoveryMode', [price]),
      { address: c.stabilityPool, abi: STABILITY_POOL_ABI, functionName: 'getTotalLUSDDeposits' },
      tm('getBorrowingRate'),
      tm('getRedemptionRate'),
      tm('getRedemptionRateWithDecay'),
      tm('BETA'),
      tm('REDEMPTION_FEE_FLOOR'),
      tm('MCR'),
      tm('CCR'),
      { address: c.lusdToken, abi: TOKEN_ABI, functionName: 'totalSupply' },
      ...(c.gasPool ? [{ address: c.lusdToken, abi: TOKEN_ABI, functionName: 'balanceOf', args: [c.gasPool] }] : []),
      ...borrowers.map((b) => tm('getEntireDebtAndColl', [b])),
    ],
    n,
  );
  let i = 0;
  const next = () => r[i++];
  const systemColl = required<bigint>(next(), 'getEntireSystemColl()');
  const systemDebt = required<bigint>(next(), 'getEntireSystemDebt()');
  const tcr = required<bigint>(next(), 'getTCR(price)');
  const recoveryMode = required<boolean>(next(), 'checkRecoveryMode(price)');
  const spDeposits = required<bigint>(next(), 'StabilityPool.getTotalLUSDDeposits()');
  const borrowingRate = required<bigint>(next(), 'getBorrowingRate()');
  const redemptionRate = required<bigint>(next(), 'getRedemptionRate()');
  const redemptionRateWithDecay = required<bigint>(next(), 'getRedemptionRateWithDecay()');
  const redemptionBeta = required<bigint>(next(), 'BETA()');
  const redemptionFeeFloor = required<bigint>(next(), 'REDEMPTION_FEE_FLOOR()');
  const mcr = required<bigint>(next(), 'MCR()');
  const ccr = required<bigint>(next(), 'CCR()');
  const totalSupply = required<bigint>(next(), 'LUSD.totalSupply()');
  const protocolHeld = c.gasPool ? required<bigint>(next(), 'LUSD.balanceOf(GasPool)') : 0n;
  const troves: TroveState[] = [];
  for (const owner of borrowers) {
    const [debt, coll] = required<readonly bigint[]>(next(), `getEntireDebtAndColl(${owner})`) as [bigint, bigint];
    if (debt !== 0n || coll !== 0n) troves.push({ owner, debt, coll });
  }
  return {
    design: 'liquity-v1',
    chain: target.chain,
    protocol: target.protocol,
    blockNumber: block.number,
    timestamp: block.timestamp,
    addresses: c.all,
    token: c.lusdToken,
    troveManager: c.troveManager,
    totalSupply,
    protocolHeld,
    systemColl,
    systemDebt,
    price,
    tcr,
    recoveryMode,
    spDeposits,
    borrowingRate,
    redemptionRate,
    redemptionRateWithDecay,
    redemptionBeta,
    redemptionFeeFloor,
    mcr,
    ccr,
    collateralToken: target.wrappedNative ?? '',
    troves,
  };
}

// ---- A protocol's snapshot ----

/**
 * The vaults a Maker snapshot at a block reads: from the stored snapshot nearest the block (below it, or above it
 * for a past day's snapshot taken after the head's) that kept its set, the vaults the notes between the two touched;
 * with none, every vault the notes up to the block named (read from the store in pages: the first snapshot only).
 */
export async function makerVaults(
  repo: StablecoinRepository,
  target: StablecoinTarget,
  block: number,
): Promise<MakerVaults> {
  const near = await repo.nearestSnapshot(target.chain, target.protocol, block);
  const base = near?.design === 'maker-mcd' ? keptUrns(near) : null;
  const range = base
    ? { from: Math.min(base.blockNumber, block), to: Math.max(base.blockNumber, block) }
    : { to: block };
  const named = new Map<string, UrnKey>();
  await repo.eachEventsPage(target.chain, target.protocol, range, URN_NOTE_KINDS, (page) =>
    addUrnsOfNotes(page, named),
  );
  return { base, touched: [...named.values()].sort(byIlkAndUrn) };
}

/**
 * The snapshot of a protocol at a block: Maker's vaults kept incrementally (`makerVaults`); Liquity's troves, every
 * borrower its stored events named up to that block.
 */
export async function readSnapshot(
  source: EvmSource,
  repo: StablecoinRepository,
  target: StablecoinTarget,
  block: { number: number; timestamp: number },
): Promise<StableSnapshot> {
  if (target.design === 'maker-mcd') {
    return readMakerSnapshot(source, target, block, await makerVaults(repo, target, block.number));
  }
  const updates = await repo.eventsUpTo(target.chain, target.protocol, block.number, ['trove_updated']);
  return readLiquitySnapshot(source, target, block, borrowersOfEvents(updates));
}
