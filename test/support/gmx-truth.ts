/**
 * GMX v2 figures recomputed from the chain alone, for the derivatives area's GMX end-to-end tests: the EventEmitter's
 * logs read with viem and decoded with the deployed contract's own ABI (the sandbox's artifact, not the pipeline's
 * decoder), items looked up by key name, and the DataStore's keys (the sandbox's key derivation) read at a block.
 * Nothing here imports the derivatives area.
 */
import { type Address, createPublicClient, decodeEventLog, type Hex, http, type PublicClient } from 'viem';
import { GMX_ARTIFACTS, gmxAbi } from '../../src/sandbox/protocols/gmx/deploy.js';
import { GMX_KEYS } from '../../src/sandbox/protocols/gmx/keys.js';
import type { GmxSection } from '../../src/sandbox/protocols/gmx/section.js';

interface Item<T> {
  readonly key: string;
  readonly value: T;
}
interface Items<T> {
  readonly items: readonly Item<T>[];
}
interface EventData {
  readonly addressItems: Items<Address>;
  readonly uintItems: Items<bigint>;
  readonly intItems: Items<bigint>;
  readonly boolItems: Items<boolean>;
}

/** One EventEmitter event: its name, place, block time and items (read by key name). */
export interface ChainEvent {
  readonly name: string;
  readonly block: number;
  readonly logIndex: number;
  readonly timestamp: number;
  readonly data: EventData;
}

const find = <T>(e: ChainEvent, list: Items<T>, key: string): T => {
  const item = list.items.find((i) => i.key === key);
  if (!item) throw new Error(`${e.name} @${e.block}: no item ${key}`);
  return item.value;
};
export const addressItem = (e: ChainEvent, key: string) => find(e, e.data.addressItems, key).toLowerCase();
export const uintItem = (e: ChainEvent, key: string) => find(e, e.data.uintItems, key);
export const intItem = (e: ChainEvent, key: string) => find(e, e.data.intItems, key);
export const boolItem = (e: ChainEvent, key: string) => find(e, e.data.boolItems, key);

export class GmxTruth {
  readonly client: PublicClient;

  private constructor(
    rpcUrl: string,
    readonly section: GmxSection,
    /** Every event of the EventEmitter up to `head`, in chain order. */
    readonly events: readonly ChainEvent[],
    readonly head: number,
  ) {
    this.client = createPublicClient({ transport: http(rpcUrl) });
  }

  /** Reads every log of the EventEmitter from its genesis to `head` (the node's head when not given). */
  static async read(rpcUrl: string, section: GmxSection, head?: number): Promise<GmxTruth> {
    const client = createPublicClient({ transport: http(rpcUrl) });
    const to = head ?? Number(await client.getBlockNumber());
    // A few blocks per call: GMX's generic logs are large (every item carries its key name).
    const logs = [];
    for (let from = section.startBlock; from <= to; from += 4) {
      const page = await client.getLogs({
        address: section.eventEmitter,
        fromBlock: BigInt(from),
        toBlock: BigInt(Math.min(from + 3, to)),
      });
      logs.push(...page);
    }
    const times = new Map<number, number>();
    for (const b of new Set(logs.map((l) => Number(l.blockNumber)))) {
      times.set(b, Number((await client.getBlock({ blockNumber: BigInt(b) })).timestamp));
    }
    const events = logs.map((log) => {
      const d = decodeEventLog({
        abi: GMX_ARTIFACTS.EventEmitter.abi,
        data: log.data,
        topics: log.topics as [Hex, ...Hex[]],
      }) as unknown as { args: { eventName: string; eventData: EventData } };
      const block = Number(log.blockNumber);
      return {
        name: d.args.eventName,
        block,
        logIndex: log.logIndex,
        timestamp: times.get(block)!,
        data: d.args.eventData,
      };
    });
    return new GmxTruth(rpcUrl, section, events, to);
  }

  /** Position increases and decreases up to `block` (inclusive). */
  positions(block = this.head): ChainEvent[] {
    return this.events.filter(
      (e) => e.block <= block && (e.name === 'PositionIncrease' || e.name === 'PositionDecrease'),
    );
  }

  /**
   * Open interest at the end of `block` (before `before`, a place in the chain, when given), per market, collateral
   * token and side, replayed from the DataStore's own change events: each `OpenInterestUpdated` (`usd`, cost basis,
   * 30 decimals) and `OpenInterestInTokensUpdated` (`tokens`, index-token units) adds its `delta` in chain order,
   * and the running sum must equal the event's `nextValue` (a skipped or doubled event fails the replay).
   */
  replayOpenInterest(block: number, before?: { block: number; logIndex: number }) {
    const out = new Map<string, { tokens: bigint; usd: bigint }>();
    for (const e of this.events) {
      if (e.block > block) break;
      if (before && (e.block > before.block || (e.block === before.block && e.logIndex >= before.logIndex))) break;
      if (e.name !== 'OpenInterestUpdated' && e.name !== 'OpenInterestInTokensUpdated') continue;
      const key = oiKey(addressItem(e, 'market'), addressItem(e, 'collateralToken'), boolItem(e, 'isLong'));
      const field = e.name === 'OpenInterestUpdated' ? 'usd' : 'tokens';
      const now = out.get(key) ?? { tokens: 0n, usd: 0n };
      const next = now[field] + intItem(e, 'delta');
      if (next !== uintItem(e, 'nextValue'))
        throw new Error(
          `${e.name} @${e.block}/${e.logIndex} ${key}: replayed ${next}, nextValue ${uintItem(e, 'nextValue')}`,
        );
      out.set(key, { ...now, [field]: next });
    }
    return out;
  }

  /**
   * Fees of `PositionFeesCollected` events, per part, in USD with 30 decimals (prices are per token unit): each amount (collateral token units)
   * times the event's `collateralTokenPrice.min`. `liquidationFeeAmount` is there only when GMX charges it.
   */
  fees(events: readonly ChainEvent[]) {
    let position = 0n;
    let borrowing = 0n;
    let liquidation = 0n;
    for (const e of events) {
      if (e.name !== 'PositionFeesCollected') continue;
      const price = uintItem(e, 'collateralTokenPrice.min');
      position += uintItem(e, 'positionFeeAmount') * price;
      borrowing += uintItem(e, 'borrowingFeeAmount') * price;
      const liquidationFee = e.data.uintItems.items.find((i) => i.key === 'liquidationFeeAmount');
      liquidation += (liquidationFee?.value ?? 0n) * price;
    }
    return { position, borrowing, liquidation, total: position + borrowing + liquidation };
  }

  /**
   * Open interest replayed from the positions' size deltas (`PositionIncrease` adds `sizeDeltaUsd` and
   * `sizeDeltaInTokens`, `PositionDecrease` takes them off) at the end of `block`: a second, independent replay.
   */
  replayPositionSizes(block: number) {
    const out = new Map<string, { tokens: bigint; usd: bigint }>();
    for (const e of this.positions(block)) {
      const key = oiKey(addressItem(e, 'market'), addressItem(e, 'collateralToken'), boolItem(e, 'isLong'));
      const sign = e.name === 'PositionIncrease' ? 1n : -1n;
      const now = out.get(key) ?? { tokens: 0n, usd: 0n };
      out.set(key, {
        tokens: now.tokens + sign * uintItem(e, 'sizeDeltaInTokens'),
        usd: now.usd + sign * uintItem(e, 'sizeDeltaUsd'),
      });
    }
    return out;
  }

  /** The DataStore's `OPEN_INTEREST_IN_TOKENS` and `OPEN_INTEREST` of a market, collateral and side at a block. */
  async storedOpenInterest(market: Address, collateral: Address, isLong: boolean, block: number) {
    const read = (key: Hex) =>
      this.client.readContract({
        address: this.section.dataStore,
        abi: gmxAbi,
        functionName: 'getUint',
        args: [key],
        blockNumber: BigInt(block),
      }) as Promise<bigint>;
    const [tokens, usd] = await Promise.all([
      read(GMX_KEYS.openInterestInTokens(market, collateral, isLong)),
      read(GMX_KEYS.openInterest(market, collateral, isLong)),
    ]);
    return { tokens, usd };
  }

  /** The oracle's last min and max price of `token` at or before `block` (`OraclePriceUpdate`), 30 decimals. */
  oraclePrice(token: string, block: number): { min: bigint; max: bigint } {
    const last = this.events
      .filter((e) => e.name === 'OraclePriceUpdate' && e.block <= block && addressItem(e, 'token') === token)
      .at(-1);
    if (!last) throw new Error(`no OraclePriceUpdate of ${token} by block ${block}`);
    return { min: uintItem(last, 'minPrice'), max: uintItem(last, 'maxPrice') };
  }

  /** Markets of the section whose index token is `indexToken` (lowercase). */
  marketsOn(indexToken: string) {
    return this.section.markets.filter((m) => m.indexToken.toLowerCase() === indexToken);
  }
}

export const oiKey = (market: string, collateral: string, isLong: boolean) =>
  `${market.toLowerCase()}/${collateral.toLowerCase()}/${isLong}`;

/** A 30-decimal (or any) fixed-point integer as a float, exact to the float's precision. */
export const fixed = (value: bigint, decimals: number): number => {
  const scale = 10n ** BigInt(decimals);
  const whole = value / scale;
  return Number(whole) + Number(value - whole * scale) / Number(scale);
};

/**
 * One side of a market's replayed open interest as GMX's `MarketUtils.getOpenInterest` reads it: the values under
 * the long token and the short token as collateral, summed and divided by the pool divisor (2 for a single-token
 * market, whose one key is read twice).
 */
export function marketSide(
  oi: ReadonlyMap<string, { tokens: bigint; usd: bigint }>,
  m: { marketToken: string; longToken: string; shortToken: string },
  isLong: boolean,
): { tokens: bigint; usd: bigint } {
  const divisor = m.longToken.toLowerCase() === m.shortToken.toLowerCase() ? 2n : 1n;
  let tokens = 0n;
  let usd = 0n;
  for (const c of [m.longToken, m.shortToken]) {
    const v = oi.get(oiKey(m.marketToken, c, isLong));
    tokens += v?.tokens ?? 0n;
    usd += v?.usd ?? 0n;
  }
  return { tokens: tokens / divisor, usd: usd / divisor };
}
