import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRpc } from '../src/sandbox/chain/anvil.js';
import { decodeSwap, V2_SWAP, V3_SWAP } from '../src/sandbox/standins/coingecko/chain.js';
import {
  type CoingeckoStandin,
  SANDBOX_COINGECKO_KEY,
  startCoingeckoStandin,
} from '../src/sandbox/standins/coingecko/server.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';

/**
 * The CoinGecko stand-in on a real sandbox world: its supply is the chain's `totalSupply()` at the quoted hour's
 * block, and its DEX volumes are the chain's own swaps, recounted here from the node's logs independently of the
 * stand-in's reader; its prices are the world's reference prices.
 */

const hex = (n: number) => `0x${n.toString(16)}`;

describe('CoinGecko stand-in on a sandbox world', () => {
  let w: TestWorld;
  let standin: CoingeckoStandin;

  beforeAll(async () => {
    w = await smallWorld({ days: 2, scale: 0.2 });
    const view = w.world.view();
    standin = await startCoingeckoStandin({
      seed: 7,
      clock: w.clock,
      world: Promise.resolve(view),
      rpcUrl: Promise.resolve(w.world.rpcUrl),
      pollMs: 600_000,
    });
    await standin.refresh();
  }, 600_000);
  afterAll(async () => {
    await standin?.close();
    await w?.close();
  });

  it("quotes UNI at the world's price, with the chain's supply and the chain's swaps", async () => {
    const now = w.clock.nowMs();
    const hour = standin.quotedHour(now)!;
    expect(hour).toBeDefined();
    const truth = standin.truth('uniswap', now)!;
    const manifest = w.world.manifest;
    const uni = manifest.tokens.find((t) => t.symbol === 'UNI')!;
    expect(truth.priceUsd).toBe(w.world.view().hour(hour)!.prices.UNI);
    // totalSupply() at the block closing the hour, read here.
    const block = truth.block!;
    const head = await jsonRpc<{ timestamp: string }>(w.world.rpcUrl, 'eth_getBlockByNumber', [hex(block), false]);
    expect(Number.parseInt(head.timestamp, 16)).toBeLessThanOrEqual(hour + 3600);
    const raw = BigInt(
      await jsonRpc<string>(w.world.rpcUrl, 'eth_call', [{ to: uni.address, data: '0x18160ddd' }, hex(block)]),
    );
    expect(Math.abs(truth.totalSupply! / (Number(raw) / 10 ** uni.decimals) - 1)).toBeLessThan(1e-12);
    // DEX volume: every UNI pool's swaps in the 24 hours to the hour's close, at each hour's price.
    const pools = manifest.pools.filter(
      (p) =>
        p.token0.toLowerCase() === uni.address.toLowerCase() || p.token1.toLowerCase() === uni.address.toLowerCase(),
    );
    const res = await fetch(`${standin.url}/coins/uniswap/tickers?depth=true`, {
      headers: { 'x-cg-demo-api-key': SANDBOX_COINGECKO_KEY },
    });
    const tickers = (
      (await res.json()) as {
        tickers: { market: { identifier: string }; base: string; target: string; converted_volume: { usd: number } }[];
      }
    ).tickers;
    let total = 0;
    for (const pool of pools) {
      const blockOf = async (t: number) => {
        let lo = 0;
        let hi = Number.parseInt(await jsonRpc<string>(w.world.rpcUrl, 'eth_blockNumber'), 16);
        const time = async (n: number) =>
          Number.parseInt(
            (await jsonRpc<{ timestamp: string }>(w.world.rpcUrl, 'eth_getBlockByNumber', [hex(n), false])).timestamp,
            16,
          );
        if ((await time(hi)) <= t) return hi;
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if ((await time(mid)) <= t) lo = mid;
          else hi = mid;
        }
        return lo;
      };
      let usd = 0;
      for (let h = hour - 23 * 3600; h <= hour; h += 3600) {
        const price = w.world.view().hour(h)?.prices.UNI;
        if (price === undefined) continue;
        const from = (await blockOf(h)) + 1;
        const to = await blockOf(h + 3600);
        const logs = await jsonRpc<{ topics: string[]; data: string }[]>(w.world.rpcUrl, 'eth_getLogs', [
          { address: pool.address, topics: [[V2_SWAP, V3_SWAP]], fromBlock: hex(from), toBlock: hex(to) },
        ]);
        const mine = pool.token0.toLowerCase() === uni.address.toLowerCase();
        for (const log of logs) {
          const { amount0, amount1 } = decodeSwap(log);
          usd += (Number(mine ? amount0 : amount1) / 10 ** uni.decimals) * price;
        }
      }
      total += usd;
      const stated = truth.dexVolumeUsd[pool.address.toLowerCase()]!;
      expect(Math.abs(stated - usd), pool.address).toBeLessThanOrEqual(1e-9 * Math.max(1, usd));
    }
    const dexTickers = tickers.filter((t) => t.market.identifier.startsWith('uniswap_'));
    const served = dexTickers.reduce((s, t) => s + t.converted_volume.usd, 0);
    expect(dexTickers).toHaveLength(pools.length);
    expect(Math.abs(served - total)).toBeLessThanOrEqual(1e-9 * Math.max(1, total));
    expect(total).toBeGreaterThan(0);
  });
});
