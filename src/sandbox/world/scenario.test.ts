import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { type Hex, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployWorld, RpcClient, type RpcReceipt } from './deploy.js';
import {
  depegDiscount,
  MARKET_EVENTS,
  type ManifestPool,
  POOL_PLAN,
  type PoolCharacter,
  type ScenarioState,
  type SimulationState,
  TOKEN_PLAN,
  type WorldManifest,
} from './manifest.js';
import { Rng } from './random.js';
import {
  advancePrices,
  applyMarketEvents,
  awakeShare,
  diurnalFactor,
  readPoolPrices,
  simulate,
  v2ArbitrageAmountIn,
  v3AmountToTarget,
} from './scenario.js';

// ---- pure parts ----------------------------------------------------------------------------------------------------

describe('price model', () => {
  const tokens = TOKEN_PLAN.map((t) => ({ symbol: t.symbol, volatility: t.volatility, plan: t }));
  const initial = Object.fromEntries(TOKEN_PLAN.map((t) => [t.symbol, t.initialPriceUsd]));

  it('realises each volatile token’s volatility, keeps stablecoins on the peg and correlates with the market', () => {
    const rng = Rng.fromSeed(1, 'prices');
    let prices = initial;
    const returns: Record<string, number[]> = {};
    for (let h = 0; h < 24 * 365; h++) {
      const next = advancePrices(prices, tokens, 3600, rng);
      for (const t of TOKEN_PLAN) {
        returns[t.symbol] ??= [];
        returns[t.symbol]!.push(Math.log(next[t.symbol]! / prices[t.symbol]!));
      }
      for (const t of TOKEN_PLAN.filter((x) => x.stable)) expect(Math.abs(next[t.symbol]! - 1)).toBeLessThan(0.006);
      prices = next;
    }
    const sd = (xs: number[]) => {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
    };
    // The liquid staking token has no walk of its own (applyMarketEvents prices it from WETH).
    for (const t of TOKEN_PLAN.filter((x) => !x.stable && !x.liquidStaking)) {
      expect((sd(returns[t.symbol]!) * Math.sqrt(24 * 365)) / t.volatility, t.symbol).toBeCloseTo(1, 1);
    }
    const corr = (a: number[], b: number[]) => {
      const ma = a.reduce((x, y) => x + y, 0) / a.length;
      const mb = b.reduce((x, y) => x + y, 0) / b.length;
      let cov = 0;
      for (let i = 0; i < a.length; i++) cov += (a[i]! - ma) * (b[i]! - mb);
      return cov / (a.length - 1) / (sd(a) * sd(b));
    };
    // ρ(WETH, WBTC) = 0.85 × 0.75 under the one-factor model.
    expect(corr(returns.WETH!, returns.WBTC!)).toBeCloseTo(0.85 * 0.75, 1);
  });

  it('puts the scheduled crash and depeg on top of the walk, and prices the liquid staking token from WETH', () => {
    const g = 1_700_000_000;
    const at = (h: number) => g + h * 3600;
    // The crash: WETH −14 % over hours 30–33, WBTC by its correlation's share, stablecoins untouched.
    let prices: Record<string, number> = { ...initial };
    for (let h = 29; h < 34; h++) prices = applyMarketEvents(prices, tokens, g, at(h), at(h + 1));
    expect(prices.WETH! / initial.WETH!).toBeCloseTo(1 - MARKET_EVENTS.ethCrash.drop, 10);
    expect(prices.WBTC! / initial.WBTC!).toBeCloseTo(1 - (MARKET_EVENTS.ethCrash.drop * 0.75) / 0.85, 10);
    expect(prices.USDC).toBe(initial.USDC);
    // wstETH = WETH × the exchange rate (1.18, +3.5 %/yr per whole day) × (1 − the depeg discount).
    const rateOn = (day: number) => 1.18 * (1 + (0.035 * day) / 365);
    expect(prices.wstETH! / prices.WETH!).toBeCloseTo(rateOn(1), 12);
    const inDepeg = applyMarketEvents(prices, tokens, g, at(81), at(82));
    expect(depegDiscount(82)).toBe(MARKET_EVENTS.depeg.discount);
    expect(inDepeg.wstETH! / inDepeg.WETH!).toBeCloseTo(rateOn(3) * (1 - MARKET_EVENTS.depeg.discount), 12);
    const after = applyMarketEvents(prices, tokens, g, at(119), at(120));
    expect(after.wstETH! / after.WETH!).toBeCloseTo(rateOn(5), 12);
    expect(depegDiscount(70)).toBe(0);
    expect(depegDiscount(78)).toBeGreaterThan(0);
    expect(depegDiscount(78)).toBeLessThan(MARKET_EVENTS.depeg.discount);
  });

  it('does not depend on how the span is cut when only the grid is the same', () => {
    const a = advancePrices(initial, tokens, 3600, Rng.fromSeed(2, 'prices'));
    expect(advancePrices(initial, tokens, 3600, Rng.fromSeed(2, 'prices'))).toEqual(a);
  });
});

describe('schedules', () => {
  const g = 1_000_000;
  it.each([
    [g, g + 3600, 1],
    [g + 7 * 3600, g + 9 * 3600, 0.5],
    [g + 8 * 3600, g + 8 * 3600 + 5, 0],
    [g + 3 * 86400, g + 4 * 86400, 0],
    [g + 7 * 86400 + 3600, g + 7 * 86400 + 7200, 1],
    [g + 6 * 86400, g + 8 * 86400, 8 / 48],
  ])('a dormant pool is awake for a share of [%d, %d) of %d', (from, to, share) => {
    expect(awakeShare(g, from, to)).toBeCloseTo(share, 10);
  });

  it('peaks activity at 15:00 UTC', () => {
    expect(diurnalFactor(15)).toBeCloseTo(1.4, 10);
    expect(diurnalFactor(3)).toBeCloseTo(0.6, 10);
  });
});

describe('arbitrage sizing', () => {
  it('V2: the computed input brings the constant-product price to the target', () => {
    for (const [r0, r1, target] of [
      [1e6, 3e9, 3100],
      [1e6, 3e9, 2900],
      [5e20, 1e12, 2.1e-9],
    ] as const) {
      const fee = 0.003;
      const { zeroForOne, amountIn } = v2ArbitrageAmountIn(r0, r1, target, fee);
      expect(zeroForOne).toBe(r1 / r0 > target);
      const input = amountIn * (1 - fee);
      const after = zeroForOne
        ? (r1 - (input * r1) / (r0 + input)) / (r0 + amountIn)
        : (r1 + amountIn) / (r0 - (input * r0) / (r1 + input));
      expect(after / target).toBeCloseTo(1, 2);
    }
  });

  it('V3: amounts to move within one range', () => {
    const q96 = 2n ** 96n;
    // √P from 1 to 2 with L = 1e18 takes L·Δ√P = 1e18 of token1; from 2 to 1 takes L·(1/1 − 1/2) of token0.
    expect(v3AmountToTarget(10n ** 18n, q96, 2n * q96)).toBe(10n ** 18n);
    expect(v3AmountToTarget(10n ** 18n, 2n * q96, q96)).toBe(5n * 10n ** 17n);
  });
});

// ---- on a chain ----------------------------------------------------------------------------------------------------

const ANVIL = join(
  dirname(createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')),
  'bin',
  'anvil',
);
/** An hour boundary, so that hourly blocks fall on UTC hours. */
const GENESIS = 1_699_999_200;
const DAY = 86_400;
const SEED = 7;
/** Small enough for the test budget, big enough that every character shows (small worlds keep floors on rates). */
const SCALE = 0.3;

const V2_SWAP = toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)');
const V3_SWAP = toEventSelector('Swap(address,address,int256,int256,uint160,uint128,int24)');

interface Node {
  readonly url: string;
  readonly rpc: RpcClient;
  readonly process: ChildProcess;
}

const started: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const ANSWER_UPDATED = toEventSelector('AnswerUpdated(int256,uint256,uint256)');
const NEW_ROUND = toEventSelector('NewRound(uint256,address,uint256)');

/**
 * anvil with its defaults otherwise (30 M gas limit, 1 gwei base fee): the scenario must cope with them. (Not
 * `anvil.ts`'s startAnvil, which sets the service's own flags.) When another process takes the probed port first,
 * this anvil exits: start over on another port rather than talk to someone else's node.
 */
async function startAnvil(): Promise<Node> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(ANVIL, ['--port', String(port), '--timestamp', String(GENESIS), '--silent'], {
      stdio: 'ignore',
    });
    started.push(child);
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    const url = `http://127.0.0.1:${port}`;
    const rpc = new RpcClient(url);
    for (let i = 0; !gone(); i++) {
      try {
        await rpc.request('eth_chainId');
        // Ours if it is still running a moment after answering (a losing anvil exits as soon as its bind fails).
        await new Promise((r) => setTimeout(r, 100));
        if (!gone()) return { url, rpc, process: child };
      } catch (error) {
        if (i > 400) throw error;
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    if (attempt >= 5) throw new Error(`anvil exited on start ${attempt} times (ports taken?)`);
  }
}

interface SwapSeen {
  readonly pool: string;
  /** Hours since genesis at the start of the block's hour. */
  readonly hour: number;
  readonly from: string;
}

async function swapsOf(node: Node, manifest: WorldManifest): Promise<SwapSeen[]> {
  const pools = new Set(manifest.pools.map((p) => p.address.toLowerCase()));
  const head = Number(await node.rpc.request<Hex>('eth_blockNumber'));
  const numbers = Array.from({ length: head }, (_, i) => `0x${(i + 1).toString(16)}`);
  const blocks = await node.rpc.batchResults<{ timestamp: Hex }>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] })),
  );
  const receipts = await node.rpc.batchResults<RpcReceipt[]>(
    numbers.map((n) => ({ method: 'eth_getBlockReceipts', params: [n] })),
  );
  const swaps: SwapSeen[] = [];
  receipts.forEach((list, i) => {
    const hour = Math.round((Number(blocks[i]!.timestamp) - GENESIS) / 3600) - 1;
    for (const r of list) {
      for (const log of r.logs) {
        const pool = log.address.toLowerCase();
        if (pools.has(pool) && (log.topics[0] === V2_SWAP || log.topics[0] === V3_SWAP)) {
          swaps.push({ pool, hour, from: r.from.toLowerCase() });
        }
      }
    }
  });
  return swaps;
}

describe('the sandbox world on anvil', () => {
  let a: Node;
  let b: Node;
  let manifest: WorldManifest;
  let stateA: ScenarioState;
  let stateB: ScenarioState;
  let swaps: SwapSeen[];

  beforeAll(async () => {
    [a, b] = await Promise.all([startAnvil(), startAnvil()]);
    // A: deployed and simulated for a day in one call.
    const deployedA = await deployWorld(a.url, { seed: SEED, startTimestamp: GENESIS, scale: SCALE });
    manifest = deployedA.manifest;
    stateA = (await simulate(a.url, manifest, deployedA.state, GENESIS + DAY, { stepSeconds: 3600 })) as ScenarioState;
    // B: the same world in two calls, with the state saved to JSON and read back in between (as world.ts does).
    const deployedB = await deployWorld(b.url, { seed: SEED, startTimestamp: GENESIS, scale: SCALE });
    const half = await simulate(b.url, deployedB.manifest, deployedB.state, GENESIS + DAY / 2, { stepSeconds: 3600 });
    const reloaded = JSON.parse(JSON.stringify(half)) as SimulationState;
    stateB = (await simulate(b.url, deployedB.manifest, reloaded, GENESIS + DAY, {
      stepSeconds: 3600,
    })) as ScenarioState;
    swaps = await swapsOf(a, manifest);
  }, 120_000);

  afterAll(() => {
    for (const child of started) child.kill('SIGKILL');
  });

  const poolsOf = (character: PoolCharacter): ManifestPool[] => manifest.pools.filter((p) => p.character === character);
  const hourly = (pool: ManifestPool): number[] => {
    const counts = new Array<number>(24).fill(0);
    for (const s of swaps) if (s.pool === pool.address.toLowerCase()) counts[s.hour]! += 1;
    return counts;
  };
  const senders = (pool: ManifestPool): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const s of swaps) if (s.pool === pool.address.toLowerCase()) counts.set(s.from, (counts.get(s.from) ?? 0) + 1);
    return counts;
  };
  const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

  it('deploys the four DEX deployments and every planned pool, with code at every address', async () => {
    expect(manifest.dex.map((d) => `${d.protocol} ${d.version}`)).toEqual([
      'uniswap V2',
      'uniswap V3',
      'pancakeswap V3',
      'fraxfinance V2',
    ]);
    expect(manifest.pools).toHaveLength(POOL_PLAN.length);
    expect(manifest.tokens.map((t) => [t.symbol, t.decimals])).toEqual(TOKEN_PLAN.map((t) => [t.symbol, t.decimals]));
    const addresses = [
      ...manifest.tokens.map((t) => t.address),
      ...manifest.dex.flatMap((d) => [d.factory, d.router, ...(d.positionManager ? [d.positionManager] : [])]),
      ...manifest.pools.map((p) => p.address),
    ];
    const codes = await a.rpc.batchResults<Hex>(
      addresses.map((x) => ({ method: 'eth_getCode', params: [x, 'latest'] })),
    );
    codes.forEach((code, i) => {
      expect(code.length, addresses[i]).toBeGreaterThan(100);
    });
    for (const p of manifest.pools) expect(BigInt(p.token0) < BigInt(p.token1)).toBe(true);
  });

  it('mines one block per hour with no unexpected reverts', async () => {
    expect(stateA.lastTimestamp).toBe(GENESIS + DAY);
    expect(stateA.step).toBe(24);
    expect(stateA.stats.revertedUnexpected).toBe(0);
    expect(stateA.stats.revertedTolerated).toBeLessThan(stateA.stats.swaps * 0.02);
    expect(stateA.stats.liquidityChanges).toBeGreaterThan(0);
    expect(Number(await a.rpc.request<Hex>('eth_blockNumber'))).toBe(25);
    const last = await a.rpc.request<{ timestamp: Hex }>('eth_getBlockByNumber', ['latest', false]);
    expect(Number(last.timestamp)).toBe(GENESIS + DAY);
  });

  it('deep-busy pools trade every hour, with a crowd', () => {
    for (const pool of poolsOf('deep-busy')) {
      expect(Math.min(...hourly(pool)), pool.address).toBeGreaterThanOrEqual(3);
      expect(senders(pool).size).toBeGreaterThanOrEqual(15);
    }
  });

  it('thin-steady pools trade a little most hours, by several traders', () => {
    for (const pool of poolsOf('thin-steady')) {
      const counts = hourly(pool);
      expect(counts.filter((c) => c > 0).length, pool.address).toBeGreaterThanOrEqual(14);
      expect(Math.max(...counts)).toBeLessThanOrEqual(12);
      expect(senders(pool).size).toBeGreaterThanOrEqual(3);
    }
  });

  it('bursty pools are quiet, then intense', () => {
    for (const pool of poolsOf('bursty')) {
      const counts = hourly(pool);
      expect(median(counts), pool.address).toBeLessThanOrEqual(2);
      expect(Math.max(...counts)).toBeGreaterThanOrEqual(5 * Math.max(1, median(counts)));
    }
  });

  it('single-trader pools are nearly all one address', () => {
    for (const pool of poolsOf('single-trader')) {
      const bySender = [...senders(pool).values()].sort((x, y) => y - x);
      const total = bySender.reduce((x, y) => x + y, 0);
      expect(total, pool.address).toBeGreaterThanOrEqual(24);
      expect(bySender[0]! / total).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('dormant pools trade in their first awake hours only', () => {
    for (const pool of poolsOf('dormant')) {
      const counts = hourly(pool);
      expect(
        counts.slice(0, 8).reduce((x, y) => x + y, 0),
        pool.address,
      ).toBeGreaterThanOrEqual(5);
      expect(counts.slice(8).every((c) => c === 0)).toBe(true);
    }
  });

  it('ordinary pools trade most hours', () => {
    for (const pool of poolsOf('ordinary')) {
      expect(hourly(pool).filter((c) => c > 0).length, pool.address).toBeGreaterThanOrEqual(12);
    }
  });

  it('keeps pool prices near the reference prices (the arbitrageur at work)', async () => {
    // The reference path again, from the seed alone: the price stream depends only on the seed and the step grid.
    const tokens = manifest.tokens.map((t) => ({
      symbol: t.symbol,
      volatility: t.volatility,
      plan: TOKEN_PLAN.find((p) => p.symbol === t.symbol),
    }));
    const rng = Rng.fromSeed(SEED, 'prices');
    const path = [Object.fromEntries(manifest.tokens.map((t) => [t.symbol, t.initialPriceUsd]))];
    const genesis = manifest.genesisTimestamp;
    for (let h = 0; h < 24; h++) {
      const walked = advancePrices(path.at(-1)!, tokens, 3600, rng);
      path.push(applyMarketEvents(walked, tokens, genesis, genesis + h * 3600, genesis + (h + 1) * 3600));
    }
    expect(path[24]).toEqual(stateA.prices);

    // Each pool's price at the end of the last 12 hourly blocks (block k closes hour k − 1, after the hour's trades).
    const byToken = new Map(manifest.tokens.map((t) => [t.address, t]));
    const deviations = new Map<string, number[]>();
    for (let block = 14; block <= 25; block++) {
      const prices = await readPoolPrices(a.url, manifest, block);
      const reference = path[block - 1]!;
      for (const pool of manifest.pools.filter((p) => p.character !== 'dormant')) {
        const t0 = byToken.get(pool.token0)!;
        const t1 = byToken.get(pool.token1)!;
        const expected = (reference[t0.symbol]! / reference[t1.symbol]!) * 10 ** (t1.decimals - t0.decimals);
        const label = `${pool.character} ${pool.protocol} ${pool.version} ${t0.symbol}/${t1.symbol} ${pool.fee}`;
        deviations.set(label, [
          ...(deviations.get(label) ?? []),
          Math.abs(prices.get(pool.address.toLowerCase())! / expected - 1),
        ]);
      }
    }
    // Bounds on the median and the worst of the 12 end-of-hour deviations. V2 pools float within ±fee (0.3 %) of
    // the reference plus the noise of the hour's trades; thin pools are left a percent or two off when correcting
    // them would not pay; a burst moves its pool several percent within the hour.
    const bounds: Record<Exclude<PoolCharacter, 'dormant'>, [number, number]> = {
      'deep-busy': [0.01, 0.04],
      ordinary: [0.015, 0.05],
      'single-trader': [0.015, 0.05],
      'thin-steady': [0.03, 0.05],
      bursty: [0.015, 0.12],
    };
    for (const [label, ds] of deviations) {
      const [medianBound, maxBound] = bounds[label.split(' ')[0] as keyof typeof bounds];
      expect(median(ds), label).toBeLessThan(medianBound);
      expect(Math.max(...ds), label).toBeLessThan(maxBound);
    }
  });

  it('price feeds: one per mapped registry pair, a round per heartbeat or deviation, answers near the reference', async () => {
    const feeds = manifest.oracles ?? [];
    expect(feeds.map((f) => f.pair).sort()).toEqual([
      'BTC-USD',
      'DAI-USD',
      'ETH-USD',
      'LINK-USD',
      'USDC-USD',
      'USDT-USD',
    ]);
    const logs = await a.rpc.request<{ address: string; topics: Hex[]; data: Hex; blockNumber: Hex }[]>('eth_getLogs', [
      {
        fromBlock: '0x0',
        toBlock: 'latest',
        address: feeds.map((f) => f.address),
        topics: [[ANSWER_UPDATED, NEW_ROUND]],
      },
    ]);
    const state = stateA.oracles!;
    for (const [i, feed] of feeds.entries()) {
      const mine = logs.filter((l) => l.address.toLowerCase() === feed.address.toLowerCase());
      const answers = mine.filter((l) => l.topics[0] === ANSWER_UPDATED);
      // Each round emits NewRound then AnswerUpdated with the same round id, counted from 1.
      expect(mine.filter((l) => l.topics[0] === NEW_ROUND)).toHaveLength(answers.length);
      expect(answers.map((l) => Number(BigInt(l.topics[2]!)))).toEqual(answers.map((_, k) => k + 1));
      const last = answers.at(-1)!;
      expect(BigInt(last.topics[1]!).toString(), feed.pair).toBe(state.feeds[i]!.answer);
      const answer = Number(BigInt(state.feeds[i]!.answer)) / 10 ** feed.decimals;
      const reference = stateA.prices[feed.token]!;
      expect(Math.abs(answer / reference - 1), feed.pair).toBeLessThan(0.05);
      // An hourly-heartbeat feed reports in nearly every hourly block; a daily one about once a day.
      const expected = 24 / Math.max(1, feed.heartbeatSeconds / 3600);
      expect(answers.length, feed.pair).toBeGreaterThanOrEqual(Math.floor(expected * 0.8));
    }
    expect(state.stats.deviationRounds).toBeGreaterThan(0);
  });

  it('same seed, same chain: identical head, in one call or two with a JSON round trip', async () => {
    const [headA, headB] = await Promise.all(
      [a, b].map((n) => n.rpc.request<{ hash: Hex; number: Hex }>('eth_getBlockByNumber', ['latest', false])),
    );
    expect(headB!.number).toBe(headA!.number);
    expect(headB!.hash).toBe(headA!.hash);
    expect(JSON.stringify(stateB)).toBe(JSON.stringify(stateA));
  });

  it('does a fraction of an hour’s activity per 5-second step, and stops cleanly on abort', async () => {
    const hourlyTransactions = stateB.stats.transactions / 25;
    const abort = new AbortController();
    const live = (await simulate(b.url, manifest, stateB, GENESIS + DAY + 60, {
      stepSeconds: 5,
      signal: abort.signal,
      onProgress: (done, total) => {
        expect(total).toBe(12);
        if (done === 10) abort.abort();
      },
    })) as ScenarioState;
    expect(live.lastTimestamp).toBe(GENESIS + DAY + 50);
    expect(live.step).toBe(stateB.step + 10);
    expect(live.stats.transactions - stateB.stats.transactions).toBeLessThan(hourlyTransactions / 4);
    const head = await b.rpc.request<{ timestamp: Hex; number: Hex }>('eth_getBlockByNumber', ['latest', false]);
    expect(Number(head.timestamp)).toBe(live.lastTimestamp);
    expect(Number(head.number)).toBe(35);
    // The input state is left as it was.
    expect(stateB.lastTimestamp).toBe(GENESIS + DAY);
  });
});
