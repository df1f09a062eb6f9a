import type { Transaction } from 'kysely';
import { hexToString, stringToHex } from 'viem';
import { DAY, nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/ingest.js';
import { ingest } from '../../jobs/evm/ingest.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import { type EvmSource, readCallsAt, type StateCall } from '../../sources/evm/source.js';
import type { EvmLog, Hex } from '../../sources/evm/types.js';
import { readCheckpoint } from '../../store/checkpoints.js';
import type { Database } from '../../store/schema.js';
import { type ChangedSetBase, mergeChangedSet, planChangedSet } from '../kit/changed-set.js';
import { eachTarget } from '../kit/each-target.js';
import { ingestStart } from '../kit/ingest-start.js';
import { SnapshotSchedule } from '../kit/snapshot-schedule.js';
import {
  ABACUS_ABI,
  bytes32ToText,
  CHAINLOG_ABI,
  CLIPPER_ABI,
  DOG_ABI,
  decodeStableEvent,
  decodeVatNote,
  ILK_REGISTRY_ABI,
  JUG_ABI,
  PRICE_FEED_ABI,
  SPOT_ABI,
  STABILITY_POOL_ABI,
  TOKEN_ABI,
  TOPICS,
  TROVE_MANAGER_ABI,
  VAT_ABI,
  VAT_NOTE_TOPICS,
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
import { insertEvents, rollbackStable, StablecoinRepository } from './repo.js';
import type { StablecoinTarget } from './targets.js';

/**
 * Every read of the stablecoin area from the chain, turned into facts:
 * - `StableSink`, the EVM ingest engine's sink for one protocol, in two parts with checkpoints of their own:
 *   - `protocol`, from the entry point's deployment: the logs of the contracts it names (Maker: the Vat's LogNotes,
 *     Spot `Poke`, Dog `Bark`, the Clippers' `Kick`/`Take`/`Redo`; Liquity: `TroveUpdated` of the TroveManager and
 *     BorrowerOperations, `TroveLiquidated`, `Liquidation`, `Redemption`, the Stability Pool's balance, the
 *     PriceFeed's last good price);
 *   - `transfers`, the stablecoin's `Transfer`s, from `TRANSFER_LOOKBACK` before the first ingestion (or the
 *     deployment, when later): the published week's mints and burns need no more, and a complete replay from
 *     mainnet's deployments (DAI 2019, LUSD 2021) is hundreds of millions of logs. Holders, which need the whole
 *     replay, are served only when it explains the whole supply (the sandbox's worlds: it starts with them);
 *   decoded and inserted with ON CONFLICT DO NOTHING on (chain, block, log index). A run ingests the transfers first
 *   and the protocol's logs up to where they reached, so no snapshot is taken above the transfers read;
 * - state snapshots at the ingested head (at most every `SNAPSHOT_EVERY` of chain time) and at the last block of each
 *   of the 6 previous UTC days that has none (from the node's history), read with multicall.
 */

type Address = `0x${string}`;

type Call = StateCall;

/** A new head snapshot at most this often (chain time): a state read per 10 s job run would be wasted work. */
export const SNAPSHOT_EVERY = 300;
/** The stablecoin's transfers are read from this long before the first ingestion's head (at a UTC day's start): the 7 published days and one more. */
export const TRANSFER_LOOKBACK = 8 * 86_400;
/**
 * The stablecoin area's snapshot schedule (the kit's): the head every `SNAPSHOT_EVERY`, the last block of each of
 * the 6 previous UTC days without a snapshot (the 7-day history); a day the node has no state for is a gap, tried
 * again at the next run.
 */
const STABLECOIN_SNAPSHOTS = { everySeconds: SNAPSHOT_EVERY, days: 6, toleranceSeconds: DAY };

const read = readCallsAt;

/** A value every figure needs: its absence is the source's error, never a zero. */
function required<T>(value: unknown, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what}: the call reverted or returned nothing`);
  return value as T;
}

const lower = (a: unknown) => String(a).toLowerCase() as Address;
const ZERO = '0x0000000000000000000000000000000000000000';
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

/** The Vat notes the area replays (slip, flux and move move balances no figure reads, and are the most frequent). */
const VAT_NOTES_READ: readonly Hex[] = (
  ['init', 'file', 'fileIlk', 'frob', 'grab', 'fork', 'fold', 'suck', 'heal'] as const
).map((k) => VAT_NOTE_TOPICS[k]);

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

// ---- The sink ----

/** The engine's checkpoint of a protocol's facts on a chain (its `protocol` part). */
export const stableCheckpointKey = (chain: string, protocol: string) => `stablecoin:${chain}:${protocol}`;
/** The checkpoint of its `transfers` part (the stablecoin's `Transfer`s). */
export const stableTransfersKey = (chain: string, protocol: string) => `stablecoin:${chain}:${protocol}:transfers`;

/** The two parts of a protocol's ingestion (see the top of this file). */
export type StablePart = 'protocol' | 'transfers';

/** The contracts whose logs a protocol's sink reads (resolved from the entry point at the head, each run). */
export interface LogSources {
  readonly vat?: Address;
  /** Each of the area's ordinary events, by emitting contract (the stablecoin's token apart). */
  readonly events: readonly Address[];
  /** The stablecoin (its `Transfer`s: the `transfers` part). */
  readonly token: Address;
}

export class StableSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;
  private readonly vat: Address | undefined;

  constructor(
    private readonly target: StablecoinTarget,
    readonly startBlock: number,
    private readonly sources: LogSources,
    private readonly part: StablePart = 'protocol',
  ) {
    this.key = (part === 'protocol' ? stableCheckpointKey : stableTransfersKey)(target.chain, target.protocol);
    this.vat = sources.vat?.toLowerCase() as Address | undefined;
  }

  async queries(): Promise<LogQuery[]> {
    if (this.part === 'transfers') return [{ addresses: [this.token], topics: [[TOPICS.transfer]] }];
    const out: LogQuery[] = [];
    if (this.vat) out.push({ addresses: [this.vat], topics: [VAT_NOTES_READ] });
    const topics = Object.values(TOPICS);
    if (this.sources.events.length) out.push({ addresses: [...new Set(this.sources.events)], topics: [topics] });
    return out;
  }

  async apply(
    trx: Transaction<Database>,
    _range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const events: StableEventFact[] = [];
    for (const log of logs[0] ?? []) {
      const block = ctx.blocks.get(Number(log.blockNumber));
      if (!block) throw new Error(`no block info for block ${log.blockNumber}`);
      const base = {
        chain: this.target.chain,
        protocol: this.target.protocol,
        blockNumber: Number(log.blockNumber),
        logIndex: Number(log.logIndex),
        txHash: (log.transactionHash ?? '').toLowerCase(),
        address: log.address.toLowerCase(),
        timestamp: block.timestamp,
      };
      if (this.vat && base.address === this.vat) {
        const note = decodeVatNote(log);
        if (note) events.push({ ...base, event: { source: 'vat_note', ...note } });
        continue;
      }
      const event = decodeStableEvent(log);
      if (event) events.push({ ...base, event: { source: 'event', ...event } });
    }
    await insertEvents(trx, events);
    return events.length;
  }

  /** Each part deletes only its own facts (the protocol's part its snapshots too): the other has a checkpoint of its own. */
  async rollback(trx: Transaction<Database>, afterBlock: number): Promise<void> {
    await rollbackStable(trx, this.target.chain, this.target.protocol, afterBlock, {
      token: this.token,
      part: this.part,
    });
  }

  private get token(): Address {
    return this.sources.token.toLowerCase() as Address;
  }
}

/** The contracts whose logs a Maker sink reads: the Vat, Spot, Dog, each ilk's Clipper and DAI. */
export async function makerLogSources(source: EvmSource, target: StablecoinTarget, block: number): Promise<LogSources> {
  const c = await resolveMaker(source, target.entryPoint, block);
  const [ilkList] = await read(
    source,
    [{ address: c.ilkRegistry, abi: ILK_REGISTRY_ABI, functionName: 'list' }],
    block,
  );
  const ilks = required<readonly Hex[]>(ilkList, 'IlkRegistry.list()');
  const dog = await read(
    source,
    ilks.map((w) => ({ address: c.dog, abi: DOG_ABI, functionName: 'ilks', args: [w] })),
    block,
  );
  const clippers = dog
    .map((d) => (d === undefined ? ZERO : lower((d as readonly unknown[])[0])))
    .filter((a) => a !== ZERO);
  return { vat: c.vat, events: [c.spot, c.dog, ...clippers], token: c.dai };
}

export async function liquityLogSources(
  source: EvmSource,
  target: StablecoinTarget,
  block: number,
): Promise<LogSources> {
  const c = await resolveLiquity(source, target.entryPoint, block);
  return { events: [c.troveManager, c.borrowerOperations, c.stabilityPool, c.priceFeed], token: c.lusdToken };
}

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

/** The stablecoin area's ingestion: one sink per protocol, started at the kit's `ingestStart`. */
export class StablecoinIngest {
  private readonly starts = new Map<string, number>();
  private readonly resolved = new Map<string, { time: number; sources: LogSources }>();
  private readonly schedule = new SnapshotSchedule(STABLECOIN_SNAPSHOTS);

  constructor(
    private readonly evm: EvmChains,
    private readonly targets: readonly StablecoinTarget[],
    /** Without the entry point's deployment block: how far below the head ingestion starts. */
    private readonly lookbackSeconds: number,
  ) {}

  /** Every protocol in turn; one that fails keeps its facts and fails the run after the others are done. */
  async run(ctx: JobContext): Promise<string> {
    const parts = await eachTarget(
      ctx,
      this.targets,
      (t) => `${t.chain}/${t.protocol}`,
      (t) => this.runOne(ctx, t),
    );
    return parts.join('; ');
  }

  /** The contracts whose logs a protocol's sink reads, resolved again once `SNAPSHOT_EVERY` of chain time passed. */
  private async logSources(source: EvmSource, target: StablecoinTarget, head: number): Promise<LogSources> {
    const key = stableCheckpointKey(target.chain, target.protocol);
    const cached = this.resolved.get(key);
    const time = (await source.getBlock(head))?.timestamp ?? 0;
    if (cached && time - cached.time < SNAPSHOT_EVERY) return cached.sources;
    const sources =
      target.design === 'maker-mcd'
        ? await makerLogSources(source, target, head)
        : await liquityLogSources(source, target, head);
    this.resolved.set(key, { time, sources });
    return sources;
  }

  private async runOne(ctx: JobContext, target: StablecoinTarget): Promise<string> {
    const source = this.evm.source(target.chain);
    const key = stableCheckpointKey(target.chain, target.protocol);
    let start = this.starts.get(key);
    if (start === undefined) {
      start = (
        await ingestStart(ctx, source, `${key}:start`, {
          startBlocks: [target.startBlock],
          lookbackSeconds: this.lookbackSeconds,
        })
      ).block;
      this.starts.set(key, start);
    }
    const transfersKey = stableTransfersKey(target.chain, target.protocol);
    let transfersStart = this.starts.get(transfersKey);
    if (transfersStart === undefined) {
      const back = await ingestStart(ctx, source, `${transfersKey}:start`, {
        startBlocks: [],
        lookbackSeconds: TRANSFER_LOOKBACK,
        fromUtcDayStart: true,
      });
      transfersStart = Math.max(back.block, start);
      this.starts.set(transfersKey, transfersStart);
    }
    const head = await source.blockNumber();
    const logSources = await this.logSources(source, target, head);
    const options = { signal: ctx.signal, now: () => nowSeconds(ctx.clock), log: ctx.log };
    const transfers = await ingest(source, ctx.store, new StableSink(target, transfersStart, logSources, 'transfers'), {
      ...options,
      toBlock: head,
    });
    // The protocol's logs no further than the transfers reached: a snapshot's day then has all its mints and burns.
    const reached = Math.max(transfers.to, transfersStart - 1);
    const result = await ingest(source, ctx.store, new StableSink(target, start, logSources), {
      ...options,
      toBlock: reached,
    });
    const snapshots = await this.snapshots(ctx, source, target, start);
    return (
      `${target.chain}/${target.protocol}: blocks ${result.from}–${result.to}, ${result.logs} logs, ${result.facts} facts` +
      `, transfers ${transfers.from}–${transfers.to} (${transfers.facts})` +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '') +
      (snapshots.length ? `, snapshots at ${snapshots.join(', ')}` : '')
    );
  }

  /** A snapshot at the ingested head when the newest is older than `SNAPSHOT_EVERY`, and the missing daily ones. */
  private async snapshots(ctx: JobContext, source: EvmSource, target: StablecoinTarget, start: number) {
    const repo = new StablecoinRepository(ctx.store.db);
    const checkpoint = await readCheckpoint<{ block: number }>(
      ctx.store.db,
      stableCheckpointKey(target.chain, target.protocol),
    );
    if (!checkpoint) return [];
    const head = await source.getBlock(checkpoint.block);
    if (!head) return [];
    const done = await this.schedule.take({
      log: ctx.log,
      source,
      key: `${target.chain}:${target.protocol}`,
      head,
      times: await repo.snapshotHeads(target.chain, target.protocol),
      startBlock: start,
      snapshot: async (block) => {
        const s = await readSnapshot(source, repo, target, block);
        if (s.design === 'maker-mcd' && s.urnRead?.drift) {
          ctx.log.warn(
            { protocol: target.protocol, block: s.blockNumber, base: s.urnRead.base, drift: s.urnRead.drift },
            `${target.protocol}: the reconciliation found vaults changed without a note since the base snapshot`,
          );
        }
        await repo.saveSnapshot(s);
      },
      what: target.protocol,
    });
    if (done.length) await repo.pruneSnapshots(target.chain, target.protocol);
    return done;
  }
}

/** For tests and the end-to-end check: the bytes32 word of an ilk name, and back. */
export const ilkWord = (name: string) => stringToHex(name, { size: 32 });
export const ilkName = (word: Hex) => hexToString(word, { size: 32 }).replace(/\0+$/, '');
