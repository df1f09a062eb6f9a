import { afterEach, describe, expect, it } from 'vitest';
import type { WorldView } from '../src/sandbox/world/view.js';
import type { ContractSourceOutcome } from '../src/sources/contract-source.js';
import { TestClock } from './helpers.js';
import { ADDRESSES, CHAIN_ID, contractSourcesView } from './support/contract-sources-world.js';
import { startTestSources, type TestSources } from './support/sources.js';

/**
 * Issue 29's fault test for the contract-source services, on the production composition (the stand-ins started
 * through `STANDINS`, the sources opened by the runtime from the keys they answer with): a service answering 429
 * (Sourcify's status, Etherscan's NOTOK text) past the client's retries, "not verified", and a malformed standard JSON
 * give typed outcomes — `unavailable`, `unverified`, `invalid` — and never a throw; a 429 within the retries and a
 * 5xx are absorbed.
 */

/** The view with one address whose compiler input is broken: a source without its content. */
function brokenView(view: WorldView): WorldView {
  return {
    ...view,
    compilerInput: async (chain, address) => {
      const input = await view.compilerInput(chain, address);
      if (!input || address.toLowerCase() !== ADDRESSES.feedProxy) return input;
      return { ...input, sources: { ...input.sources, 'Broken.sol': { url: 'ipfs://…' } as never } };
    },
  };
}

describe('contract sources under faults', () => {
  let opened: TestSources | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  const open = async (view: WorldView) => {
    opened = await startTestSources({
      kinds: ['sourcify', 'etherscan'],
      world: view,
      clock: new TestClock(),
      maxRetries: 2,
    });
    const sourcify = opened.sources.get('sourcify')!;
    const etherscan = opened.sources.get('etherscan')!;
    for (const address of Object.values(ADDRESSES)) {
      await opened.server('sourcify').book.prepare(CHAIN_ID, address);
      await opened.server('etherscan').book.prepare(CHAIN_ID, address);
    }
    return { sourcify, etherscan };
  };
  const both = (s: Awaited<ReturnType<typeof open>>, address: string) =>
    Promise.all([s.sourcify.client.lookup(CHAIN_ID, address), s.etherscan.client.lookup(CHAIN_ID, address)]);
  const kinds = (outcomes: ContractSourceOutcome[]) => outcomes.map((o) => o.kind);

  it("opens both from the stand-ins' keys as the sandbox's sources", async () => {
    const s = await open(contractSourcesView());
    expect(s.sourcify.source).toBe('sandbox:sourcify');
    expect(s.etherscan.source).toBe('sandbox:etherscan');
    expect(opened!.config.contractSources.etherscanApiKey).toBeDefined();
    expect(JSON.stringify(s.etherscan)).not.toContain(opened!.config.contractSources.etherscanApiKey);
    expect(kinds(await both(s, ADDRESSES.pool))).toEqual(['verified', 'verified']);
  });

  it('429 past the retries: unavailable; within them, and 5xx: absorbed', async () => {
    const s = await open(contractSourcesView());
    const limit = { fault: { kind: 'secondary-limit', retryAfterSeconds: 1 }, times: 3 } as const;
    opened!.server('sourcify').faults.inject(limit);
    opened!.server('etherscan').faults.inject(limit);
    const limited = await both(s, ADDRESSES.pool);
    expect(kinds(limited)).toEqual(['unavailable', 'unavailable']);
    expect(limited.map((o) => (o.kind === 'unavailable' ? o.reason : ''))).toEqual([
      expect.stringContaining('HTTP 429'),
      expect.stringContaining('rate limit'),
    ]);
    opened!.server('sourcify').faults.inject({ ...limit, times: 1 }, { fault: { kind: 'server-error', status: 502 } });
    opened!.server('etherscan').faults.inject({ ...limit, times: 1 }, { fault: { kind: 'server-error', status: 503 } });
    expect(kinds(await both(s, ADDRESSES.pool))).toEqual(['verified', 'verified']);
  });

  it('"not verified" where the world deployed a contract without a shipped source, and where it deployed none', async () => {
    const s = await open(contractSourcesView());
    expect(kinds(await both(s, ADDRESSES.token))).toEqual(['unverified', 'unverified']);
    expect(kinds(await both(s, ADDRESSES.nothing))).toEqual(['unverified', 'unverified']);
  });

  it('a malformed standard JSON is an invalid outcome naming the file, from both services', async () => {
    const s = await open(brokenView(contractSourcesView()));
    const out = await both(s, ADDRESSES.feedProxy);
    // Sourcify's answer fails at its `sources` (checked before `stdJsonInput`), Etherscan's at the standard JSON.
    expect(out).toEqual([
      { kind: 'invalid', reason: expect.stringContaining('/sources/Broken.sol/content') },
      { kind: 'invalid', reason: expect.stringContaining('source "Broken.sol" has no "content"') },
    ]);
    // The other addresses are unaffected.
    expect(kinds(await both(s, ADDRESSES.pool))).toEqual(['verified', 'verified']);
  });
});
