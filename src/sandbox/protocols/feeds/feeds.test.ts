import { describe, expect, it } from 'vitest';
import { registry } from '../../../registry/index.js';
import type { ManifestOracle } from '../../world/manifest.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import {
  answerFor,
  FEED_AGGREGATOR,
  initialOracleState,
  manifestOracles,
  plannedFeeds,
  REPORTER,
  reportStep,
  roundTrigger,
} from './feeds.js';

describe('the feed plan', () => {
  it('deploys every registry chainlink USD pair on Ethereum whose base the world trades, with its parameters', () => {
    const plan = plannedFeeds(TOKEN_PLAN);
    expect(plan.map((f) => `${f.pair}:${f.token}`).sort()).toEqual(
      ['BTC-USD:WBTC', 'DAI-USD:DAI', 'ETH-USD:WETH', 'LINK-USD:LINK', 'USDC-USD:USDC', 'USDT-USD:USDT'].sort(),
    );
    for (const f of plan) {
      const ref = registry.oracleFeed('chainlink', f.pair)!.feed;
      expect(f.heartbeatSeconds, f.pair).toBe(ref.heartbeatSeconds);
      expect(f.deviationThresholdPct, f.pair).toBe(ref.deviationThresholdPct);
    }
  });

  it('the artifact is deployable bytecode with the aggregator interface and the real events', () => {
    expect(FEED_AGGREGATOR.bytecode.length).toBeGreaterThan(1000);
    const names = FEED_AGGREGATOR.abi.map((x) => ('name' in x ? `${x.type}:${x.name}` : x.type));
    for (const n of [
      'function:latestRoundData',
      'function:getRoundData',
      'function:latestAnswer',
      'function:latestTimestamp',
      'function:latestRound',
      'function:getAnswer',
      'function:getTimestamp',
      'function:decimals',
      'function:description',
      'function:version',
      'event:AnswerUpdated',
      'event:NewRound',
    ]) {
      expect(names).toContain(n);
    }
  });
});

describe('the reporter', () => {
  const feed = { heartbeatSeconds: 3600, deviationThresholdPct: 0.5 };

  it.each([
    { name: 'below the threshold, heartbeat not due', answer: 100_400n, now: 3599, expected: undefined },
    { name: 'exactly the threshold', answer: 100_500n, now: 10, expected: 'deviation' },
    { name: 'the threshold downwards', answer: 99_500n, now: 10, expected: 'deviation' },
    { name: 'just below it downwards', answer: 99_501n, now: 10, expected: undefined },
    { name: 'heartbeat due', answer: 100_000n, now: 3600, expected: 'heartbeat' },
    { name: 'both: deviation wins', answer: 110_000n, now: 7200, expected: 'deviation' },
  ])('$name', ({ answer, now, expected }) => {
    expect(roundTrigger({ answer: 100_000n, updatedAt: 0 }, feed, answer, now)).toBe(expected);
  });

  it('answers in 8-decimal units', () => {
    expect(answerFor(3000.123456789, 8)).toBe(300_012_345_679n);
    expect(answerFor(1, 8)).toBe(100_000_000n);
    expect(() => answerFor(0, 8)).toThrow();
  });

  const feeds: ManifestOracle[] = manifestOracles(
    [
      { pair: 'ETH-USD', token: 'WETH', heartbeatSeconds: 3600, deviationThresholdPct: 0.5 },
      { pair: 'USDC-USD', token: 'USDC', heartbeatSeconds: 86_400, deviationThresholdPct: 0.25 },
    ],
    ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002'],
    ['0x0000000000000000000000000000000000000011', '0x0000000000000000000000000000000000000012'],
    1,
  );

  /** Runs the reporter over `steps` steps of `stepSeconds` with prices from `price(t)`; returns landing times. */
  const run = (stepSeconds: number, steps: number, price: (t: number) => Record<string, number>) => {
    const state = initialOracleState(7, feeds, { timestamp: 0, answers: [300_000_000_000n, 100_000_000n] });
    const landed: Record<string, number[]> = { 'ETH-USD': [0], 'USDC-USD': [0] };
    for (let i = 0; i < steps; i++) {
      const from = i * stepSeconds;
      const to = from + stepSeconds;
      for (const r of reportStep(state, feeds, price(to), from, to)) landed[r.feed.pair]!.push(to);
    }
    return { state, landed };
  };
  const intervals = (ts: number[]) => ts.slice(1).map((t, i) => t - ts[i]!);

  it('hourly steps: the heartbeat lands every block, except the rare outage that lands late', () => {
    const { state, landed } = run(3600, 24 * 365, () => ({ WETH: 3000, USDC: 1 }));
    const eth = intervals(landed['ETH-USD']!);
    const late = eth.filter((x) => x > 3600);
    expect(eth.filter((x) => x === 3600).length / eth.length).toBeGreaterThan(0.98);
    expect(late.length).toBeGreaterThan(0);
    for (const x of late) expect(x).toBeLessThanOrEqual(3600 + REPORTER.outage.seconds[1] + 3600);
    // A stablecoin with a one-day heartbeat and a flat price: one round a day.
    const usdc = intervals(landed['USDC-USD']!);
    expect(usdc.filter((x) => x === 86_400).length / usdc.length).toBeGreaterThan(0.95);
    expect(state.stats.deviationRounds).toBe(0);
    expect(state.stats.rounds).toBe(landed['ETH-USD']!.length + landed['USDC-USD']!.length);
  });

  it('a moving price triggers deviation rounds; 5-second blocks land rounds a few blocks after they are sent', () => {
    const { state, landed } = run(5, 12 * 60 * 6, (t) => ({ WETH: 3000 * (1 + 0.02 * Math.sin(t / 600)), USDC: 1 }));
    expect(state.stats.deviationRounds).toBeGreaterThan(10);
    expect(state.stats.delayed).toBeGreaterThan(state.stats.rounds / 2);
    const eth = intervals(landed['ETH-USD']!);
    expect(Math.min(...eth)).toBeGreaterThanOrEqual(5);
  });

  it('is deterministic and JSON-serialisable between steps', () => {
    const price = (t: number) => ({ WETH: 3000 * (1 + 0.01 * Math.sin(t / 7000)), USDC: 1 });
    const a = run(3600, 500, price);
    const b = run(3600, 500, price);
    expect(JSON.parse(JSON.stringify(a.state))).toEqual(b.state);
    expect(a.landed).toEqual(b.landed);
  });
});
