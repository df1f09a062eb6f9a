/**
 * GMX v2 of the sandbox on anvil, deployed as the Arbitrum chain deploys it (its world's tokens, then GMX alone) and
 * stepped hourly through the world's first ETH crash: its events decode with GMX's published ABI (the topics of
 * `@gmx-io/sdk` 1.4.0's EventEmitter) by key name; the DataStore equals a replay of `OpenInterestUpdated` and
 * `OpenInterestInTokensUpdated` deltas and of the positions' size deltas, the single-token market keeping its open
 * interest under its one collateral key (a reader summing the long and short token's keys counts it twice); fees are
 * in collateral tokens at the event's collateral price; the crash liquidates (order type 7). A second world stepped
 * in two calls (a stop and a resume) ends in the same chain state as one stepped in one call.
 */
import { type Address, decodeEventLog, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../../test/support/anvil.js';
import { bookKey } from '../../../registry/address-book.js';
import { RpcClient } from '../../chain/rpc.js';
import { addressBookFromManifests } from '../../world/address-book.js';
import { deployWorld } from '../../world/deploy.js';
import type { WorldManifest } from '../../world/manifest.js';
import { MARKET_EVENTS } from '../../world/plan.js';
import { simulate } from '../../world/scenario.js';
import type { ScenarioState } from '../../world/state.js';
import type { GmxRuntimeState } from './actors.js';
import { GMX_ARTIFACTS, GMX_CONFIG, gmxAbi } from './deploy.js';
import { GMX_KEYS } from './keys.js';
import { gmx, gmxSectionOf } from './protocol.js';
import type { GmxSection } from './section.js';

const GENESIS = 1_699_999_200;
const HOUR = 3600;
const SEED = 5;
const HOURS = MARKET_EVENTS.ethCrash.startHour + MARKET_EVENTS.ethCrash.hours + 2;
const anvils = useAnvils();

/** The topics of GMX's EventEmitter events, from `@gmx-io/sdk` 1.4.0's ABI (build/esm/src/abis/EventEmitter.js). */
const GMX_TOPICS = {
  EventLog: '0x7e3bde2ba7aca4a8499608ca57f3b0c1c1c93ace63ffd3741a9fab204146fc9a',
  EventLog1: '0x137a44067c8961cd7e1d876f4754a5a3a75989b4552f1843fc69c3b372def160',
  EventLog2: '0x468a25a7ba624ceea6e540ad6f49171b52495b648417ae91bca21676d8a24dc5',
} as const;

let rpc: RpcClient;
let manifest: WorldManifest;
let section: GmxSection;
let state: ScenarioState;

interface Item<T> {
  readonly key: string;
  readonly value: T;
}
interface EventData {
  readonly addressItems: { readonly items: readonly Item<Address>[] };
  readonly uintItems: { readonly items: readonly Item<bigint>[] };
  readonly intItems: { readonly items: readonly Item<bigint>[] };
  readonly boolItems: { readonly items: readonly Item<boolean>[] };
}
interface Decoded {
  readonly name: string;
  readonly block: number;
  readonly data: EventData;
}

/** A value by key name, never by position. */
const item = <T>(items: readonly Item<T>[], key: string): T => {
  const found = items.find((i) => i.key === key);
  if (!found) throw new Error(`no item ${key}`);
  return found.value;
};
const addr = (e: Decoded, key: string) => item(e.data.addressItems.items, key).toLowerCase();
const uint = (e: Decoded, key: string) => item(e.data.uintItems.items, key);
const int = (e: Decoded, key: string) => item(e.data.intItems.items, key);
const bool = (e: Decoded, key: string) => item(e.data.boolItems.items, key);

async function view<T>(to: Address, functionName: string, args: readonly unknown[], block = 'latest'): Promise<T> {
  const data = await rpc.request<Hex>('eth_call', [
    { to, data: encodeFunctionData({ abi: gmxAbi, functionName, args } as never) },
    block,
  ]);
  return decodeFunctionResult({ abi: gmxAbi, functionName, data } as never) as T;
}

async function events(): Promise<Decoded[]> {
  const logs = await rpc.request<{ topics: Hex[]; data: Hex; blockNumber: Hex }[]>('eth_getLogs', [
    { address: section.eventEmitter, fromBlock: '0x0', toBlock: 'latest' },
  ]);
  return logs.map((log) => {
    const d = decodeEventLog({
      abi: GMX_ARTIFACTS.EventEmitter.abi,
      data: log.data,
      topics: log.topics as [Hex, ...Hex[]],
    }) as unknown as { args: { eventName: string; eventData: EventData } };
    return { name: d.args.eventName, block: Number(log.blockNumber), data: d.args.eventData };
  });
}

async function world(steps: readonly number[]) {
  const anvil = await anvils.start({ genesisTimestamp: GENESIS - HOUR });
  const deployed = await deployWorld(anvil.rpcUrl, {
    seed: SEED,
    startTimestamp: GENESIS,
    chain: 'arbitrum',
    protocols: [gmx],
  });
  let s = deployed.state;
  for (const until of steps) {
    s = await simulate(anvil.rpcUrl, deployed.manifest, s, GENESIS + until * HOUR, {
      stepSeconds: HOUR,
      protocols: [gmx],
    });
  }
  return { rpc: new RpcClient(anvil.rpcUrl), manifest: deployed.manifest, state: s as ScenarioState };
}

beforeAll(async () => {
  const w = await world([HOURS]);
  rpc = w.rpc;
  manifest = w.manifest;
  state = w.state;
  section = gmxSectionOf(manifest)!;
}, 600_000);

describe('GMX v2 in the sandbox (Arbitrum)', () => {
  it('names its DataStore and EventEmitter in Arbitrum’s address book, and its markets in its manifest section', async () => {
    expect(section).toBeDefined();
    const book = addressBookFromManifests([manifest]).chains.arbitrum!;
    expect(book.entries[bookKey.derivatives('gmx', 'DataStore')]?.address).toBe(section.dataStore.toLowerCase());
    expect(book.entries[bookKey.derivatives('gmx', 'EventEmitter')]?.address).toBe(section.eventEmitter.toLowerCase());
    const listed = await view<readonly Address[]>(section.dataStore, 'getAddressValuesAt', [
      GMX_KEYS.MARKET_LIST,
      0n,
      10n,
    ]);
    expect(listed.map((a) => a.toLowerCase())).toEqual(section.markets.map((m) => m.marketToken.toLowerCase()));
    const [two, single, synthetic] = section.markets;
    expect(two!.indexToken).toBe(single!.indexToken);
    expect(single!.longToken).toBe(single!.shortToken);
    expect(synthetic!.synthetic).toBe(true);
    expect(await rpc.request<Hex>('eth_getCode', [synthetic!.indexToken, 'latest'])).toBe('0x');
    expect(section.tokens.find((t) => t.symbol === 'BTC')).toMatchObject({ decimals: 8, oracleDecimals: 22 });
  });

  it('emits with GMX’s published EventEmitter ABI, every event decoded by key name', async () => {
    const abi = GMX_ARTIFACTS.EventEmitter.abi;
    const { toEventSelector } = await import('viem');
    for (const [name, topic] of Object.entries(GMX_TOPICS)) {
      const event = abi.find((x) => x.type === 'event' && x.name === name);
      expect(event && toEventSelector(event as never)).toBe(topic);
    }
    const all = await events();
    const names = new Set(all.map((e) => e.name));
    for (const n of [
      'MarketCreated',
      'OraclePriceUpdate',
      'PoolAmountUpdated',
      'PositionIncrease',
      'PositionDecrease',
      'PositionFeesCollected',
      'OpenInterestUpdated',
      'OpenInterestInTokensUpdated',
      'CumulativeBorrowingFactorUpdated',
      'FundingFeeAmountPerSizeUpdated',
    ]) {
      expect(names, n).toContain(n);
    }
    expect(state.stats.revertedUnexpected).toBe(0);
  });

  it('keeps open interest in the DataStore equal to the replay of its deltas and of the positions’ size deltas', async () => {
    const all = await events();
    const oi = new Map<string, bigint>();
    const oiTokens = new Map<string, bigint>();
    const sizes = new Map<string, bigint>();
    const k = (market: string, collateral: string, isLong: boolean) => `${market}/${collateral}/${isLong}`;
    for (const e of all) {
      if (e.name === 'OpenInterestUpdated' || e.name === 'OpenInterestInTokensUpdated') {
        const map = e.name === 'OpenInterestUpdated' ? oi : oiTokens;
        const key = k(addr(e, 'market'), addr(e, 'collateralToken'), bool(e, 'isLong'));
        map.set(key, (map.get(key) ?? 0n) + int(e, 'delta'));
        expect(map.get(key)).toBe(uint(e, 'nextValue'));
      }
      if (e.name === 'PositionIncrease' || e.name === 'PositionDecrease') {
        const key = k(addr(e, 'market'), addr(e, 'collateralToken'), bool(e, 'isLong'));
        const delta = uint(e, 'sizeDeltaUsd');
        sizes.set(key, (sizes.get(key) ?? 0n) + (e.name === 'PositionIncrease' ? delta : -delta));
      }
    }
    expect(oi.size).toBeGreaterThan(0);
    for (const m of section.markets) {
      for (const isLong of [true, false]) {
        for (const collateral of new Set([m.longToken, m.shortToken])) {
          const key = k(m.marketToken.toLowerCase(), collateral.toLowerCase(), isLong);
          const stored = await view<bigint>(section.dataStore, 'getUint', [
            GMX_KEYS.openInterest(m.marketToken, collateral, isLong),
          ]);
          const storedTokens = await view<bigint>(section.dataStore, 'getUint', [
            GMX_KEYS.openInterestInTokens(m.marketToken, collateral, isLong),
          ]);
          expect(stored, key).toBe(oi.get(key) ?? 0n);
          expect(storedTokens, key).toBe(oiTokens.get(key) ?? 0n);
          expect(stored, key).toBe(sizes.get(key) ?? 0n);
        }
        // GMX's reader sums the long and the short token's keys and halves when they are the same token.
        const byKeys = await Promise.all(
          [m.longToken, m.shortToken].map((c) =>
            view<bigint>(section.dataStore, 'getUint', [GMX_KEYS.openInterest(m.marketToken, c, isLong)]),
          ),
        );
        const divisor = m.longToken === m.shortToken ? 2n : 1n;
        expect((byKeys[0]! + byKeys[1]!) / divisor).toBe(
          await view<bigint>(section.marketEngine, 'openInterest', [m.marketToken, isLong]),
        );
      }
    }
  });

  it('charges position fees in collateral tokens at the event’s collateral price', async () => {
    const fees = (await events()).filter((e) => e.name === 'PositionFeesCollected');
    expect(fees.length).toBeGreaterThan(0);
    for (const e of fees) {
      const expected =
        (uint(e, 'tradeSizeUsd') * GMX_CONFIG.positionFeeFactor) / 10n ** 30n / uint(e, 'collateralTokenPrice.min');
      expect(uint(e, 'positionFeeAmount')).toBe(expected);
      expect(uint(e, 'feeAmountForPool') + uint(e, 'feeReceiverAmount')).toBe(
        uint(e, 'positionFeeAmount') +
          uint(e, 'borrowingFeeAmount') +
          (e.data.uintItems.items.some((i) => i.key === 'liquidationFeeAmount') ? uint(e, 'liquidationFeeAmount') : 0n),
      );
    }
  });

  it('saves the funding factor per second for the open interest it leaves (positive: longs pay shorts)', async () => {
    for (const m of section.markets) {
      const [long, short] = await Promise.all(
        [true, false].map((isLong) => view<bigint>(section.marketEngine, 'openInterest', [m.marketToken, isLong])),
      );
      const saved = await view<bigint>(section.dataStore, 'getInt', [
        GMX_KEYS.savedFundingFactorPerSecond(m.marketToken),
      ]);
      const diff = long! > short! ? long! - short! : short! - long!;
      const magnitude = long! + short! > 0n ? (GMX_CONFIG.fundingFactor * diff) / (long! + short!) : 0n;
      expect(saved, m.name).toBe(long! >= short! ? magnitude : -magnitude);
    }
    const fees = (await events()).filter((e) => e.name === 'PositionFeesCollected');
    expect(fees.some((e) => uint(e, 'fundingFeeAmount') > 0n)).toBe(true);
    expect(fees.some((e) => uint(e, 'borrowingFeeAmount') > 0n)).toBe(true);
  });

  it('liquidates on the world’s ETH crash (GMX’s Liquidation order type, 7)', async () => {
    const all = await events();
    const liquidations = all.filter((e) => e.name === 'PositionDecrease' && uint(e, 'orderType') === 7n);
    const crash = section.startBlock + MARKET_EVENTS.ethCrash.startHour;
    expect(liquidations.filter((e) => e.block >= crash).length).toBeGreaterThan(0);
    // Liquidated longs, their collateral gone below the minimum.
    expect(liquidations.some((e) => bool(e, 'isLong'))).toBe(true);
    expect((state.gmx as GmxRuntimeState).stats.liquidations).toBeGreaterThan(0);
  });

  it('resumes after a stop as if it had not stopped', async () => {
    const once = await world([4]);
    const twice = await world([2, 4]);
    expect(twice.state.gmx).toEqual(once.state.gmx);
    const head = async (w: typeof once) =>
      (await w.rpc.request<{ stateRoot: Hex }>('eth_getBlockByNumber', ['latest', false])).stateRoot;
    expect(await head(twice)).toBe(await head(once));
  }, 300_000);
});
