import { describe, expect, it } from 'vitest';
import { DAY } from '../../core/time.js';
import { tokenomicsRecord } from './compute.js';
import { type DaysArgs, tokenDays } from './days.js';
import type { TokenSnapshotFact } from './facts.js';
import { RecordCache } from './record-cache.js';
import type { TokenTarget } from './targets.js';

const T0 = Date.UTC(2026, 9, 1) / 1000;
const TOKEN = '0x00000000000000000000000000000000000000aa';
const A = '0x00000000000000000000000000000000000000a1';
const target = {
  chain: 'ethereum',
  protocol: 'uniswap',
  symbol: 'UNI',
  address: TOKEN,
  decimals: 18,
  startBlock: 1,
  labels: [],
  declaration: null,
} as unknown as TokenTarget;
const snap = (blockNumber: number, timestamp: number, totalSupply: bigint): TokenSnapshotFact => ({
  chain: 'ethereum',
  token: TOKEN,
  blockNumber,
  timestamp,
  totalSupply,
  replayedSupply: totalSupply,
  sample: [],
  contracts: [],
});
const head = T0 + 10 * DAY + 3600;
const snapshots = [
  ...Array.from({ length: 9 }, (_, d) => snap(d + 1, T0 + (d + 2) * DAY - 1, 1000n)),
  snap(99, head, 1000n),
];
const NO_POOL: DaysArgs['dexVolume'] = () => ({ value: null, reason: 'no_members', detail: 'no pool' });
const args = (cache: RecordCache, snaps = snapshots, dexVolume: DaysArgs['dexVolume'] = NO_POOL): DaysArgs => ({
  target,
  coingeckoId: null,
  ledger: { block: 99, balances: new Map([[A, 1000n]]) },
  startTimestamp: T0,
  transfers: [],
  snapshots: snaps,
  market: () => ({ market: null, tickers: null, exchanges: [] }),
  dexVolume,
  cached: (key) => cache.has(TOKEN, key),
});

describe('closed days are computed once a process (RecordCache)', () => {
  it('the second run computes the running day only, with the same records', () => {
    const cache = new RecordCache();
    let computed = 0;
    const run = (snaps = snapshots, dex = NO_POOL) =>
      cache.records(
        TOKEN,
        tokenDays(args(cache, snaps, dex)),
        (d) => {
          computed++;
          return tokenomicsRecord(d.input);
        },
        () => {
          throw new Error('no gap expected');
        },
      );
    const first = run();
    expect(computed).toBe(7);
    const second = run();
    expect(computed).toBe(8);
    expect(second).toEqual(first);
    // A closed day whose snapshot changed (a reorganisation re-took it) is computed again.
    const changed = snapshots.map((s) => (s.blockNumber === 9 ? snap(9, s.timestamp, 900n) : s));
    const third = run(changed);
    expect(computed).toBe(10);
    expect(third[1]!.supply_metrics!.total_supply_raw).toBe('900');
    // The DEX area's facts reaching the closed days (their on-chain DEX volume moves): every day computed again.
    const fourth = run(changed, () => ({ value: 12.5, reason: null, pools: 1, swaps: 2 }));
    expect(computed).toBe(17);
    expect(fourth[3]!.exchange_metrics!.dex_volume_onchain_usd).toBe(12.5);
  });

  it('fails loudly when a day says cached and the cache has not got it', () => {
    const cache = new RecordCache();
    const days = tokenDays({ ...args(cache), cached: () => true });
    expect(() =>
      cache.records(
        TOKEN,
        days,
        (d) => tokenomicsRecord(d.input),
        () => {
          throw new Error('gap');
        },
      ),
    ).toThrow(/no cached record/);
  });
});
