import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { dexTargets } from '../areas/dex/targets.js';
import type { AreaEnv } from '../areas/kit/module.js';
import { lendingTargets } from '../areas/lending/targets.js';
import { oracleTargets } from '../areas/oracles/targets.js';
import { loadConfig } from '../config/index.js';
import { registry } from '../registry/index.js';
import { BitcoinSource } from '../sources/bitcoin/source.js';
import { GithubSource } from '../sources/github/source.js';
import { besideRunningSandbox, openSources, registryBook, SOURCES } from './sources.js';

const ctx = { role: 'worker' as const, logger: pino({ level: 'silent' }), labels: new Map() };

describe('sources from the configuration', () => {
  it('opens one EVM source per RPC_URL_<CHAIN>, and the registry places the entities on them', () => {
    const config = loadConfig({ RPC_URL_ETHEREUM: 'https://eth.example/v1', RPC_URL_ARBITRUM: 'http://arb.example' });
    const sources = openSources(config, ctx);
    const evm = sources.get('evm')!;
    expect(evm.ids.sort()).toEqual(['arbitrum', 'ethereum']);
    expect(evm.source('ethereum')).toBe(evm.source('ethereum'));
    // Each chain's finality model from the registry: Arbitrum's final block is its node's `finalized` tag (the L1's
    // finality), with the registry's depth as the fallback.
    expect(evm.source('arbitrum').chain).toMatchObject({ finality: 'tag', finalityDepth: 4800 });
    expect(evm.source('ethereum').chain).toMatchObject({ finality: 'tag', finalityDepth: 64 });
    const env: AreaEnv = { config, registry, book: registryBook(config), sources };
    const dex = dexTargets(env);
    expect(
      dex.deployments.find((d) => d.chain === 'ethereum' && d.protocol === 'uniswap' && d.version === 'V3'),
    ).toMatchObject({ factory: '0x1f98431c8ad98523631ae4a59f267346ea31f984', startBlock: 12369621 });
    expect(dex.anchors.some((a) => a.chain === 'ethereum' && a.symbol === 'USDC')).toBe(true);
    // Price feeds: the registry's proxies, each with the token its base trades as (ETH-USD: WETH).
    const eth = oracleTargets(env).find((f) => f.pair === 'ETH-USD');
    expect(eth).toMatchObject({
      chain: 'ethereum',
      oracle: 'chainlink',
      address: '0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419',
      heartbeatSeconds: 3600,
      deviationThresholdPct: 0.5,
      baseToken: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
    });
    expect(eth?.startBlock).toBeUndefined();
    const morpho = lendingTargets(env).find((m) => m.protocol === 'morpho');
    expect(morpho).toMatchObject({ design: 'morpho-blue', startBlock: 18883124 });
    expect(morpho?.assets.map((a) => a.symbol)).toEqual(['USDC', 'WETH', 'wstETH', 'WBTC']);
  });

  it('opens Bitcoin Core’s RPC as the bitcoin source, never as an EVM chain', () => {
    const keys = { RPC_URL_BITCOIN: 'http://127.0.0.1:8332', BITCOIN_RPC_USER: 'u', BITCOIN_RPC_PASSWORD: 'p' };
    const only = openSources(loadConfig(keys), ctx);
    expect(only.kinds()).toContain('bitcoin');
    expect(only.has('evm')).toBe(false);
    const bitcoin = only.get('bitcoin')!;
    expect(bitcoin).toMatchObject({ url: 'http://127.0.0.1:8332', source: 'bitcoin' });
    expect(bitcoin.client).toBeInstanceOf(BitcoinSource);
    const both = openSources(loadConfig({ ...keys, RPC_URL_ETHEREUM: 'http://127.0.0.1:8545' }), ctx);
    expect(both.get('evm')!.ids).toEqual(['ethereum']);
    expect(both.has('bitcoin')).toBe(true);
    // Bitcoin alone does not count as a configured EVM chain: `start` still runs the sandbox world for the rest.
    const evm = SOURCES.find((s) => s.kind === 'evm')!;
    expect(evm.configured(loadConfig(keys))).toBe(false);
    expect(SOURCES.find((s) => s.kind === 'bitcoin')!.configured(loadConfig(keys))).toBe(true);
  });

  it('names an RPC_URL_<CHAIN> of a chain the registry does not know', () => {
    expect(() => openSources(loadConfig({ RPC_URL_MOON: 'http://x' }), ctx)).toThrow(/RPC_URL_MOON/);
  });

  it('opens nothing for the API tier, and GitHub for the others', () => {
    const config = loadConfig({ RPC_URL_ETHEREUM: 'http://127.0.0.1:8545', GITHUB_TOKEN: 'ghp_x' });
    expect(openSources(config, { ...ctx, role: 'serve' }).kinds()).toEqual([]);
    const github = openSources(config, ctx).get('github')!;
    expect(github).toMatchObject({ baseUrl: 'https://api.github.com', token: 'ghp_x', source: 'github' });
    expect(github.client).toBeInstanceOf(GithubSource);
  });

  it('opens one client per source, which every area reading it shares; a stand-in names itself sandbox', () => {
    const config = loadConfig({
      RPC_URL_ETHEREUM: 'http://127.0.0.1:8545',
      GITHUB_API_URL: 'http://127.0.0.1:9/',
      GITHUB_TOKEN: 'sandbox',
      DISCORD_BOT_TOKEN: 'x',
    });
    const labels = new Map([['github' as const, 'sandbox github stand-in']]);
    const sources = openSources(config, { ...ctx, labels });
    // Every area takes the same handle, so the same client: one rate-limit budget, one ETag cache, one logger
    // (test/layering.test.ts: no area constructs a client).
    expect(sources.get('github')!.client).toBe(sources.get('github')!.client);
    expect(sources.get('github')!.source).toBe('sandbox:github');
    expect(sources.get('discord')!.source).toBe('discord');
  });

  it('points a process beside a running sandbox at every chain and every stand-in it announced', () => {
    const running = {
      sandbox_sources: {
        keys: {
          evm: { RPC_URL_ETHEREUM: 'http://127.0.0.1:1', RPC_URL_OPTIMISM: 'http://127.0.0.1:2' },
          github: { GITHUB_API_URL: 'http://127.0.0.1:3/', GITHUB_TOKEN: 'sandbox' },
          discord: { DISCORD_API_URL: 'http://127.0.0.1:4/api/v10', DISCORD_BOT_TOKEN: 'sandbox-bot' },
        },
        labels: { github: 'sandbox github stand-in', discord: 'sandbox discord stand-in' },
      },
    };
    const { config, labels } = besideRunningSandbox(loadConfig({}), running);
    const sources = openSources(config, { ...ctx, labels });
    expect(sources.get('evm')!.ids.sort()).toEqual(['ethereum', 'optimism']);
    expect(sources.get('github')).toMatchObject({ baseUrl: 'http://127.0.0.1:3', source: 'sandbox:github' });
    expect(sources.get('discord')!.source).toBe('sandbox:discord');
    // A source the configuration names stays the configuration's.
    const own = besideRunningSandbox(loadConfig({ GITHUB_API_URL: 'https://ghe.example/api/v3' }), running);
    expect(own.config.github.apiUrl).toBe('https://ghe.example/api/v3');
    expect(own.labels.has('github')).toBe(false);
  });
});
