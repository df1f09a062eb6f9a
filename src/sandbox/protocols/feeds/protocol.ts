/**
 * The Chainlink-style price feeds as a sandbox protocol: an aggregator and its proxy per mapped registry pair, a
 * reporter that sends rounds on deviation or heartbeat, first in every block. Other protocols deploy feeds of their
 * own through `deployFeeds` (the liquid staking token's); the reporter runs them all.
 */
import type { Address } from 'viem';
import { bookKey } from '../../../registry/address-book.js';
import type { Agent } from '../../chain/agent.js';
import type { ManifestOracle } from '../../world/manifest.js';
import { pow } from '../../world/pow.js';
import {
  artifactIn,
  type DeployedContract,
  FEED_ANSWERS,
  type FeedAnswer,
  type GenesisBuild,
  type ProtocolActors,
  type SandboxProtocol,
  slot,
  type WorldHost,
} from '../protocol.js';
import type { PlannedFeed } from './feeds.js';

type FeedsModule = typeof import('./feeds.js');

/** Feeds queued on the genesis block. */
export interface DeployedFeeds {
  readonly plan: readonly PlannedFeed[];
  readonly aggregators: readonly Address[];
  readonly proxies: readonly Address[];
  /** Each feed's first round (its token's initial price). */
  readonly answers: readonly bigint[];
}

export interface FeedsBuild {
  readonly registry: DeployedFeeds;
  /** Genesis answers of every feed the reporter runs, in the state's order (the registry's first). */
  readonly answers: bigint[];
  /** The genesis answer of the registry feed reporting `symbol`. */
  answerOf(symbol: string): bigint;
}
export const FEEDS = slot<FeedsBuild>('feeds');

/**
 * Queues feeds for `plan`: the aggregators, then their proxies, then each one's first round; the proxies become the
 * tokens' price sources.
 */
export async function deployFeeds(build: GenesisBuild, plan: readonly PlannedFeed[]): Promise<DeployedFeeds> {
  const { FEED_ROUND_GAS, feedDeployData, feedProxyDeployData, genesisAnswers, transmitData } = await import(
    './feeds.js'
  );
  const aggregators = plan.map((f) => build.deploy(feedDeployData(f.pair)));
  // As on mainnet, consumers read a proxy that names the aggregator.
  const proxies = aggregators.map((a) => build.deploy(feedProxyDeployData(a)));
  const answers = genesisAnswers(plan, build.tokens);
  aggregators.forEach((address, i) => {
    build.session.send(build.deployer, {
      to: address,
      data: transmitData(answers[i]!),
      gas: FEED_ROUND_GAS,
      kind: 'oracle',
    });
  });
  plan.forEach((f, i) => {
    build.priceSources.set(f.token, proxies[i]!);
  });
  return { plan, aggregators, proxies, answers };
}

/** The contracts of `feeds`: each aggregator and its proxy. */
export function feedContracts(feeds: readonly ManifestOracle[]): DeployedContract[] {
  return feeds.flatMap((f) => [
    { address: f.address, name: 'FeedAggregator', artifact: artifactIn(import.meta.dirname, 'FeedAggregator') },
    { address: f.proxy, name: 'FeedProxy', artifact: artifactIn(import.meta.dirname, 'FeedProxy') },
  ]);
}

/** Every feed the reporter runs: the registry pairs, then other protocols' own feeds (the state's order). */
export const reportedFeeds = (m: { oracles?: ManifestOracle[]; lendingFeeds?: ManifestOracle[] }) => [
  ...(m.oracles ?? []),
  ...(m.lendingFeeds ?? []),
];

class FeedActors implements ProtocolActors {
  private readonly feeds: readonly ManifestOracle[];
  private readonly reporter: Agent;
  constructor(
    private readonly host: WorldHost,
    private readonly f: FeedsModule,
  ) {
    this.feeds = reportedFeeds(host.manifest);
    const deployer = host.agents.find((a) => a.role === 'deployer');
    if (!deployer) throw new Error('sandbox state: no deployer');
    this.reporter = deployer;
  }

  feedAnswer(symbol: string): FeedAnswer | undefined {
    const i = this.feeds.findIndex((f) => f.token === symbol);
    const feed = i >= 0 ? this.host.state.oracles?.feeds[i] : undefined;
    if (!feed) return undefined;
    return { answer: BigInt(feed.answer), decimals: this.feeds[i]!.decimals, updatedAt: feed.updatedAt };
  }

  oracleUsd(symbol: string): number {
    const i = this.feeds.findIndex((f) => f.token === symbol);
    const answer = i >= 0 ? this.host.state.oracles?.feeds[i]?.answer : undefined;
    if (answer === undefined) return this.host.state.prices[symbol] ?? 1;
    return Number(answer) / pow(10, this.feeds[i]!.decimals);
  }

  /** The feeds' rounds that land in this block, first in it (their order does not matter to anyone else). */
  step(_reading: unknown, from: number, to: number): void {
    const { state } = this.host;
    if (!this.feeds.length || !state.oracles) return;
    for (const round of this.f.reportStep(state.oracles, this.feeds, state.prices, from, to)) {
      this.host.session.send(this.reporter, {
        to: round.feed.address,
        data: this.f.transmitData(round.answer),
        gas: this.f.FEED_ROUND_GAS,
        kind: 'oracle',
      });
    }
  }

  save(): void {
    // The reporter's generator state is written into the scenario state by `reportStep` itself.
  }
}

export const feeds: SandboxProtocol = {
  name: 'feeds',
  chain: 'ethereum',
  // Feeds last among the genesis block's first part, so that every address before them stayed what it was.
  after: ['uniswap'],
  phase: 'feeds',
  enabled: () => true,
  deploy: async (build) => {
    const { plannedFeeds } = await import('./feeds.js');
    const registry = await deployFeeds(build, plannedFeeds(build.tokens));
    const answerOf = new Map(registry.plan.map((f, i) => [f.token, registry.answers[i]!]));
    build.provide(FEEDS, {
      registry,
      answers: [...registry.answers],
      answerOf: (symbol) => {
        const answer = answerOf.get(symbol);
        if (answer === undefined) throw new Error(`sandbox: no feed reports ${symbol}`);
        return answer;
      },
    });
  },
  manifest: async (build, manifest) => {
    const { manifestOracles } = await import('./feeds.js');
    const { registry } = build.need(FEEDS);
    manifest.oracles = manifestOracles(registry.plan, registry.aggregators, registry.proxies, build.deployBlock);
  },
  cast: async (build) => {
    const answers = build.genesis.find(FEEDS)?.answers;
    if (!answers) return;
    const { initialOracleState } = await import('./feeds.js');
    build.state.oracles = initialOracleState(build.seed, reportedFeeds(build.manifest), {
      timestamp: build.startTimestamp,
      answers,
    });
  },
  actors: async (host) => {
    const actors = new FeedActors(host, await import('./feeds.js'));
    host.provide(FEED_ANSWERS, {
      feedAnswer: (symbol) => actors.feedAnswer(symbol),
      oracleUsd: (symbol) => actors.oracleUsd(symbol),
    });
    return actors;
  },
  contracts: (manifest) => feedContracts(manifest.oracles ?? []),
  addressBook: (manifest, book) => {
    for (const o of manifest.oracles ?? [])
      book.entries[bookKey.feed(o.oracle, o.pair)] = { address: o.proxy.toLowerCase() };
  },
};
