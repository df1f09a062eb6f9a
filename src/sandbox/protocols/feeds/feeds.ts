/**
 * The sandbox's price feeds: one `FeedAggregator` (contracts/FeedAggregator.sol, our own Chainlink-style
 * aggregator: no deployable one ships on npm) per registry `chainlink` pair whose base the world trades, with the
 * registry's heartbeat and deviation threshold, and the reporter that pushes their rounds as the scenario moves.
 *
 * The reporter behaves as Chainlink's nodes do (reference/methodology.md, "Oracles"): a round is sent when the
 * reference price deviates from the newest on-chain answer by at least the threshold, or when the heartbeat has
 * elapsed since that answer, whichever comes first, and only one round is in flight per feed. A sent round reaches
 * the chain after an inclusion latency; the step's block holds what happens during the step, so a round lands in
 * the step's block when `step start + latency` falls within the step, otherwise in the first later block at or
 * after that instant (hourly history: almost always the same block; 5-second live blocks: one to a few blocks
 * later). Rarely a round is caught in an outage (congested mempool, node failover) and lands late, past the
 * heartbeat. Everything random draws from the reporter's own stream, so feeds never change what traders do.
 */
import type { Abi, Hex } from 'viem';
import { encodeDeployData, encodeFunctionData, parseAbi } from 'viem';
import { feedBaseSymbol } from '../../../registry/feeds.js';
import { registry } from '../../../registry/index.js';
import type { ManifestOracle, ManifestToken } from '../../world/manifest.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import { pow } from '../../world/pow.js';
import { Rng, seedState } from '../../world/random.js';
import type { FeedRuntimeState, OracleRuntimeState } from '../../world/state.js';
import artifact from './contracts/FeedAggregator.json' with { type: 'json' };
import proxyArtifact from './contracts/FeedProxy.json' with { type: 'json' };

/** The compiled aggregator, committed (tools/compile-contracts.mjs; contracts.test.ts keeps it in step). */
export const FEED_AGGREGATOR = { abi: artifact.abi as Abi, bytecode: artifact.bytecode as Hex };

/** The compiled proxy in front of each aggregator (what consumers read, as mainnet's EACAggregatorProxy). */
export const FEED_PROXY = { abi: proxyArtifact.abi as Abi, bytecode: proxyArtifact.bytecode as Hex };

export const feedAggregatorAbi = parseAbi([
  'function transmit(int192 answer)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
  'function decimals() view returns (uint8)',
  'event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)',
  'event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt)',
]);

/** FeedAggregator.transmit: one new round slot, the round id and two events; generous like every gas limit. */
export const FEED_ROUND_GAS = 150_000n;

/** Chainlink's USD feeds answer with 8 decimals. */
export const FEED_DECIMALS = 8;

/** The oracle whose registry pairs the sandbox deploys. */
const ORACLE = 'chainlink';

export const REPORTER = {
  /** Inclusion latency of a round: log-normal, median 12 s (about one mainnet block), log-sd 0.6. */
  latencyMedianSeconds: 12,
  latencySigma: 0.6,
  /**
   * One round in a hundred is caught in an outage and lands 30 minutes to 3 hours after it was sent: rare, yet a
   * week of an hourly feed shows one or two, which is what the staleness figures are for.
   */
  outage: { probability: 0.01, seconds: [1800, 10_800] as const },
} as const;

export interface PlannedFeed {
  readonly pair: string;
  readonly token: string;
  readonly heartbeatSeconds: number;
  readonly deviationThresholdPct: number;
}

/** The registry's Ethereum USD feeds whose base is one of the world's tokens (STETH-USD has none: not deployed). */
export function plannedFeeds(tokens: readonly { symbol: string }[]): PlannedFeed[] {
  const symbols = new Set(tokens.map((t) => t.symbol));
  const feeds = registry.protocol(ORACLE)?.oracle?.feeds ?? [];
  return feeds.flatMap((f) => {
    // ETH-USD reports WETH's price, BTC-USD WBTC's (the tokens the pools hold).
    const token = feedBaseSymbol(f.pair);
    if (f.chain !== 'ethereum' || !token || !symbols.has(token)) return [];
    return [
      { pair: f.pair, token, heartbeatSeconds: f.heartbeatSeconds, deviationThresholdPct: f.deviationThresholdPct },
    ];
  });
}

/**
 * Feeds of our own beyond the registry's pairs: one `<LST>-USD` feed per liquid staking token of the plan, the
 * lending markets' price source for it. It reports the token's market price (the depeg included, like a
 * market-price feed; mainnet's Aave prices wstETH from the exchange rate × ETH/USD instead, which a depeg does not
 * move), with an hourly heartbeat and a 0.5 % threshold like ETH-USD.
 */
export function plannedLendingFeeds(tokens: readonly { symbol: string }[]): PlannedFeed[] {
  return TOKEN_PLAN.filter((t) => t.liquidStaking && tokens.some((x) => x.symbol === t.symbol)).map((t) => ({
    pair: `${t.symbol}-USD`,
    token: t.symbol,
    heartbeatSeconds: 3600,
    deviationThresholdPct: 0.5,
  }));
}

/** `ETH / USD`: the description Chainlink's aggregators carry. */
export function feedDescription(pair: string): string {
  return pair.replace('-', ' / ');
}

export function feedDeployData(pair: string, decimals = FEED_DECIMALS): Hex {
  return encodeDeployData({
    abi: FEED_AGGREGATOR.abi,
    bytecode: FEED_AGGREGATOR.bytecode,
    args: [decimals, feedDescription(pair)],
  });
}

/** A proxy that forwards reads to `aggregator` and names it (`aggregator()`). */
export function feedProxyDeployData(aggregator: Hex): Hex {
  return encodeDeployData({ abi: FEED_PROXY.abi, bytecode: FEED_PROXY.bytecode, args: [aggregator] });
}

export function transmitData(answer: bigint): Hex {
  return encodeFunctionData({ abi: feedAggregatorAbi, functionName: 'transmit', args: [answer] });
}

/** The answer for a USD price: the price in units of 10^-decimals, rounded to the nearest. */
export function answerFor(priceUsd: number, decimals: number): bigint {
  if (!(priceUsd > 0) || !Number.isFinite(priceUsd)) throw new RangeError(`no answer for the price ${priceUsd}`);
  return BigInt(Math.round(priceUsd * pow(10, decimals)));
}

export type RoundTrigger = 'deviation' | 'heartbeat';

/**
 * Why a feed sends a round now, if it does: `deviation` when |answer − last| / |last| ≥ the threshold (exact, in
 * integers), else `heartbeat` when at least the heartbeat has passed since the newest on-chain round.
 */
export function roundTrigger(
  last: { answer: bigint; updatedAt: number },
  feed: { heartbeatSeconds: number; deviationThresholdPct: number },
  answer: bigint,
  now: number,
): RoundTrigger | undefined {
  // The threshold in parts per million: registry thresholds have at most four decimals of a percent.
  const thresholdPpm = BigInt(Math.round(feed.deviationThresholdPct * 10_000));
  const change = answer > last.answer ? answer - last.answer : last.answer - answer;
  const base = last.answer < 0n ? -last.answer : last.answer;
  if (change * 1_000_000n >= base * thresholdPpm) return 'deviation';
  if (now - last.updatedAt >= feed.heartbeatSeconds) return 'heartbeat';
  return undefined;
}

export function initialOracleState(
  seed: number,
  feeds: readonly ManifestOracle[],
  genesis: { timestamp: number; answers: readonly bigint[] },
): OracleRuntimeState {
  return {
    rng: seedState(seed, 'oracles'),
    feeds: feeds.map((f, i) => ({
      pair: f.pair,
      answer: genesis.answers[i]!.toString(),
      updatedAt: genesis.timestamp,
      pending: null,
    })),
    stats: { rounds: feeds.length, deviationRounds: 0, heartbeatRounds: 0, delayed: 0, outages: 0 },
  };
}

export interface LandingRound {
  readonly feed: ManifestOracle;
  readonly answer: bigint;
}

/**
 * One step (from, to] of the reporter over every feed: returns the rounds that land in the step's block, and
 * updates `state` (answers, in-flight rounds, stats) as if they were mined. `prices` are the reference USD prices
 * at `to`, by token symbol.
 */
export function reportStep(
  state: OracleRuntimeState,
  feeds: readonly ManifestOracle[],
  prices: Readonly<Record<string, number>>,
  from: number,
  to: number,
): LandingRound[] {
  const rng = new Rng(state.rng);
  const landing: LandingRound[] = [];
  const land = (feed: ManifestOracle, s: FeedRuntimeState, answer: bigint) => {
    landing.push({ feed, answer });
    s.answer = answer.toString();
    s.updatedAt = to;
    s.pending = null;
    state.stats.rounds += 1;
  };
  feeds.forEach((feed, i) => {
    const s = state.feeds[i];
    if (!s || s.pair !== feed.pair) throw new Error(`sandbox state: no reporter state for feed ${feed.pair}`);
    if (s.pending) {
      // One round in flight per feed: nothing new is sent until it lands.
      if (s.pending.landsAt <= to) {
        state.stats.delayed += 1;
        land(feed, s, BigInt(s.pending.answer));
      }
      return;
    }
    const price = prices[feed.token];
    if (price === undefined) return;
    const answer = answerFor(price, feed.decimals);
    const why = roundTrigger({ answer: BigInt(s.answer), updatedAt: s.updatedAt }, feed, answer, to);
    if (!why) return;
    if (why === 'deviation') state.stats.deviationRounds += 1;
    else state.stats.heartbeatRounds += 1;
    const outage = rng.chance(REPORTER.outage.probability);
    if (outage) state.stats.outages += 1;
    const latency = outage
      ? rng.uniform(...REPORTER.outage.seconds)
      : rng.logNormal(REPORTER.latencyMedianSeconds, REPORTER.latencySigma);
    const landsAt = from + latency;
    if (landsAt <= to) land(feed, s, answer);
    else s.pending = { answer: answer.toString(), landsAt };
  });
  state.rng = rng.state();
  return landing;
}

/** The manifest entries of the feeds deployed for `plan`: aggregators at `addresses`, behind `proxies`. */
export function manifestOracles(
  plan: readonly PlannedFeed[],
  addresses: readonly `0x${string}`[],
  proxies: readonly `0x${string}`[],
  startBlock: number,
): ManifestOracle[] {
  return plan.map((p, i) => ({
    oracle: ORACLE,
    pair: p.pair,
    token: p.token,
    address: addresses[i]!,
    proxy: proxies[i]!,
    heartbeatSeconds: p.heartbeatSeconds,
    deviationThresholdPct: p.deviationThresholdPct,
    decimals: FEED_DECIMALS,
    startBlock,
  }));
}

/** Genesis answers: each feed's first round reports its token's initial price. */
export function genesisAnswers(plan: readonly PlannedFeed[], tokens: readonly ManifestToken[]): bigint[] {
  return plan.map((p) => {
    const token = tokens.find((t) => t.symbol === p.token);
    if (!token) throw new Error(`sandbox plan: no token ${p.token} for feed ${p.pair}`);
    return answerFor(token.initialPriceUsd, FEED_DECIMALS);
  });
}
