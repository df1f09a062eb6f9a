import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESSES, CHAIN_ID, contractSourcesView } from '../../../../test/support/contract-sources-world.js';
import { systemClock } from '../../../core/time.js';
import { EtherscanClient } from '../../../sources/etherscan/client.js';
import { type EtherscanStandin, SANDBOX_ETHERSCAN_KEY, startEtherscanStandin } from './server.js';

/**
 * The stand-in's answers in Etherscan's documented form (docs.etherscan.io, "Get Contract Source Code for Verified
 * Contract Source Codes": `{status, message, result: [entry]}`, the entry's thirteen fields, every one a string;
 * errors as HTTP 200 with `status: "0"`, `message: "NOTOK"` and the text in `result`), and the input it serves held
 * to the package's build-info.
 */

const require = createRequire(import.meta.url);

/** The fields of a `getsourcecode` entry, as Etherscan documents them. */
const DOCUMENTED_FIELDS = [
  'SourceCode',
  'ABI',
  'ContractName',
  'CompilerVersion',
  'OptimizationUsed',
  'Runs',
  'ConstructorArguments',
  'EVMVersion',
  'Library',
  'LicenseType',
  'Proxy',
  'Implementation',
  'SwarmSource',
];

describe('Etherscan stand-in', () => {
  let standin: EtherscanStandin;
  const get = async (params: Record<string, string>) => {
    const q = new URLSearchParams({
      module: 'contract',
      action: 'getsourcecode',
      apikey: SANDBOX_ETHERSCAN_KEY,
      ...params,
    });
    const res = await fetch(`${standin.url}/v2/api?${q}`);
    expect(res.status).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads the answers' JSON field by field
    return (await res.json()) as { status: string; message: string; result: any };
  };

  beforeAll(async () => {
    standin = await startEtherscanStandin({
      seed: 1,
      clock: systemClock,
      world: Promise.resolve(contractSourcesView()),
    });
    await new Promise((r) => setTimeout(r, 0));
    for (const address of Object.values(ADDRESSES)) await standin.book.prepare(CHAIN_ID, address);
  });
  afterAll(() => standin?.close());

  it("answers a verified Aave contract with the build-info's input in double braces, every field a string", async () => {
    const body = await get({ chainid: String(CHAIN_ID), address: ADDRESSES.addressesProvider });
    expect(body.status).toBe('1');
    expect(body.message).toBe('OK');
    const [entry] = body.result;
    expect(Object.keys(entry).sort()).toEqual([...DOCUMENTED_FIELDS].sort());
    for (const f of DOCUMENTED_FIELDS) expect(typeof entry[f], f).toBe('string');
    const buildInfo = JSON.parse(
      readFileSync(require.resolve('@aave/core-v3/artifacts/build-info/43678f55a3ef48531b5ad2350a78a276.json'), 'utf8'),
    );
    expect(entry.SourceCode.startsWith('{{') && entry.SourceCode.endsWith('}}')).toBe(true);
    expect(JSON.parse(entry.SourceCode.slice(1, -1))).toEqual(buildInfo.input);
    expect(entry.ContractName).toBe('PoolAddressesProvider');
    expect(entry.CompilerVersion).toBe(`v${buildInfo.solcLongVersion}`);
    expect(entry.OptimizationUsed).toBe(buildInfo.input.settings.optimizer.enabled ? '1' : '0');
    expect(entry.Runs).toBe(String(buildInfo.input.settings.optimizer.runs));
    expect(entry.LicenseType).toBe('BUSL-1.1');
    const artifact = require('@aave/core-v3/artifacts/contracts/protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json');
    expect(JSON.parse(entry.ABI)).toEqual(artifact.abi);
  });

  it('names the implementation behind a proxy, as its proxy detection does; none for a contract that is no proxy', async () => {
    const proxy = await get({ chainid: String(CHAIN_ID), address: ADDRESSES.pool });
    expect(proxy.result[0]).toMatchObject({ Proxy: '1', Implementation: ADDRESSES.poolImpl });
    const impl = await get({ chainid: String(CHAIN_ID), address: ADDRESSES.poolImpl });
    expect(impl.result[0]).toMatchObject({ ContractName: 'Pool', Proxy: '0', Implementation: '' });
    const client = new EtherscanClient({ baseUrl: standin.url, apiKey: SANDBOX_ETHERSCAN_KEY });
    const out = await client.lookup(CHAIN_ID, ADDRESSES.aToken);
    expect(out.kind === 'verified' && out.source.proxy).toEqual({ implementation: ADDRESSES.aTokenImpl });
    await new Promise((r) => setTimeout(r, 1000));
  });

  it('answers "not verified" in Etherscan\'s form where nothing ships a source', async () => {
    for (const address of [ADDRESSES.token, ADDRESSES.nothing]) {
      const body = await get({ chainid: String(CHAIN_ID), address });
      expect(body.status).toBe('1');
      expect(Object.keys(body.result[0]).sort()).toEqual([...DOCUMENTED_FIELDS].sort());
      expect(body.result[0]).toMatchObject({ SourceCode: '', ABI: 'Contract source code not verified' });
    }
  });

  it('refuses a wrong key, a chain it does not serve and an action it lacks with NOTOK', async () => {
    const key = await get({ chainid: String(CHAIN_ID), address: ADDRESSES.pool, apikey: 'WRONG' });
    expect(key).toEqual({ status: '0', message: 'NOTOK', result: 'Missing/Invalid API Key' });
    const chain = await get({ chainid: '1', address: ADDRESSES.pool });
    expect(chain.status).toBe('0');
    expect(chain.result).toMatch(/^Missing or unsupported chainid parameter/);
    const action = await get({
      chainid: String(CHAIN_ID),
      action: 'getcontractcreation',
      contractaddresses: ADDRESSES.pool,
    });
    expect(action).toEqual({ status: '0', message: 'NOTOK', result: 'Error! Missing Or invalid Action name' });
  });

  it('counts five calls a second per client and says so as Etherscan does', async () => {
    await new Promise((r) => setTimeout(r, 1000));
    const bodies = [];
    for (let i = 0; i < 6; i++) bodies.push(await get({ chainid: String(CHAIN_ID), address: ADDRESSES.nothing }));
    expect(bodies.slice(0, 5).every((b) => b.status === '1')).toBe(true);
    expect(bodies[5]).toEqual({
      status: '0',
      message: 'NOTOK',
      result: 'Max calls per sec rate limit reached (5/sec)',
    });
    await new Promise((r) => setTimeout(r, 1000));
  });

  it('the client reads it: the standard JSON of a verified contract, not verified', async () => {
    const client = new EtherscanClient({ baseUrl: standin.url, apiKey: SANDBOX_ETHERSCAN_KEY });
    const out = await client.lookup(CHAIN_ID, ADDRESSES.feedProxy);
    expect(out.kind).toBe('verified');
    if (out.kind !== 'verified') return;
    expect(out.source.name).toBe('FeedProxy');
    expect(out.source.input.sources['FeedProxy.sol']?.content).toContain('contract FeedProxy');
    expect(await client.lookup(CHAIN_ID, ADDRESSES.nothing)).toEqual({ kind: 'unverified' });
  });
});
