import { describe, expect, it } from 'vitest';
import spec from '../../../test/fixtures/sourcify/openapi-v2.json' with { type: 'json' };
import { SourcifyClient } from './client.js';

/**
 * The client against Sourcify's own published examples (`test/fixtures/sourcify/openapi-v2.json`: the responses of
 * `GET /v2/contract/{chainId}/{address}` in ethereum/sourcify's apiv2.yaml, unchanged): a verified contract, not
 * verified, 429, 400; and what its answers can do wrong (a malformed `stdJsonInput`, a body that is not JSON).
 */

type Examples = { content: { 'application/json': { examples: Record<string, { value: unknown }> } } };
const example = (response: keyof typeof spec.responses, name = 'Example 1') =>
  (spec.responses[response] as Examples).content['application/json'].examples[name]!.value;

const FULL = example('VerifiedContract', 'Full response') as Record<string, unknown>;
const ADDRESS = '0xDFEBAd708F803af22e81044aD228Ff77C83C935c';

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

function client(replies: Reply[], slept: number[] = []) {
  const urls: string[] = [];
  const c = new SourcifyClient({
    baseUrl: 'http://sourcify.test/server/',
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0.5,
    maxRetries: 2,
    fetch: async (url) => {
      urls.push(String(url));
      const r = (replies.length > 1 ? replies.shift() : replies[0])!;
      const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
      return new Response(text, { status: r.status, headers: r.headers ?? {} });
    },
  });
  return { c, urls };
}

describe('SourcifyClient', () => {
  it("reads Sourcify's full example as a verified contract with its standard-JSON input", async () => {
    const { c, urls } = client([{ status: 200, body: FULL }]);
    const out = await c.lookup(11155111, ADDRESS);
    expect(urls).toEqual([
      `http://sourcify.test/server/v2/contract/11155111/${ADDRESS.toLowerCase()}?fields=compilation,sources,stdJsonInput`,
    ]);
    expect(out.kind).toBe('verified');
    if (out.kind !== 'verified') return;
    expect(out.source).toMatchObject({
      service: 'sourcify',
      chainId: 11155111,
      address: ADDRESS.toLowerCase(),
      name: 'MyContract',
      fullyQualifiedName: 'contracts/MyContract.sol:MyContract',
      compilerVersion: 'v0.8.12+commit.f00d7308',
      match: 'match',
    });
    expect(Object.keys(out.source.input.sources).sort()).toEqual(['contracts/Owner.sol', 'contracts/Storage.sol']);
    expect(out.source.input.sources['contracts/Storage.sol']!.content).toContain('contract Storage');
    expect(out.source.input.language).toBe('Solidity');
  });

  it('reads the 404 example (match null) as not verified', async () => {
    const { c } = client([{ status: 404, body: example('ContractNotVerifiedResponse') }]);
    expect(await c.lookup(11155111, ADDRESS)).toEqual({ kind: 'unverified' });
  });

  it('retries the 429 example after its Retry-After, then answers; gives up as unavailable when it persists', async () => {
    const limited = { status: 429, body: example('TooManyRequestsResponse'), headers: { 'retry-after': '3' } };
    const slept: number[] = [];
    const once = client([limited, { status: 200, body: FULL }], slept);
    expect((await once.c.lookup(11155111, ADDRESS)).kind).toBe('verified');
    expect(slept).toEqual([3000]);
    expect(once.c.stats).toMatchObject({ requests: 2, retries: 1, limited: 1 });

    const always = client([limited]);
    const out = await always.c.lookup(11155111, ADDRESS);
    expect(out.kind).toBe('unavailable');
    expect(out.kind === 'unavailable' && out.reason).toMatch(/after 3 attempts: HTTP 429/);
  });

  it('answers the 400 example (unsupported chain) as invalid at once, with its code', async () => {
    const { c, urls } = client([{ status: 400, body: example('BadRequestResponse') }]);
    const out = await c.lookup(9429413, ADDRESS);
    expect(urls).toHaveLength(1);
    expect(out).toEqual({
      kind: 'invalid',
      reason: expect.stringContaining('unsupported_chain: The chain with chainId 9429413 is not supported'),
    });
  });

  it('a 404 that is not about the contract (a wrong base URL) is invalid, not "not verified"', async () => {
    const body = { customCode: 'route_not_found', message: 'The route does not exist', errorId: 'x' };
    const out = await client([{ status: 404, body }]).c.lookup(1, ADDRESS);
    expect(out).toEqual({ kind: 'invalid', reason: expect.stringContaining('route_not_found') });
  });

  it('a malformed stdJsonInput is a typed invalid outcome naming the source, never a throw', async () => {
    const noContent = { ...FULL, stdJsonInput: { language: 'Solidity', sources: { 'a.sol': { keccak256: '0x' } } } };
    const out1 = await client([{ status: 200, body: noContent }]).c.lookup(11155111, ADDRESS);
    expect(out1).toEqual({ kind: 'invalid', reason: expect.stringContaining('source "a.sol" has no "content"') });
    const text = { ...FULL, stdJsonInput: '{"language": "Solidity", "sources": ' };
    const out2 = await client([{ status: 200, body: text }]).c.lookup(11155111, ADDRESS);
    expect(out2).toEqual({ kind: 'invalid', reason: expect.stringContaining('not a JSON object') });
    const offSchema = { ...FULL, compilation: { name: 'X' } };
    const out3 = await client([{ status: 200, body: offSchema }]).c.lookup(11155111, ADDRESS);
    expect(out3).toEqual({ kind: 'invalid', reason: expect.stringContaining('invalid response at /compilation') });
    // An answer about another chain than the one asked for is not taken.
    const out4 = await client([{ status: 200, body: FULL }]).c.lookup(1, ADDRESS);
    expect(out4).toEqual({ kind: 'invalid', reason: expect.stringContaining('the answer is about chain 11155111') });
  });

  it('an answer cut short (not JSON) is retried, then unavailable', async () => {
    const out = await client([{ status: 200, body: '{"match": "exa' }]).c.lookup(1, ADDRESS);
    expect(out).toEqual({ kind: 'unavailable', reason: expect.stringContaining('not JSON') });
  });

  it('refuses what is not an address or a chain id before sending anything', async () => {
    const { c, urls } = client([{ status: 200, body: FULL }]);
    await expect(c.lookup(1, '0x1234')).rejects.toThrow(RangeError);
    await expect(c.lookup(0, ADDRESS)).rejects.toThrow(RangeError);
    expect(urls).toHaveLength(0);
  });
});
