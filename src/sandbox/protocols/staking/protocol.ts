/**
 * The liquid staking token (a wstETH-like wrapper of our own) as a sandbox protocol: the token, its pools against
 * the underlying on the DEX, and its market-price feed (`wstETH-USD`, the lending markets' price source), all after
 * the registry feeds so that every address before it stayed what it was. Agents short of the token stake ETH into it.
 */
import { bookKey } from '../../../registry/address-book.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import { type DeployedFeeds, deployFeeds, FEEDS, feedContracts } from '../feeds/protocol.js';
import { artifactIn, type SandboxProtocol, slot } from '../protocol.js';
import { DEX } from '../uniswap/protocol.js';
import { stakedTokenPriceUsd } from './rate.js';

const LIQUID_STAKING_FEEDS = slot<DeployedFeeds>('liquid staking feeds');

export const staking: SandboxProtocol = {
  name: 'staking',
  chain: 'ethereum',
  after: ['uniswap', 'feeds'],
  phase: 'dex',
  enabled: () => true,
  deploy: async (build) => {
    const [{ stakedTokenDeployData }, { plannedLendingFeeds }] = await Promise.all([
      import('./staked-token.js'),
      import('../feeds/feeds.js'),
    ]);
    const { tokens } = build;
    const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
    tokens.forEach((token, i) => {
      const plan = TOKEN_PLAN.find((t) => t.symbol === token.symbol);
      if (!plan?.liquidStaking) return;
      const underlying = bySymbol.get(plan.liquidStaking.underlying);
      if (!underlying)
        throw new Error(`sandbox plan: no underlying ${plan.liquidStaking.underlying} for ${plan.symbol}`);
      tokens[i] = { ...token, address: build.deploy(stakedTokenDeployData(plan, underlying.address)) };
    });
    const issued = new Set(TOKEN_PLAN.filter((t) => t.liquidStaking).map((t) => t.symbol));
    build.need(DEX).seedPools((plan) => plan.tokens.some((s) => issued.has(s)));
    const feeds = await deployFeeds(build, plannedLendingFeeds(tokens));
    build.need(FEEDS).answers.push(...feeds.answers);
    build.provide(LIQUID_STAKING_FEEDS, feeds);
  },
  manifest: async (build, manifest) => {
    const [{ manifestLiquidStaking }, { manifestOracles }] = await Promise.all([
      import('./staked-token.js'),
      import('../feeds/feeds.js'),
    ]);
    const feeds = build.need(LIQUID_STAKING_FEEDS);
    const lendingFeeds = manifestOracles(feeds.plan, feeds.aggregators, feeds.proxies, build.deployBlock);
    manifest.liquidStaking = manifestLiquidStaking(manifest.tokens, manifest.pools, lendingFeeds, build.deployBlock);
    manifest.lendingFeeds = lendingFeeds;
  },
  referencePriceUsd: (token, prices, genesis, to) => {
    const lst = token.liquidStaking;
    return lst && stakedTokenPriceUsd(lst, prices[lst.underlying] ?? 0, genesis, to);
  },
  actors: async (host) => {
    const [{ stakeEthData, underlyingForTokens }, { GAS }] = await Promise.all([
      import('./staked-token.js'),
      import('../../chain/session.js'),
    ]);
    return {
      save: () => undefined,
      // Staked from the agent's ETH at the block's exchange rate (the contract mints at least `amount`).
      topUp: (agent, token, amount) => {
        const plan = token.plan?.liquidStaking;
        if (!plan) return false;
        host.session.send(agent, {
          to: token.m.address,
          data: stakeEthData(),
          value: underlyingForTokens(plan, host.manifest.genesisTimestamp, host.now, amount),
          gas: GAS.wrap * 2n,
          kind: 'fund',
        });
        return true;
      },
    };
  },
  contracts: (manifest) => [
    ...(manifest.liquidStaking ?? []).map((l) => ({
      address: l.token,
      name: 'StakedToken',
      artifact: artifactIn(import.meta.dirname, 'StakedToken'),
    })),
    ...feedContracts(manifest.lendingFeeds ?? []),
  ],
  addressBook: (manifest, book) => {
    for (const l of manifest.liquidStaking ?? []) {
      book.entries[bookKey.liquidStaking(l.protocol)] = { address: l.token.toLowerCase() };
      book.tokens[l.symbol] = { address: l.token.toLowerCase(), decimals: l.decimals };
    }
  },
};
