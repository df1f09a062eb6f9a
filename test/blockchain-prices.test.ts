import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNativeUsdByDay } from '../src/areas/blockchain/prices.js';
import type { DexTables } from '../src/areas/dex/public.js';
import type { OracleTables } from '../src/areas/oracles/public.js';
import { loadConfig } from '../src/config/index.js';
import { addressBookFromRegistry, bookToken } from '../src/registry/address-book.js';
import { registry } from '../src/registry/index.js';
import { EvmChains } from '../src/sources/evm/chains.js';
import { SourceMap } from '../src/sources/index.js';
import { writeCheckpoint } from '../src/store/checkpoints.js';
import { testStore } from './helpers.js';

/**
 * The native asset price loader over the oracle and DEX areas' stored facts: a fresh ETH-USD round wins, the DEX's
 * WETH hour covers a day whose feed went stale, BTC reads BTC-USD, a day without either is null.
 */

const DAY1 = '2026-11-22';
const DAY2 = '2026-11-23';
const end = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000 + 86_399;

describe('loadNativeUsdByDay', () => {
  const { store, cleanup } = testStore();
  const env = {
    config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
    registry,
    book: addressBookFromRegistry(registry, ['ethereum']),
    sources: new SourceMap({
      evm: new EvmChains([{ id: 'ethereum', rpcUrl: 'http://127.0.0.1:9', finalityDepth: 64 }], {
        log: pino({ level: 'silent' }),
      }),
    }),
  };
  const feed = (pair: string) =>
    registry
      .oracles()
      .flatMap((o) => o.oracle?.feeds ?? [])
      .find((f) => f.pair === pair)!
      .address.toLowerCase();

  beforeAll(async () => {
    await store.migrate();
    const eth = feed('ETH-USD');
    const btc = feed('BTC-USD');
    await writeCheckpoint(
      store.db,
      'oracles:ethereum:feeds',
      { [eth]: { aggregator: '0xagg', decimals: 8 }, [btc]: { aggregator: '0xagg2', decimals: 8 } },
      0,
    );
    const round = (f: string, i: number, updatedAt: number, answer: bigint) => ({
      chain: 'ethereum',
      block_number: i,
      log_index: 0,
      tx_hash: `0x${i}`,
      feed: f,
      aggregator: '0xagg',
      round_id: String(i),
      answer: String(answer),
      updated_at: updatedAt,
    });
    await store.db
      .withTables<OracleTables>()
      .insertInto('oracle_rounds')
      .values([
        // Day 2: fresh at its end. Day 1: the last round is 5 hours old at its end (stale for a 1 h heartbeat).
        round(eth, 1, end(DAY1) - 5 * 3600, 300_000_000_000n),
        round(eth, 2, end(DAY2) - 600, 310_000_000_000n),
        round(btc, 3, end(DAY2) - 100, 9_000_000_000_000n),
      ])
      .execute();
    const weth = bookToken(env.book, 'ethereum', 'WETH')!.address.toLowerCase();
    await store.db
      .withTables<DexTables>()
      .insertInto('token_prices')
      .values([
        {
          chain: 'ethereum',
          token: weth,
          hour: end(DAY1) + 1 - 3600,
          price_usd: 2990,
          source: 'pools:0xp',
          confidence: 0.8,
        },
      ])
      .execute();
  });
  afterAll(cleanup);

  it('chooses per day under the price policy, never with a later price', async () => {
    const eth = await loadNativeUsdByDay(store.db, env, 'ETH', ['2026-11-21', DAY1, DAY2], end(DAY2));
    expect(eth.get(DAY2)).toEqual({ usd: 3100, source: 'oracle', confidence: 0.95 });
    expect(eth.get(DAY1)).toEqual({ usd: 2990, source: 'dex', confidence: 0.8 });
    expect(eth.get('2026-11-21')).toBeNull();
    const btc = await loadNativeUsdByDay(store.db, env, 'BTC', [DAY2], end(DAY2) - 200);
    // The BTC round came 100 s after the instant asked: the one before does not exist, so nothing is known.
    expect(btc.get(DAY2)).toBeNull();
    const later = await loadNativeUsdByDay(store.db, env, 'BTC', [DAY2], end(DAY2));
    expect(later.get(DAY2)).toEqual({ usd: 90_000, source: 'oracle', confidence: 0.95 });
  });
});
