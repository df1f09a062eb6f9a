import type { Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../test/support/anvil.js';
import { RpcClient } from '../chain/rpc.js';
import { readPoolPrices } from '../protocols/uniswap/dex.js';
import { deployWorld } from './deploy.js';
import type { WorldManifest } from './manifest.js';
import { simulate } from './scenario.js';
import type { ScenarioState } from './state.js';
import { HourlyHistory, type WorldView, worldView } from './view.js';

/**
 * A stand-in's view of the world agrees with the chain: the reference price it gives for an hour is the price the
 * world's pools closed that hour at, within the arbitrage tolerance docs/sandbox.md states (2 %, or the pool's fee
 * plus 1 % where the fee tier is wider); the contracts it names are the manifest's, with the compiler input of those
 * whose artifact ships a source.
 */
const GENESIS = 1_699_999_200;
const HOURS = 12;

const anvils = useAnvils();

describe("a stand-in's world view", () => {
  let rpcUrl: string;
  let manifest: WorldManifest;
  let state: ScenarioState;
  let view: WorldView;

  beforeAll(async () => {
    const anvil = await anvils.start({ genesisTimestamp: GENESIS - 1 });
    rpcUrl = anvil.rpcUrl;
    const deployed = await deployWorld(rpcUrl, { seed: 5, startTimestamp: GENESIS, scale: 0.3 });
    manifest = deployed.manifest;
    const history = new HourlyHistory();
    history.start(deployed.state);
    state = (await simulate(rpcUrl, manifest, deployed.state, GENESIS + HOURS * 3600, {
      stepSeconds: 3600,
      onStep: (s) => history.record(s),
    })) as ScenarioState;
    // A few five-minute steps: a partial hour is not an hour yet.
    state = (await simulate(rpcUrl, manifest, state, state.lastTimestamp + 900, {
      stepSeconds: 300,
      onStep: (s) => history.record(s),
    })) as ScenarioState;
    // Through a JSON round trip, as the world saves and reloads it.
    view = worldView([manifest], new HourlyHistory(JSON.parse(JSON.stringify(history))));
  }, 180_000);

  it('gives every closed hour, and the reference price of each equals the pools’ close within the arbitrage tolerance', async () => {
    const hours = view.hours();
    expect(hours.map((h) => h.hour)).toEqual(Array.from({ length: HOURS }, (_, i) => GENESIS + i * 3600));
    expect(view.hour(GENESIS + HOURS * 3600)).toBeUndefined();
    const rpc = new RpcClient(rpcUrl);
    const byAddress = new Map(manifest.tokens.map((t) => [t.address.toLowerCase(), t]));
    let checked = 0;
    for (const h of hours) {
      // The block that closes the hour: hourly blocks after the genesis block, one per hour.
      const block = (h.hour - GENESIS) / 3600 + 2;
      const head = await rpc.request<{ timestamp: Hex }>('eth_getBlockByNumber', [`0x${block.toString(16)}`, false]);
      expect(Number(head.timestamp)).toBe(h.hour + 3600);
      const prices = await readPoolPrices(rpcUrl, manifest, block);
      for (const pool of manifest.pools) {
        const t0 = byAddress.get(pool.token0.toLowerCase())!;
        const t1 = byAddress.get(pool.token1.toLowerCase())!;
        const reference = (h.prices[t0.symbol]! / h.prices[t1.symbol]!) * 10 ** (t1.decimals - t0.decimals);
        const gap = Math.abs(prices.get(pool.address.toLowerCase())! / reference - 1);
        const label = `${h.hour} ${pool.protocol} ${pool.version} ${t0.symbol}/${t1.symbol} ${pool.fee}`;
        expect(gap, label).toBeLessThanOrEqual(Math.max(0.02, pool.fee / 1e6 + 0.01));
        checked++;
      }
    }
    expect(checked).toBe(HOURS * manifest.pools.length);
  });

  it('gives the DEX activity of each hour: every swap the scenario sent falls in one hour', () => {
    const hours = view.hours();
    expect(hours.every((h) => h.dex.swaps > 0 && h.dex.transactions > 0)).toBe(true);
    const partial = state.stats.swaps - hours.reduce((sum, h) => sum + h.dex.swaps, 0);
    // What the 15 minutes after the last closed hour sent, not yet an hour of its own.
    expect(partial).toBeGreaterThanOrEqual(0);
    expect(partial).toBeLessThan(Math.max(...hours.map((h) => h.dex.swaps)));
  });

  it('names every deployed contract, and gives the compiler input where the artifact ships a source', async () => {
    const feed = manifest.oracles![0]!;
    expect(view.contract('ethereum', feed.address)).toMatchObject({ name: 'FeedAggregator', protocol: 'feeds' });
    expect(view.contract('ethereum', feed.proxy)).toMatchObject({ name: 'FeedProxy', hasSource: true });
    const input = await view.compilerInput('ethereum', feed.address);
    expect(input?.language).toBe('Solidity');
    expect(input?.sources['FeedAggregator.sol']?.content).toContain('contract FeedAggregator');
    expect(input?.settings).toMatchObject({ optimizer: { enabled: true } });
    const factory = manifest.dex.find((d) => d.design === 'uniswap-v2')!.factory;
    expect(view.contract('ethereum', factory)).toMatchObject({ name: 'UniswapV2Factory', hasSource: false });
    expect(await view.compilerInput('ethereum', factory)).toBeUndefined();
    expect(view.contract('ethereum', manifest.weth)?.name).toBe('WETH9');
    for (const pool of manifest.pools) expect(view.contract('ethereum', pool.address)?.protocol).toBe('uniswap');
    const aave = manifest.lending!.aave[0]!;
    expect(view.contract('ethereum', aave.pool)).toMatchObject({ name: 'Pool', protocol: 'aave', hasSource: true });
    // Aave's implementation behind the pool proxy, its input the package's build-info.
    expect(view.contract('ethereum', aave.implementations!.pool)).toMatchObject({ name: 'Pool', hasSource: true });
    expect(view.contract('ethereum', aave.pool)?.implementation).toBe(aave.implementations!.pool.toLowerCase());
    const pool = await view.compilerInput('ethereum', aave.implementations!.pool);
    expect(pool?.fullyQualifiedName).toBe('contracts/protocol/pool/Pool.sol:Pool');
    expect(pool?.compiler).toBe('0.8.10+commit.fc410830');
    expect(pool?.sources['contracts/protocol/pool/Pool.sol']?.content).toContain('contract Pool is');
    expect(view.manifests.get('ethereum')).toBe(manifest);
  });
});
