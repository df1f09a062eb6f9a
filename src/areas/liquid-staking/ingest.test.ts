import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestClock, testStore } from '../../../test/helpers.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { Store } from '../../store/db.js';
import type { LendingMarketTarget, MarketSnapshot } from '../lending/public.js';
import { marketKey, rateKey } from './compute.js';
import { ingestExchangeRates } from './ingest.js';
import { type FactsInput, LiquidStakingRepository } from './repo.js';
import type { LiquidStakingToken } from './targets.js';

const TOKEN = '0x00000000000000000000000000000000000057e7';
const market: LendingMarketTarget = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design: 'aave-v3',
  pool: '0x00000000000000000000000000000000000000bb',
  assets: [{ address: TOKEN, symbol: 'wstETH', decimals: 18 }],
};
const lst: LiquidStakingToken = {
  chain: 'ethereum',
  protocol: 'lido',
  symbol: 'wstETH',
  token: TOKEN,
  decimals: 18,
  underlying: '0x000000000000000000000000000000000000e7e7',
  lendingMarkets: [{ protocol: 'aave', version: 'V3', baseAsset: 'USDC' }],
  dexPools: [],
};

/** Facts whose only rate blocks are the lending snapshots' (no pool holds the token). */
function facts(blocks: number[]): FactsInput {
  return {
    asOf: { blockNumber: Math.max(...blocks), timestamp: 1_800_000_000 },
    liquidStaking: [lst],
    lending: [market],
    exchangeNames: new Map(),
    pools: [],
    tokens: [],
    snapshots: [],
    swaps: [],
    syncs: [],
    prices: [],
    lendingSnapshots: new Map([[marketKey(market), blocks.map((b) => ({ blockNumber: b }) as MarketSnapshot)]]),
  };
}

/** A node at `head` that has state from block 100 on; rate = 1e18 + block. Records the blocks asked. */
function node(head: { n: number }) {
  const asked: number[] = [];
  const source = {
    chain: { id: 'ethereum' },
    blockNumber: async () => head.n,
    // The depth model with depth 5 (the source's own resolution is tested in sources/evm/finality.test.ts).
    finalBlock: async (latest: number) => ({ number: latest - 5, by: 'depth' }),
    multicall: async ({ blockNumber }: { blockNumber: bigint }) => {
      const b = Number(blockNumber);
      asked.push(b);
      return [b >= 100 ? { status: 'success', result: 10n ** 18n + BigInt(b) } : { status: 'failure' }];
    },
  };
  const evm = { source: () => source, endpoint: () => ({ id: 'ethereum', finalityDepth: 5 }) } as unknown as EvmChains;
  return { evm, asked };
}

describe('liquid staking exchange rates as facts', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  const clock = new TestClock();
  const ctx = (): JobContext => ({
    store,
    clock,
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    attempt: 1,
    notifyPublished: async () => {},
  });
  beforeEach(async () => {
    ({ store, cleanup } = testStore('sqlite'));
    await store.migrate();
  });
  afterEach(() => cleanup());

  it('reads each needed block once, re-reads those within the finality depth, stores a missing state as null', async () => {
    const head = { n: 200 };
    const { evm, asked } = node(head);
    const repo = new LiquidStakingRepository(store.db);
    expect(await ingestExchangeRates(ctx(), evm, repo, facts([50, 150, 198]))).toMatch(/3 rates read \(1 blocks/);
    expect(asked.sort()).toEqual([150, 198, 50]);
    const rates = await repo.exchangeRates(new Map([[`ethereum/${TOKEN}`, new Set([50, 150, 198])]]));
    expect(rates).toEqual(
      new Map([
        [rateKey('ethereum', TOKEN, 150), 10n ** 18n + 150n],
        [rateKey('ethereum', TOKEN, 198), 10n ** 18n + 198n],
      ]),
    );
    // Next pass: 50 (no state) and 150 (final) are not asked again; 198 is within 5 blocks of the head: re-read.
    asked.length = 0;
    await ingestExchangeRates(ctx(), evm, repo, facts([50, 150, 198]));
    expect(asked).toEqual([198]);
    head.n = 300;
    asked.length = 0;
    await ingestExchangeRates(ctx(), evm, repo, facts([50, 150, 198]));
    expect(asked).toEqual([]);
  });

  it('keeps rates no longer needed for two days, then deletes them', async () => {
    const { evm } = node({ n: 1000 });
    const repo = new LiquidStakingRepository(store.db);
    await ingestExchangeRates(ctx(), evm, repo, facts([150, 160]));
    await ingestExchangeRates(ctx(), evm, repo, facts([160, 170]));
    expect((await repo.rates('ethereum', TOKEN, [150, 160, 170])).size).toBe(3);
    clock.advance(2 * 86_400 + 1);
    await ingestExchangeRates(ctx(), evm, repo, facts([160, 170]));
    expect([...(await repo.rates('ethereum', TOKEN, [150, 160, 170])).keys()].sort()).toEqual([160, 170]);
  });
});
