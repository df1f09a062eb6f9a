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
   * Open interest replayed from the positions' size deltas at the end of `block`, per market, collateral token and
   * side: `tokens` (index-token units) and `usd` (cost basis, 30 decimals). Before `before` (a place in the chain)
   * when given instead.
   */
  replayOpenInterest(block: number, before?: { block: number; logIndex: number }) {
    const out = new Map<string, { tokens: bigint; usd: bigint }>();
    for (const e of this.positions(block)) {
      if (before && (e.block > before.block || (e.block === before.block && e.logIndex >= before.logIndex))) break;
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
