import { decodeEventLog, type Hex, hexToString, parseAbi, toEventSelector, toFunctionSelector } from 'viem';
import type { EvmLog } from '../../sources/evm/index.js';
import type { StableEvent, VatNote, VatNoteKind } from './facts.js';

/**
 * The contracts the stablecoin area reads, with the ABIs of the deployed contracts (MakerDAO's multi-collateral DAI
 * and Liquity v1 as on mainnet), and the decoding of their logs. Decoding lives here so that ingestion, the tests
 * and the end-to-end check decode logs the same way.
 */

// ---- MakerDAO ----

export const CHAINLOG_ABI = parseAbi([
  'function getAddress(bytes32 key) view returns (address)',
  'function list() view returns (bytes32[])',
]);
export const VAT_ABI = parseAbi([
  'function ilks(bytes32) view returns (uint256 Art, uint256 rate, uint256 spot, uint256 line, uint256 dust)',
  'function urns(bytes32, address) view returns (uint256 ink, uint256 art)',
  'function debt() view returns (uint256)',
  'function vice() view returns (uint256)',
  'function dai(address) view returns (uint256)',
  'function sin(address) view returns (uint256)',
  'function Line() view returns (uint256)',
]);
export const SPOT_ABI = parseAbi([
  'function ilks(bytes32) view returns (address pip, uint256 mat)',
  'function par() view returns (uint256)',
  'event Poke(bytes32 ilk, bytes32 val, uint256 spot)',
]);
export const JUG_ABI = parseAbi([
  'function ilks(bytes32) view returns (uint256 duty, uint256 rho)',
  'function base() view returns (uint256)',
]);
export const DOG_ABI = parseAbi([
  'function ilks(bytes32) view returns (address clip, uint256 chop, uint256 hole, uint256 dirt)',
  'function Hole() view returns (uint256)',
  'function Dirt() view returns (uint256)',
  'event Bark(bytes32 indexed ilk, address indexed urn, uint256 ink, uint256 art, uint256 due, address clip, uint256 indexed id)',
]);
export const CLIPPER_ABI = parseAbi([
  'event Kick(uint256 indexed id, uint256 top, uint256 tab, uint256 lot, address indexed usr, address indexed kpr, uint256 coin)',
  'event Take(uint256 indexed id, uint256 max, uint256 price, uint256 owe, uint256 tab, uint256 lot, address indexed usr)',
  'event Redo(uint256 indexed id, uint256 top, uint256 tab, uint256 lot, address indexed usr, address indexed kpr, uint256 coin)',
  'function buf() view returns (uint256)',
  'function tail() view returns (uint256)',
  'function cusp() view returns (uint256)',
  'function calc() view returns (address)',
]);
/** A Clipper's price curve (LinearDecrease, StairstepExponentialDecrease, ExponentialDecrease): one function. */
export const ABACUS_ABI = parseAbi(['function price(uint256 top, uint256 dur) view returns (uint256)']);
export const ILK_REGISTRY_ABI = parseAbi([
  'function list() view returns (bytes32[])',
  'function info(bytes32 ilk) view returns (string name, string symbol, uint256 class, uint256 dec, address gem, address pip, address join, address xlip)',
]);
/**
 * The peg stability modules' getters: the classic DssPsm (makerdao/dss-psm `psm.sol`: `gemJoin`, `vat`, `ilk`, `tin`,
 * `tout`; its gems in an AuthGemJoin) and the LitePSM (makerdao/dss-lite-psm `DssLitePsm.sol`: `gem`, `pocket`,
 * `buf`, `vat`, `ilk`, `tin`, `tout`; its gems in a separate pocket, its `gemJoin()` answering itself).
 */
export const PSM_ABI = parseAbi([
  'function tin() view returns (uint256)',
  'function tout() view returns (uint256)',
  'function ilk() view returns (bytes32)',
  'function vat() view returns (address)',
  'function gemJoin() view returns (address)',
  'function gem() view returns (address)',
  'function pocket() view returns (address)',
  'function buf() view returns (uint256)',
]);
/** A classic PSM's AuthGemJoin (dss-psm `join-5-auth.sol` and kin): its gem, the gem's decimals and its ilk. */
export const GEM_JOIN_ABI = parseAbi([
  'function gem() view returns (address)',
  'function dec() view returns (uint256)',
  'function ilk() view returns (bytes32)',
]);
export const TOKEN_ABI = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function decimals() view returns (uint8)',
]);

// ---- Liquity v1 ----

export const TROVE_MANAGER_ABI = parseAbi([
  'event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 _stake, uint8 _operation)',
  'event TroveLiquidated(address indexed _borrower, uint256 _debt, uint256 _coll, uint8 _operation)',
  'event Liquidation(uint256 _liquidatedDebt, uint256 _liquidatedColl, uint256 _collGasCompensation, uint256 _LUSDGasCompensation)',
  'event Redemption(uint256 _attemptedLUSDAmount, uint256 _actualLUSDAmount, uint256 _ETHSent, uint256 _ETHFee)',
  'function stabilityPool() view returns (address)',
  'function activePool() view returns (address)',
  'function defaultPool() view returns (address)',
  'function lusdToken() view returns (address)',
  'function sortedTroves() view returns (address)',
  'function priceFeed() view returns (address)',
  'function borrowerOperationsAddress() view returns (address)',
  'function gasPoolAddress() view returns (address)',
  'function getEntireSystemColl() view returns (uint256)',
  'function getEntireSystemDebt() view returns (uint256)',
  'function getTCR(uint256 _price) view returns (uint256)',
  'function checkRecoveryMode(uint256 _price) view returns (bool)',
  'function getEntireDebtAndColl(address _borrower) view returns (uint256 debt, uint256 coll, uint256 pendingLUSDDebtReward, uint256 pendingETHReward)',
  'function getBorrowingRate() view returns (uint256)',
  'function getRedemptionRate() view returns (uint256)',
  'function getRedemptionRateWithDecay() view returns (uint256)',
  'function BETA() view returns (uint256)',
  'function REDEMPTION_FEE_FLOOR() view returns (uint256)',
  'function MCR() view returns (uint256)',
  'function CCR() view returns (uint256)',
]);
export const STABILITY_POOL_ABI = parseAbi([
  'event StabilityPoolLUSDBalanceUpdated(uint256 _newBalance)',
  'function getTotalLUSDDeposits() view returns (uint256)',
]);
export const PRICE_FEED_ABI = parseAbi([
  'event LastGoodPriceUpdated(uint256 _lastGoodPrice)',
  'function lastGoodPrice() view returns (uint256)',
]);

export const TOPICS = {
  poke: toEventSelector(SPOT_ABI[2]),
  bark: toEventSelector(DOG_ABI[3]),
  kick: toEventSelector(CLIPPER_ABI[0]),
  take: toEventSelector(CLIPPER_ABI[1]),
  redo: toEventSelector(CLIPPER_ABI[2]),
  transfer: toEventSelector(TOKEN_ABI[0]),
  troveUpdated: toEventSelector(TROVE_MANAGER_ABI[0]),
  troveLiquidated: toEventSelector(TROVE_MANAGER_ABI[1]),
  liquidation: toEventSelector(TROVE_MANAGER_ABI[2]),
  redemption: toEventSelector(TROVE_MANAGER_ABI[3]),
  spBalance: toEventSelector(STABILITY_POOL_ABI[0]),
  lastGoodPrice: toEventSelector(PRICE_FEED_ABI[0]),
} as const;

// ---- The Vat's LogNote ----

/**
 * The Vat's `note` modifier logs an anonymous event with four topics: the function selector left-aligned in 32
 * bytes, then the first three 32-byte words of the calldata; its data is the ABI encoding of a `bytes` holding the
 * first 224 bytes of the calldata (offset 0x20, length 0xe0, then the selector and up to six argument words, zero
 * padded). A generic event decoder cannot read it: the arguments are decoded here from those words.
 */
const VAT_NOTE_SIGNATURES = {
  init: 'init(bytes32)',
  fileIlk: 'file(bytes32,bytes32,uint256)',
  file: 'file(bytes32,uint256)',
  slip: 'slip(bytes32,address,int256)',
  flux: 'flux(bytes32,address,address,uint256)',
  move: 'move(address,address,uint256)',
  frob: 'frob(bytes32,address,address,address,int256,int256)',
  fork: 'fork(bytes32,address,address,int256,int256)',
  grab: 'grab(bytes32,address,address,address,int256,int256)',
  heal: 'heal(uint256)',
  suck: 'suck(address,address,uint256)',
  fold: 'fold(bytes32,address,int256)',
} as const satisfies Record<VatNoteKind, string>;

/** The selector of each noted Vat function, as topic0 (left-aligned, zero padded). */
export const VAT_NOTE_TOPICS: Readonly<Record<VatNoteKind, Hex>> = Object.fromEntries(
  Object.entries(VAT_NOTE_SIGNATURES).map(([kind, sig]) => [kind, `${toFunctionSelector(sig)}${'0'.repeat(56)}`]),
) as Record<VatNoteKind, Hex>;

const KIND_OF_TOPIC = new Map<string, VatNoteKind>(
  Object.entries(VAT_NOTE_TOPICS).map(([k, t]) => [t, k as VatNoteKind]),
);

const TWO_256 = 1n << 256n;
const TWO_255 = 1n << 255n;

/** A bytes32 name (`ETH-A`, `Line`): the bytes up to the first zero, as UTF-8. */
export function bytes32ToText(word: Hex): string {
  return hexToString(word, { size: 32 }).replace(/\0+$/, '');
}

/**
 * The argument words of a note's calldata (each a 64-hex-digit string), from its data. Throws on data that is not
 * the note's `bytes` encoding: a log that is not a note must never be read as one.
 */
export function noteWords(data: Hex): string[] {
  const hex = data.slice(2);
  if (hex.length < 128) throw new Error(`Vat note data too short (${hex.length / 2} bytes)`);
  const offset = BigInt(`0x${hex.slice(0, 64)}`);
  const length = Number(BigInt(`0x${hex.slice(64, 128)}`));
  if (offset !== 32n || length < 4 || hex.length < 128 + length * 2) {
    throw new Error(`Vat note data is not an ABI bytes payload (offset ${offset}, length ${length})`);
  }
  const calldata = hex.slice(128, 128 + length * 2);
  const args = calldata.slice(8);
  const words: string[] = [];
  for (let i = 0; i + 64 <= args.length; i += 64) words.push(args.slice(i, i + 64));
  return words;
}

/** Decodes a Vat LogNote (undefined for a log of another kind: a selector the area does not replay). */
export function decodeVatNote(log: Pick<EvmLog, 'topics' | 'data'>): VatNote | undefined {
  const kind = KIND_OF_TOPIC.get((log.topics[0] ?? '').toLowerCase());
  if (!kind) return undefined;
  const words = noteWords(log.data);
  const need = VAT_NOTE_SIGNATURES[kind].split(',').length;
  if (words.length < need) throw new Error(`Vat note ${kind}: ${words.length} argument words, needs ${need}`);
  const word = (i: number) => BigInt(`0x${words[i]}`);
  const int = (i: number) => {
    const w = word(i);
    return w >= TWO_255 ? w - TWO_256 : w;
  };
  const address = (i: number) => `0x${words[i]!.slice(24)}`.toLowerCase();
  const text = (i: number) => bytes32ToText(`0x${words[i]}`);
  switch (kind) {
    case 'init':
      return { kind, ilk: text(0) };
    case 'file':
      return { kind, what: text(0), data: word(1) };
    case 'fileIlk':
      return { kind, ilk: text(0), what: text(1), data: word(2) };
    case 'slip':
      return { kind, ilk: text(0), usr: address(1), wad: int(2) };
    case 'flux':
      return { kind, ilk: text(0), src: address(1), dst: address(2), wad: word(3) };
    case 'move':
      return { kind, src: address(0), dst: address(1), rad: word(2) };
    case 'frob':
    case 'grab':
      return { kind, ilk: text(0), u: address(1), v: address(2), w: address(3), dink: int(4), dart: int(5) };
    case 'fork':
      return { kind, ilk: text(0), src: address(1), dst: address(2), dink: int(3), dart: int(4) };
    case 'heal':
      return { kind, rad: word(0) };
    case 'suck':
      return { kind, u: address(0), v: address(1), rad: word(2) };
    case 'fold':
      return { kind, ilk: text(0), u: address(1), rate: int(2) };
  }
}

// ---- Ordinary events ----

const EVENT_ABI = parseAbi([
  'event Poke(bytes32 ilk, bytes32 val, uint256 spot)',
  'event Bark(bytes32 indexed ilk, address indexed urn, uint256 ink, uint256 art, uint256 due, address clip, uint256 indexed id)',
  'event Kick(uint256 indexed id, uint256 top, uint256 tab, uint256 lot, address indexed usr, address indexed kpr, uint256 coin)',
  'event Take(uint256 indexed id, uint256 max, uint256 price, uint256 owe, uint256 tab, uint256 lot, address indexed usr)',
  'event Redo(uint256 indexed id, uint256 top, uint256 tab, uint256 lot, address indexed usr, address indexed kpr, uint256 coin)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 _stake, uint8 _operation)',
  'event TroveLiquidated(address indexed _borrower, uint256 _debt, uint256 _coll, uint8 _operation)',
  'event Liquidation(uint256 _liquidatedDebt, uint256 _liquidatedColl, uint256 _collGasCompensation, uint256 _LUSDGasCompensation)',
  'event Redemption(uint256 _attemptedLUSDAmount, uint256 _actualLUSDAmount, uint256 _ETHSent, uint256 _ETHFee)',
  'event StabilityPoolLUSDBalanceUpdated(uint256 _newBalance)',
  'event LastGoodPriceUpdated(uint256 _lastGoodPrice)',
]);

const low = (a: unknown) => String(a).toLowerCase();

/** The union of the arguments of the area's events, by their ABI names (each event sets its own). */
interface EventArgs {
  readonly ilk: Hex;
  readonly val: Hex;
  readonly spot: bigint;
  readonly urn: string;
  readonly ink: bigint;
  readonly art: bigint;
  readonly due: bigint;
  readonly clip: string;
  readonly id: bigint;
  readonly top: bigint;
  readonly tab: bigint;
  readonly lot: bigint;
  readonly usr: string;
  readonly kpr: string;
  readonly max: bigint;
  readonly price: bigint;
  readonly owe: bigint;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly _borrower: string;
  readonly _debt: bigint;
  readonly _coll: bigint;
  readonly _stake: bigint;
  readonly _operation: number;
  readonly _liquidatedDebt: bigint;
  readonly _liquidatedColl: bigint;
  readonly _collGasCompensation: bigint;
  readonly _LUSDGasCompensation: bigint;
  readonly _attemptedLUSDAmount: bigint;
  readonly _actualLUSDAmount: bigint;
  readonly _ETHSent: bigint;
  readonly _ETHFee: bigint;
  readonly _newBalance: bigint;
  readonly _lastGoodPrice: bigint;
}

/** Decodes one of the area's ordinary events; undefined for any other log (or one whose shape does not match). */
export function decodeStableEvent(log: Pick<EvmLog, 'topics' | 'data'>): StableEvent | undefined {
  let decoded: { eventName: string; args: Record<string, unknown> };
  try {
    decoded = decodeEventLog({
      abi: EVENT_ABI,
      topics: log.topics as [Hex, ...Hex[]],
      data: log.data,
      strict: true,
    }) as unknown as typeof decoded;
  } catch {
    return undefined;
  }
  const a = decoded.args as unknown as EventArgs;
  switch (decoded.eventName) {
    case 'Poke':
      return { kind: 'poke', ilk: bytes32ToText(a.ilk as Hex), val: BigInt(a.val), spot: a.spot };
    case 'Bark':
      return {
        kind: 'bark',
        ilk: bytes32ToText(a.ilk as Hex),
        urn: low(a.urn),
        ink: a.ink,
        art: a.art,
        due: a.due,
        clip: low(a.clip),
        id: a.id,
      };
    case 'Kick':
    case 'Redo':
      return {
        kind: decoded.eventName === 'Kick' ? 'kick' : 'redo',
        id: a.id,
        top: a.top,
        tab: a.tab,
        lot: a.lot,
        usr: low(a.usr),
        kpr: low(a.kpr),
      };
    case 'Take':
      return {
        kind: 'take',
        id: a.id,
        max: a.max,
        price: a.price,
        owe: a.owe,
        tab: a.tab,
        lot: a.lot,
        usr: low(a.usr),
      };
    case 'Transfer':
      return { kind: 'transfer', from: low(a.from), to: low(a.to), value: a.value };
    case 'TroveUpdated':
      return {
        kind: 'trove_updated',
        borrower: low(a._borrower),
        debt: a._debt,
        coll: a._coll,
        stake: a._stake,
        operation: Number(a._operation),
      };
    case 'TroveLiquidated':
      return {
        kind: 'trove_liquidated',
        borrower: low(a._borrower),
        debt: a._debt,
        coll: a._coll,
        operation: Number(a._operation),
      };
    case 'Liquidation':
      return {
        kind: 'liquidation',
        debt: a._liquidatedDebt,
        coll: a._liquidatedColl,
        collGasCompensation: a._collGasCompensation,
        lusdGasCompensation: a._LUSDGasCompensation,
      };
    case 'Redemption':
      return {
        kind: 'redemption',
        attempted: a._attemptedLUSDAmount,
        actual: a._actualLUSDAmount,
        ethSent: a._ETHSent,
        ethFee: a._ETHFee,
      };
    case 'StabilityPoolLUSDBalanceUpdated':
      return { kind: 'sp_balance', balance: a._newBalance };
    case 'LastGoodPriceUpdated':
      return { kind: 'last_good_price', price: a._lastGoodPrice };
    default:
      return undefined;
  }
}
