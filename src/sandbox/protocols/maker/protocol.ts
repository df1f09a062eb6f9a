/**
 * MakerDAO (the testchain's MCD deployment, loaded under its own addresses) as a sandbox protocol, with the
 * stablecoins (`SANDBOX_STABLECOINS`). It issues the world's DAI (issue 26, "one DAI"): its genesis calls, from its
 * own deployer, come first of the protocols' (`issue`), and it funds the pools' DAI seeds and every agent's DAI
 * top-up with vault draws (`draw.ts`); its keeper, vault owners and DAI/USDC market maker act after the other
 * lenders.
 */
import type { Address } from 'viem';
import { bookKey } from '../../../registry/address-book.js';
import type { ManifestDex, ManifestToken, WorldManifest } from '../../world/manifest.js';
import { addGenesisFunds, artifactIn, FEED_ANSWERS, type SandboxProtocol, slot } from '../protocol.js';
import { DEX } from '../uniswap/protocol.js';
import type { MakerActors } from './actors.js';
import type { QueuedMaker } from './deploy.js';
import type { MakerSnapshot } from './snapshot.js';

const MAKER = slot<QueuedMaker>('maker');

/** The DAI/USDC pair of Maker's DAI on Uniswap V2 (seeded by the Maker actors at their first step). None without those. */
async function makerPool(
  dai: Address,
  tokens: readonly ManifestToken[],
  dexes: readonly ManifestDex[],
): Promise<Pick<NonNullable<WorldManifest['maker']>, 'pool'>> {
  const { sortTokens, v2PairAddress } = await import('../uniswap/artifacts.js');
  const usdc = tokens.find((t) => t.symbol === 'USDC');
  const dex = dexes.find((d) => d.protocol === 'uniswap' && d.version === 'V2');
  if (!usdc || !dex) return {};
  const [token0, token1] = sortTokens(dai, usdc.address);
  return {
    pool: {
      address: v2PairAddress(dex.factory, dai, usdc.address),
      factory: dex.factory,
      router: dex.router,
      token0,
      token1,
      usdc: usdc.address,
      usdcDecimals: usdc.decimals,
    },
  };
}

export const maker: SandboxProtocol = {
  name: 'maker',
  chain: 'ethereum',
  after: ['uniswap', 'feeds', 'liquity'],
  phase: 'lending',
  enabled: (switches) => switches.stablecoins,
  // The snapshot is read (gunzip on zlib's pool) while the world's own transactions are built.
  prepare: async () => (await import('./deploy.js')).prepareMaker(),
  // The world's DAI is Maker's (issue 26, "one DAI"): its setup comes first in the genesis block, so that the pools'
  // DAI seeds are drawn from a vault (the pips take the feeds' genesis answers, the same the feeds report).
  issues: ['DAI'],
  issue: async (build, prepared) => {
    const [{ queueMaker }, { genesisAnswers, plannedFeeds }, { queueDaiDraw }, { vatAbi }] = await Promise.all([
      import('./deploy.js'),
      import('../feeds/feeds.js'),
      import('./draw.js'),
      import('./abis.js'),
    ]);
    const snapshot = await (prepared as Promise<MakerSnapshot>);
    const dai = build.tokens.find((t) => t.symbol === 'DAI');
    const daiAddress = snapshot.addresses.MCD_DAI;
    if (!dai || !daiAddress) throw new Error('maker: the world has no DAI, or the snapshot no MCD_DAI');
    dai.address = daiAddress;
    const plan = plannedFeeds(build.tokens);
    const answers = genesisAnswers(plan, build.tokens);
    const answerOf = (symbol: string): bigint => {
      const i = plan.findIndex((f) => f.token === symbol);
      if (i < 0) throw new Error(`sandbox: no feed reports ${symbol}`);
      return answers[i]!;
    };
    const queued = await queueMaker(build.rpc, build.session, snapshot, build.tokens, answerOf, build.startTimestamp);
    build.provide(MAKER, queued);
    const ethA = queued.manifest.ilks.find((i) => i.ilk === 'ETH-A');
    if (!ethA) throw new Error('maker: no ETH-A');
    const { encodeFunctionData, decodeFunctionResult } = await import('viem');
    const { ilkBytes } = await import('./deploy.js');
    const ilk = ilkBytes('ETH-A');
    const data = await build.rpc.request<`0x${string}`>('eth_call', [
      { to: queued.manifest.vat, data: encodeFunctionData({ abi: vatAbi, functionName: 'ilks', args: [ilk] }) },
      'latest',
    ]);
    const [, rate, , , dust] = decodeFunctionResult({ abi: vatAbi, functionName: 'ilks', data });
    const target = {
      vat: queued.manifest.vat,
      daiJoin: queued.manifest.daiJoin,
      weth: build.weth,
      join: ethA.join,
      ilk,
    };
    const ethUsd = answerOf('WETH') * 10n ** 10n;
    addGenesisFunds(build, {
      fund: (agent, token, amount) => {
        if (token.address.toLowerCase() !== daiAddress.toLowerCase()) return false;
        const eth = queueDaiDraw(build.session, agent, target, amount, ethUsd, rate, dust);
        build.needsEth(() => eth);
        return true;
      },
    });
  },
  manifest: async (build, manifest) => {
    const queued = build.need(MAKER);
    manifest.maker = {
      ...queued.manifest,
      ...(await makerPool(queued.manifest.dai, manifest.tokens, build.need(DEX).dexes)),
      startBlock: build.deployBlock,
    };
  },
  cast: async (build) => {
    const queued = build.genesis.find(MAKER);
    if (!build.manifest.maker || !queued) return;
    const { initialMakerState } = await import('./state.js');
    const state = { ...initialMakerState(build.seed, build.scale, build.startTimestamp), spells: [...queued.spells] };
    build.state.maker = state;
    for (const agent of state.agents) build.fund(agent);
    if (state.pairMaker) build.fund(state.pairMaker.agent);
  },
  actors: async (host) => {
    const m = host.manifest.maker;
    const state = host.state.maker;
    if (!m || !state) return undefined;
    const [{ MakerActors }, { MAKER_DEPLOYER_KEY }, { signerAgent }] = await Promise.all([
      import('./actors.js'),
      import('./deploy.js'),
      import('../../chain/agent.js'),
    ]);
    const actors = new MakerActors(m, state, {
      session: host.session,
      scale: host.scale,
      seed: host.state.seed,
      oracleKeeper: signerAgent(MAKER_DEPLOYER_KEY, 0),
      token: (symbol) => host.token(symbol).m,
      spend: (agent, symbol, amount) => host.spend(agent, host.token(symbol), amount),
      approve: (agent, token, spender) => host.approve(agent, token, spender),
      feedAnswer: (symbol) => host.find(FEED_ANSWERS)?.feedAnswer(symbol)?.answer,
      marketUsd: (symbol) => host.state.prices[symbol] ?? 1,
      get now() {
        return host.now;
      },
    });
    host.watch(actors.watched, [m.dai.toLowerCase()]);
    return {
      open: () => actors.open(),
      read: (_from, to) => actors.read(to),
      step: (reading, from, to) => actors.step(reading as Parameters<MakerActors['step']>[0], from, to),
      save: () => actors.save(),
      topUp: (agent, token, amount) => actors.topUp(agent, token, amount),
    };
  },
  // The testchain ships state, not sources; the Chainlog is ours.
  contracts: (manifest) => {
    const m = manifest.maker;
    if (!m) return [];
    return [
      { address: m.chainlog, name: 'ChainLog', artifact: artifactIn(import.meta.dirname, 'ChainLog') },
      { address: m.vat, name: 'Vat' },
      { address: m.dai, name: 'Dai' },
      { address: m.daiJoin, name: 'DaiJoin' },
      { address: m.spot, name: 'Spotter' },
      { address: m.jug, name: 'Jug' },
      { address: m.dog, name: 'Dog' },
      { address: m.pot, name: 'Pot' },
      { address: m.vow, name: 'Vow' },
      { address: m.ilkRegistry, name: 'IlkRegistry' },
      ...m.ilks.flatMap((i) => [
        { address: i.join, name: 'GemJoin' },
        { address: i.pip, name: 'DSValue' },
        ...(i.clip ? [{ address: i.clip, name: 'Clipper' }] : []),
      ]),
      ...(m.pool ? [{ address: m.pool.address, name: 'UniswapV2Pair' }] : []),
    ];
  },
  addressBook: (manifest, book) => {
    if (manifest.maker)
      book.entries[bookKey.stablecoin(manifest.maker.protocol)] = { address: manifest.maker.chainlog.toLowerCase() };
  },
};
