import { describe, expect, it } from 'vitest';
import { EtherscanClient, etherscanInput } from './client.js';
import type { EtherscanSourceEntry } from './schemas.js';

/**
 * The client against Etherscan's published answer forms (docs.etherscan.io: `getsourcecode`'s entry fields,
 * `getcontractcreation`'s example, the `NOTOK` error texts), the three forms of `SourceCode`, and the key kept out of
 * every reason and log line.
 */

const KEY = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ12345678';
const ADDRESS = '0xBB9bc244D798123fDe783fCc1C72d3Bb8C189413';

const entry = (over: Partial<EtherscanSourceEntry>): EtherscanSourceEntry => ({
  SourceCode: '',
  ABI: '[]',
  ContractName: 'Test12345',
  CompilerVersion: 'v0.4.26+commit.4563c3fc',
  OptimizationUsed: '1',
  Runs: '200',
  ConstructorArguments: '',
  EVMVersion: 'Default',
  Library: '',
  LicenseType: 'None',
  Proxy: '0',
  Implementation: '',
  SwarmSource: 'bzzr://4a3c',
  ...over,
});
const ok = (result: unknown) => ({ status: '1', message: 'OK', result });
const notOk = (result: string) => ({ status: '0', message: 'NOTOK', result });

const FLAT = 'pragma solidity 0.4.26;\r\n\r\ncontract Test12345 {\r\n    string public test;\r\n}';
const STD = {
  language: 'Solidity',
  sources: {
    'contracts/Vault.sol': { content: 'contract Vault {}' },
    'contracts/Lib.sol': { content: 'library L {}' },
  },
  settings: { optimizer: { enabled: true, runs: 999 }, remappings: ['@oz/=lib/oz/'] },
};

/** An answer other than 200. */
class Http {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {}
}

function client(replies: unknown[], slept: number[] = []) {
  const urls: string[] = [];
  const logged: unknown[] = [];
  const log = (...args: unknown[]) => {
    logged.push(args);
  };
  const c = new EtherscanClient({
    baseUrl: 'http://etherscan.test',
    apiKey: KEY,
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0.5,
    maxRetries: 2,
    minIntervalMs: 0,
    log: { debug: log, info: log, warn: log, error: log } as never,
    fetch: async (url) => {
      urls.push(String(url));
      const r = replies.length > 1 ? replies.shift() : replies[0];
      if (r instanceof Http) return new Response(r.text, { status: r.status });
      return new Response(typeof r === 'string' ? r : JSON.stringify(r), { status: 200 });
    },
  });
  return { c, urls, logged };
}

describe('EtherscanClient getsourcecode', () => {
  it('asks V2 with the chain, the action, the address and the key', async () => {
    const { c, urls } = client([ok([entry({ SourceCode: FLAT })])]);
    await c.lookup(1, ADDRESS);
    const url = new URL(urls[0]!);
    expect(url.pathname).toBe('/v2/api');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      chainid: '1',
      module: 'contract',
      action: 'getsourcecode',
      address: ADDRESS,
      apikey: KEY,
    });
  });

  it('a flat file becomes one source named after the contract, with the settings Etherscan records', async () => {
    const out = await client([ok([entry({ SourceCode: FLAT, Library: 'SafeMath:0x1234' })])]).c.lookup(1, ADDRESS);
    expect(out.kind).toBe('verified');
    if (out.kind !== 'verified') return;
    expect(out.source).toMatchObject({ service: 'etherscan', name: 'Test12345', match: 'verified' });
    expect(out.source.compilerVersion).toBe('v0.4.26+commit.4563c3fc');
    expect(out.source.input).toEqual({
      language: 'Solidity',
      sources: { 'Test12345.sol': { content: FLAT } },
      settings: {
        optimizer: { enabled: true, runs: 200 },
        libraries: { 'Test12345.sol': { SafeMath: '0x1234' } },
      },
    });
    expect(out.source.proxy).toBeUndefined();
  });

  it('a JSON of files (single braces) keeps every file, the settings from the fields', () => {
    const files = { 'A.sol': { content: 'import "./B.sol";' }, 'B.sol': { content: 'contract B {}' } };
    const input = etherscanInput(entry({ SourceCode: JSON.stringify(files), EVMVersion: 'Istanbul', Runs: '1000' }));
    expect(input.sources).toEqual(files);
    expect(input.settings).toEqual({ optimizer: { enabled: true, runs: 1000 }, evmVersion: 'istanbul' });
  });

  it('the double-braced standard JSON is the compiler input itself, remappings included', () => {
    const input = etherscanInput(entry({ SourceCode: `{${JSON.stringify(STD)}}` }));
    expect(input).toEqual(STD);
  });

  it('reads the proxy fields: the implementation Etherscan found', async () => {
    const impl = '0x5D4Aa78B08Bc7C530e21bf7447988b1Be7991322';
    const proxied = entry({ SourceCode: `{${JSON.stringify(STD)}}`, Proxy: '1', Implementation: impl });
    const out = await client([ok([proxied])]).c.lookup(1, ADDRESS);
    expect(out.kind === 'verified' && out.source.proxy).toEqual({ implementation: impl.toLowerCase() });
  });

  it('"not verified": an empty SourceCode', async () => {
    const unverified = entry({ ABI: 'Contract source code not verified', ContractName: '', CompilerVersion: '' });
    expect(await client([ok([unverified])]).c.lookup(1, ADDRESS)).toEqual({ kind: 'unverified' });
  });

  it('a malformed standard JSON is a typed invalid outcome, never a throw', async () => {
    for (const SourceCode of [
      `{{"language": "Solidity", "sources": {`,
      '{{"language":"Solidity"}}',
      '{{"sources": {}',
      '{"A.sol": 3}',
    ]) {
      const out = await client([ok([entry({ SourceCode })])]).c.lookup(1, ADDRESS);
      expect(out.kind, SourceCode).toBe('invalid');
    }
  });

  it("retries Etherscan's rate-limit answer (HTTP 200, NOTOK) after a second; unavailable when it persists", async () => {
    const slept: number[] = [];
    const limited = notOk('Max calls per sec rate limit reached (5/sec)');
    const once = client([limited, ok([entry({ SourceCode: FLAT })])], slept);
    expect((await once.c.lookup(1, ADDRESS)).kind).toBe('verified');
    expect(slept).toContain(1000);
    expect(once.c.stats.limited).toBe(1);
    const always = await client([limited]).c.lookup(1, ADDRESS);
    expect(always).toEqual({ kind: 'unavailable', reason: expect.stringContaining('rate limit') });
  });

  it('a 429 or a 5xx is retried too', async () => {
    const out = await client([new Http(503, 'busy'), ok([entry({ SourceCode: FLAT })])]).c.lookup(1, ADDRESS);
    expect(out.kind).toBe('verified');
    const limited = await client([new Http(429, '')]).c.lookup(1, ADDRESS);
    expect(limited.kind).toBe('unavailable');
  });

  it('a refused key is invalid at once, and no reason, log line or stat names the key', async () => {
    const { c, urls, logged } = client([notOk('Invalid API Key')]);
    const out = await c.lookup(1, ADDRESS);
    expect(out).toEqual({ kind: 'invalid', reason: expect.stringContaining('Invalid API Key') });
    expect(urls).toHaveLength(1);
    const limited = client([notOk('Max calls per sec rate limit reached (5/sec)')]);
    const out2 = await limited.c.lookup(1, ADDRESS);
    const everything = JSON.stringify([out, out2, logged, limited.logged, c, limited.c, c.stats]);
    expect(limited.logged.length).toBeGreaterThan(0);
    expect(everything).not.toContain(KEY);
  });
});

describe('EtherscanClient getcontractcreation', () => {
  // docs.etherscan.io "Get Contract Creator and Creation Tx Hash", its response example.
  const DOC_EXAMPLE = ok([
    {
      contractAddress: '0xcbdcd3815b5f975e1a2c944a9b2cd1c985a1cb7f',
      contractCreator: '0x3d080421c9dd5fb387d6e3124f7e1c241ade9568',
      txHash: '0xdce495a9261c4a2a5d4e879cfb55c060b4616a846d3425c441a9e31aa34c956f',
      blockNumber: '10720863',
      timestamp: '1598238169',
      contractFactory: '',
      creationBytecode: '0x60806040',
    },
  ]);

  it("reads the documentation's example", async () => {
    const { c, urls } = client([DOC_EXAMPLE]);
    const out = await c.creations(1, ['0xcbdcd3815b5f975e1a2c944a9b2cd1c985a1cb7f']);
    expect(new URL(urls[0]!).searchParams.get('contractaddresses')).toBe('0xcbdcd3815b5f975e1a2c944a9b2cd1c985a1cb7f');
    expect(out).toEqual({
      kind: 'found',
      creations: [
        {
          address: '0xcbdcd3815b5f975e1a2c944a9b2cd1c985a1cb7f',
          creator: '0x3d080421c9dd5fb387d6e3124f7e1c241ade9568',
          txHash: '0xdce495a9261c4a2a5d4e879cfb55c060b4616a846d3425c441a9e31aa34c956f',
          blockNumber: 10720863,
          timestamp: 1598238169,
        },
      ],
    });
  });

  it('"No data found" is no creation; more than five addresses is refused', async () => {
    const none = await client([{ status: '0', message: 'No data found', result: null }]).c.creations(1, [ADDRESS]);
    expect(none).toEqual({ kind: 'found', creations: [] });
    await expect(client([DOC_EXAMPLE]).c.creations(1, Array(6).fill(ADDRESS))).rejects.toThrow(RangeError);
  });
});
