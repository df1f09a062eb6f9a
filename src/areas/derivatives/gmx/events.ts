import { decodeEventLog, type Hex, keccak256, parseAbi, stringToBytes, toEventSelector } from 'viem';
import type { EvmLog } from '../../../sources/evm/types.js';

/**
 * GMX v2's EventEmitter (gmx-synthetics `contracts/event/EventEmitter.sol`, `EventUtils.sol`): every event of the
 * protocol is one of three generic logs (`EventLog`, `EventLog1`, `EventLog2`: 0, 1 or 2 indexed topics besides the
 * name's hash) carrying an `EventLogData` of key–value lists per type. Items are read BY KEY NAME, never by position:
 * GMX appends and inserts items between releases (`PositionFeesCollected` adds its referral, pro and liquidation
 * items only when present), so a position is no contract. A missing key is an error naming the key and the event.
 */
export const EVENT_EMITTER_ABI = parseAbi([
  'struct AddressKeyValue { string key; address value; }',
  'struct AddressArrayKeyValue { string key; address[] value; }',
  'struct UintKeyValue { string key; uint256 value; }',
  'struct UintArrayKeyValue { string key; uint256[] value; }',
  'struct IntKeyValue { string key; int256 value; }',
  'struct IntArrayKeyValue { string key; int256[] value; }',
  'struct BoolKeyValue { string key; bool value; }',
  'struct BoolArrayKeyValue { string key; bool[] value; }',
  'struct Bytes32KeyValue { string key; bytes32 value; }',
  'struct Bytes32ArrayKeyValue { string key; bytes32[] value; }',
  'struct BytesKeyValue { string key; bytes value; }',
  'struct BytesArrayKeyValue { string key; bytes[] value; }',
  'struct StringKeyValue { string key; string value; }',
  'struct StringArrayKeyValue { string key; string[] value; }',
  'struct AddressItems { AddressKeyValue[] items; AddressArrayKeyValue[] arrayItems; }',
  'struct UintItems { UintKeyValue[] items; UintArrayKeyValue[] arrayItems; }',
  'struct IntItems { IntKeyValue[] items; IntArrayKeyValue[] arrayItems; }',
  'struct BoolItems { BoolKeyValue[] items; BoolArrayKeyValue[] arrayItems; }',
  'struct Bytes32Items { Bytes32KeyValue[] items; Bytes32ArrayKeyValue[] arrayItems; }',
  'struct BytesItems { BytesKeyValue[] items; BytesArrayKeyValue[] arrayItems; }',
  'struct StringItems { StringKeyValue[] items; StringArrayKeyValue[] arrayItems; }',
  'struct EventLogData { AddressItems addressItems; UintItems uintItems; IntItems intItems; BoolItems boolItems; Bytes32Items bytes32Items; BytesItems bytesItems; StringItems stringItems; }',
  'event EventLog(address msgSender, string eventName, string indexed eventNameHash, EventLogData eventData)',
  'event EventLog1(address msgSender, string eventName, string indexed eventNameHash, bytes32 indexed topic1, EventLogData eventData)',
  'event EventLog2(address msgSender, string eventName, string indexed eventNameHash, bytes32 indexed topic1, bytes32 indexed topic2, EventLogData eventData)',
  'function emitEventLog(string eventName, EventLogData eventData)',
  'function emitEventLog1(string eventName, bytes32 topic1, EventLogData eventData)',
  'function emitEventLog2(string eventName, bytes32 topic1, bytes32 topic2, EventLogData eventData)',
]);

/** topic0 of the three generic logs. */
export const EVENT_LOG_TOPICS: readonly Hex[] = (['EventLog', 'EventLog1', 'EventLog2'] as const).map((name) =>
  toEventSelector(EVENT_EMITTER_ABI.find((x) => x.type === 'event' && x.name === name)!),
);

/** The events the GMX part reads (topic1 of the generic logs is `keccak256(eventName)`, an indexed string). */
export const GMX_EVENT_NAMES = [
  'MarketCreated',
  'PositionIncrease',
  'PositionDecrease',
  'PositionFeesCollected',
  'OpenInterestUpdated',
  'OpenInterestInTokensUpdated',
  'PoolAmountUpdated',
  'Funding',
  'Borrowing',
] as const;
export type GmxEventName = (typeof GMX_EVENT_NAMES)[number];

export const eventNameHash = (name: string): Hex => keccak256(stringToBytes(name));
export const GMX_EVENT_NAME_HASHES: readonly Hex[] = GMX_EVENT_NAMES.map(eventNameHash);

export { ORDER_TYPE } from './facts.js';

type Items<T> = { readonly items: readonly { key: string; value: T }[] };
interface RawEventLogData {
  readonly addressItems: Items<string>;
  readonly uintItems: Items<bigint>;
  readonly intItems: Items<bigint>;
  readonly boolItems: Items<boolean>;
  readonly bytes32Items: Items<Hex>;
}

/** The items of one `EventLogData`, read by key name. */
export class EventItems {
  constructor(
    readonly eventName: string,
    private readonly data: RawEventLogData,
  ) {}

  private find<T>(list: Items<T>, kind: string, key: string): T {
    const item = list.items.find((i) => i.key === key);
    if (!item) throw new Error(`GMX ${this.eventName}: no ${kind} item "${key}"`);
    return item.value;
  }

  private has<T>(list: Items<T>, key: string): boolean {
    return list.items.some((i) => i.key === key);
  }

  address(key: string): string {
    return this.find(this.data.addressItems, 'address', key).toLowerCase();
  }
  uint(key: string): bigint {
    return this.find(this.data.uintItems, 'uint', key);
  }
  /** An optional uint item (GMX adds some only when they apply); undefined when absent. */
  uintOrUndefined(key: string): bigint | undefined {
    return this.has(this.data.uintItems, key) ? this.find(this.data.uintItems, 'uint', key) : undefined;
  }
  int(key: string): bigint {
    return this.find(this.data.intItems, 'int', key);
  }
  bool(key: string): boolean {
    return this.find(this.data.boolItems, 'bool', key);
  }
  bytes32(key: string): Hex {
    return this.find(this.data.bytes32Items, 'bytes32', key);
  }
}

/** A generic EventEmitter log: its name and items; undefined for a log that is not one of the three. */
export function decodeEventLogData(log: Pick<EvmLog, 'data' | 'topics'>): EventItems | undefined {
  if (!EVENT_LOG_TOPICS.includes(log.topics[0] as Hex)) return undefined;
  const { args } = decodeEventLog({
    abi: EVENT_EMITTER_ABI,
    data: log.data as Hex,
    topics: log.topics as [Hex, ...Hex[]],
  });
  return new EventItems(args.eventName, args.eventData as unknown as RawEventLogData);
}

/** GMX's prices: USD per smallest unit of a token, times 10^30 (`Precision.FLOAT_PRECISION`). */
export const PRICE_DECIMALS = 30;

export interface MarketCreated {
  readonly kind: 'MarketCreated';
  readonly marketToken: string;
  readonly indexToken: string;
  readonly longToken: string;
  readonly shortToken: string;
}

/** A position increase or decrease (`PositionEventUtils`): USD amounts in 30 decimals, tokens in the index's units. */
export interface PositionChange {
  readonly kind: 'PositionIncrease' | 'PositionDecrease';
  readonly account: string;
  readonly market: string;
  readonly collateralToken: string;
  readonly isLong: boolean;
  readonly sizeDeltaUsd: bigint;
  readonly sizeDeltaInTokens: bigint;
  readonly orderType: number;
  readonly executionPrice: bigint;
  readonly indexTokenPriceMin: bigint;
  readonly indexTokenPriceMax: bigint;
  readonly collateralTokenPriceMin: bigint;
  readonly collateralTokenPriceMax: bigint;
}

/** `PositionFeesCollected`: amounts in collateral token units, valued at `collateralTokenPriceMin`. */
export interface PositionFeesCollected {
  readonly kind: 'PositionFeesCollected';
  readonly market: string;
  readonly collateralToken: string;
  readonly isIncrease: boolean;
  readonly collateralTokenPriceMin: bigint;
  readonly tradeSizeUsd: bigint;
  readonly positionFeeAmount: bigint;
  readonly borrowingFeeAmount: bigint;
  readonly fundingFeeAmount: bigint;
  /** Present on liquidations only (GMX adds the liquidation items when the fee applies). */
  readonly liquidationFeeAmount: bigint;
}

/** `OpenInterestUpdated` (USD, 30 decimals, cost basis) and `OpenInterestInTokensUpdated` (index token units). */
export interface OpenInterestChange {
  readonly kind: 'OpenInterestUpdated' | 'OpenInterestInTokensUpdated';
  readonly market: string;
  readonly collateralToken: string;
  readonly isLong: boolean;
  readonly delta: bigint;
  readonly nextValue: bigint;
}

/** `PoolAmountUpdated`: the market token's holding of `token`, in that token's units. */
export interface PoolAmountChange {
  readonly kind: 'PoolAmountUpdated';
  readonly market: string;
  readonly token: string;
  readonly delta: bigint;
  readonly nextValue: bigint;
}

/**
 * `Funding` (the funding factor per second applied, magnitude only, 30 decimals: which side pays is the state's,
 * see compute.ts) and `Borrowing` (the borrowing factor per second, 30 decimals: a fee to the pool, not funding).
 */
export interface RateUpdate {
  readonly kind: 'Funding' | 'Borrowing';
  readonly market: string;
  readonly factorPerSecond: bigint;
}

export type GmxEvent =
  | MarketCreated
  | PositionChange
  | PositionFeesCollected
  | OpenInterestChange
  | PoolAmountChange
  | RateUpdate;

/** Decodes an EventEmitter log into the typed event the part reads; undefined for other events. */
export function decodeGmxEvent(log: Pick<EvmLog, 'data' | 'topics'>): GmxEvent | undefined {
  const items = decodeEventLogData(log);
  if (!items) return undefined;
  return typedEvent(items);
}

export function typedEvent(e: EventItems): GmxEvent | undefined {
  switch (e.eventName) {
    case 'MarketCreated':
      return {
        kind: 'MarketCreated',
        marketToken: e.address('marketToken'),
        indexToken: e.address('indexToken'),
        longToken: e.address('longToken'),
        shortToken: e.address('shortToken'),
      };
    case 'PositionIncrease':
    case 'PositionDecrease':
      return {
        kind: e.eventName,
        account: e.address('account'),
        market: e.address('market'),
        collateralToken: e.address('collateralToken'),
        isLong: e.bool('isLong'),
        sizeDeltaUsd: e.uint('sizeDeltaUsd'),
        sizeDeltaInTokens: e.uint('sizeDeltaInTokens'),
        orderType: Number(e.uint('orderType')),
        executionPrice: e.uint('executionPrice'),
        indexTokenPriceMin: e.uint('indexTokenPrice.min'),
        indexTokenPriceMax: e.uint('indexTokenPrice.max'),
        collateralTokenPriceMin: e.uint('collateralTokenPrice.min'),
        collateralTokenPriceMax: e.uint('collateralTokenPrice.max'),
      };
    case 'PositionFeesCollected':
      return {
        kind: 'PositionFeesCollected',
        market: e.address('market'),
        collateralToken: e.address('collateralToken'),
        isIncrease: e.bool('isIncrease'),
        collateralTokenPriceMin: e.uint('collateralTokenPrice.min'),
        tradeSizeUsd: e.uint('tradeSizeUsd'),
        positionFeeAmount: e.uint('positionFeeAmount'),
        borrowingFeeAmount: e.uint('borrowingFeeAmount'),
        fundingFeeAmount: e.uint('fundingFeeAmount'),
        liquidationFeeAmount: e.uintOrUndefined('liquidationFeeAmount') ?? 0n,
      };
    case 'OpenInterestUpdated':
    case 'OpenInterestInTokensUpdated':
      return {
        kind: e.eventName,
        market: e.address('market'),
        collateralToken: e.address('collateralToken'),
        isLong: e.bool('isLong'),
        delta: e.int('delta'),
        nextValue: e.uint('nextValue'),
      };
    case 'PoolAmountUpdated':
      return {
        kind: 'PoolAmountUpdated',
        market: e.address('market'),
        token: e.address('token'),
        delta: e.int('delta'),
        nextValue: e.uint('nextValue'),
      };
    case 'Funding':
      return { kind: 'Funding', market: e.address('market'), factorPerSecond: e.uint('fundingFactorPerSecond') };
    case 'Borrowing':
      return { kind: 'Borrowing', market: e.address('market'), factorPerSecond: e.uint('borrowingFactorPerSecond') };
    default:
      return undefined;
  }
}
