import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.js';
import { systemClock } from '../src/core/time.js';
import { startStandins } from '../src/runtime/index.js';
import { l2Announcement } from '../src/runtime/sources.js';
import { jsonRpc } from '../src/sandbox/chain/anvil.js';
import { openL2Chains } from '../src/sandbox/l2/index.js';
import type { WorldManifest } from '../src/sandbox/world/manifest.js';
import { openWorld, type World, type WorldDriver } from '../src/sandbox/world/world.js';
import { cli } from './helpers.js';
import { useTempDirs } from './support/temp-dirs.js';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const;

/**
 * The CLI reads what the world recorded, so a world without real contracts is enough here (world.test.ts runs
 * the real deployment): a manifest naming a few addresses, and one empty block per step.
 */
const manifestOnly: WorldDriver = {
  async deployWorld(_rpcUrl, { seed, startTimestamp }) {
    const manifest: WorldManifest = {
      seed,
      chain: 'ethereum',
      chainId: 31337,
      genesisTimestamp: startTimestamp,
      deployer: address(1),
      weth: address(2),
      tokens: [
        {
          symbol: 'WETH',
          name: 'Wrapped Ether',
          address: address(2),
          decimals: 18,
          kind: 'weth',
          initialPriceUsd: 3000,
          volatility: 0.65,
        },
        {
          symbol: 'USDC',
          name: 'USD Coin',
          address: address(3),
          decimals: 6,
          kind: 'stable',
          initialPriceUsd: 1,
          volatility: 0.01,
        },
      ],
      dex: [
        {
          protocol: 'uniswap',
          version: 'V3',
          design: 'uniswap-v3',
          factory: address(10),
          router: address(11),
          positionManager: address(12),
          startBlock: 1,
        },
      ],
      pools: [
        {
          address: address(20),
          protocol: 'uniswap',
          version: 'V3',
          token0: address(3),
          token1: address(2),
          fee: 500,
          character: 'deep-busy',
        },
      ],
    };
    return { manifest, state: { lastTimestamp: startTimestamp, prices: {}, step: 0 } };
  },
  async simulate(rpcUrl, _manifest, state, until, { stepSeconds }) {
    let { lastTimestamp } = state;
    while (lastTimestamp + stepSeconds <= until) {
      lastTimestamp += stepSeconds;
      await jsonRpc(rpcUrl, 'evm_mine', [lastTimestamp]);
    }
    return { ...state, lastTimestamp };
  },
};

const worlds: World[] = [];
/** Temporary directories, removed after the file's tests once every world has stopped. */
const tempDir = useTempDirs(() => Promise.all(worlds.map((w) => w.stop())));

describe('protoscore sandbox info', () => {
  it('describes the running world, as text and as JSON', async () => {
    const dataDir = tempDir('sandbox-cli-');
    const world = await openWorld({
      dataDir,
      seed: 7,
      days: 1,
      blockSeconds: 60,
      scale: 1,
      live: false,
      driver: manifestOnly,
      log: pino({ level: 'silent' }),
    });
    worlds.push(world);
    await world.caughtUp;
    // What `protoscore start` does with no GITHUB_API_URL: run the GitHub stand-in and announce it.
    const started = await startStandins(loadConfig({ DATA_DIR: dataDir }), {
      clock: systemClock,
      logger: pino({ level: 'silent' }),
    });
    // And the layer-2 chains, announced as setUpSources does.
    const l2 = await openL2Chains({
      dataDir,
      seed: 7,
      genesisTimestamp: world.manifest.genesisTimestamp,
      blockSeconds: 60,
      log: pino({ level: 'silent' }),
      live: false,
    });
    await world.announce({ ...started.announce, ...l2Announcement(l2) });
    const githubUrl = started.config.GITHUB_API_URL!;
    expect(githubUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);

    const [json, text] = await Promise.all([
      cli(['sandbox', 'info', '--json'], { DATA_DIR: dataDir }),
      cli(['sandbox', 'info'], { DATA_DIR: dataDir }),
    ]);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      rpc_url: world.rpcUrl,
      chain_id: 31337,
      block_number: await world.head(),
      seed: 7,
      phase: 'idle',
      github_api_url: githubUrl,
      chains: {
        ethereum: { rpc_url: world.rpcUrl, chain_id: 31337 },
        optimism: { rpc_url: l2.config.RPC_URL_OPTIMISM, chain_id: 10 },
        arbitrum: { rpc_url: l2.config.RPC_URL_ARBITRUM, chain_id: 42161 },
      },
      standins: { github: { url: githubUrl, token: 'sandbox' } },
      protocols: [
        {
          protocol: 'uniswap',
          version: 'V3',
          factory: address(10),
          router: address(11),
          position_manager: address(12),
          pools: [{ address: address(20), pair: 'USDC/WETH', fee: 500, token0: { symbol: 'USDC' } }],
        },
      ],
    });

    expect(text.code).toBe(0);
    expect(text.stdout).toContain(world.rpcUrl);
    expect(text.stdout).toContain('31337');
    expect(text.stdout).toMatch(/uniswap V3 \(uniswap-v3\)/);
    expect(text.stdout).toMatch(/USDC\/WETH 0\.05%\s+0x0+14\s+deep-busy/);
    expect(text.stdout).toContain(`github_api_url  ${githubUrl}`);
    // The announced URL is the stand-in, answering GitHub's REST API.
    const org = await fetch(`${doc.github_api_url}/orgs/aave/repos`, { headers: { authorization: 'token sandbox' } });
    expect(org.status).toBe(200);
    expect(((await org.json()) as { full_name: string }[])[0]!.full_name).toMatch(/^aave\//);
    type ChainInfo = { rpc_url: string; chain_id?: number; rpc_user?: string; rpc_password?: string };
    const chains = doc.chains as Record<string, ChainInfo>;
    expect(Object.keys(chains).sort()).toEqual(['arbitrum', 'bitcoin', 'ethereum', 'optimism']);
    for (const [id, chain] of Object.entries(chains)) {
      if (id === 'bitcoin') continue;
      expect(Number(await jsonRpc(chain.rpc_url, 'eth_chainId')), id).toBe(chain.chain_id);
    }
    // Bitcoin Core's RPC, reached with the announced credentials as any client would.
    const btc = chains.bitcoin!;
    const auth = `Basic ${Buffer.from(`${btc.rpc_user}:${btc.rpc_password}`).toString('base64')}`;
    const info = await fetch(btc.rpc_url, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getblockcount', params: [] }),
    });
    expect(info.status).toBe(200);
    // Every stand-in is listed by service with what a client needs; the beacon one answers the beacon API.
    const standins = doc.standins as Record<string, { url: string } & Record<string, string>>;
    expect(Object.keys(standins).sort()).toEqual([
      'beacon',
      'bitcoin',
      'coingecko',
      'discord',
      'dydx',
      'etherscan',
      'github',
      'gmx_oracle',
      'reddit',
      'sourcify',
      'synthetix',
    ]);
    // CoinGecko's: its URL is COINGECKO_API_URL's value, and it takes the announced demo key.
    const ping = await fetch(`${standins.coingecko!.url}/ping`, {
      headers: { 'x-cg-demo-api-key': standins.coingecko!.api_key! },
    });
    expect(ping.status).toBe(200);
    // GMX's oracle keeper: its URL is GMX_ORACLE_URL's value.
    expect((await fetch(`${standins.gmx_oracle!.url}/ping`)).status).toBe(200);
    // Discord's: the bot token, and the URL that takes the place of https://discord.com/api/v10.
    const guilds = await fetch(`${standins.discord!.url}/users/@me/guilds`, {
      headers: { authorization: `Bot ${standins.discord!.token}` },
    });
    expect(guilds.status).toBe(200);
    expect(((await guilds.json()) as unknown[]).length).toBe(32);
    // Reddit: the OAuth API's URL, the token host and the app's credentials, enough for a token and a listing.
    const reddit = standins.reddit!;
    expect(Object.keys(reddit).sort()).toEqual(['auth_url', 'client_id', 'client_secret', 'url']);
    const basic = Buffer.from(`${reddit.client_id}:${reddit.client_secret}`).toString('base64');
    const issued = await fetch(`${reddit.auth_url}/api/v1/access_token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    const { access_token } = (await issued.json()) as { access_token: string };
    const about = await fetch(`${reddit.url}/r/ethereum/about`, {
      headers: { authorization: `bearer ${access_token}` },
    });
    expect(about.status).toBe(200);
    expect(standins.bitcoin).toEqual({ url: btc.rpc_url, rpc_user: btc.rpc_user, rpc_password: btc.rpc_password });
    const genesis = await fetch(`${standins.beacon!.url}/eth/v1/beacon/genesis`);
    expect(genesis.status).toBe(200);
    expect(text.stdout).toMatch(/Chains\n {2}optimism {4}http:\/\/127\.0\.0\.1:\d+/);
    expect(text.stdout).toMatch(/Stand-ins\n {2}github {6}http:\/\/127\.0\.0\.1:\d+/);
    await started.close();
    await l2.stop();

    await world.stop();
    const stopped = await cli(['sandbox', 'info', '--json'], { DATA_DIR: dataDir });
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toBe('');
    expect(stopped.stderr).toMatch(/no sandbox world is running/);
  }, 180_000); // a hang guard, not a speed bound: it took 62.8 s in a fresh-clone CI on a loaded machine

  it('says so when no world runs, also when a killed service left its running.json', async () => {
    const dataDir = tempDir('sandbox-cli-');
    const none = await cli(['sandbox', 'info'], { DATA_DIR: dataDir });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no sandbox world is running in .*sandbox/);

    mkdirSync(path.join(dataDir, 'sandbox'));
    // A pid far above any pid_max: that process cannot exist.
    const stale = { rpc_url: 'http://127.0.0.1:9', chain_id: 31337, pid: 2 ** 30, anvil_pid: 2 ** 30 };
    writeFileSync(path.join(dataDir, 'sandbox', 'running.json'), JSON.stringify(stale));
    const left = await cli(['sandbox', 'info', '--json'], { DATA_DIR: dataDir });
    expect(left.code).toBe(1);
    expect(left.stderr).toMatch(/has exited/);
  }, 60_000);
});
