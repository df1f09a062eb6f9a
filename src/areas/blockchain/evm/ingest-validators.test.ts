import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testStore } from '../../../../test/helpers.js';
import type { JobContext } from '../../../jobs/types.js';
import { type BeaconStandin, startBeaconStandin } from '../../../sandbox/standins/beacon/server.js';
import { BeaconClient } from '../../../sources/beacon/client.js';
import type { BeaconEndpoint } from '../../../sources/beacon/endpoint.js';
import type { EvmChains } from '../../../sources/evm/chains.js';
import type { Store } from '../../../store/db.js';
import type { NetworkSample } from './facts.js';
import { BlockchainIngest, VALIDATOR_RETRY_SECONDS } from './ingest.js';
import type { EvmChainTarget } from './targets.js';

/**
 * The network sample's validator read against a provider that refuses the registry (issue 30 item 1): the sample is
 * stored with the validators unavailable and why (the area does not fail, the beacon finality stands), the read is
 * not repeated at every sample but an hour later, and once it succeeds not again that day.
 */

const NOW = Date.parse('2026-11-24T12:00:00Z');
const TARGET: EvmChainTarget = {
  chain: 'ethereum',
  layer: 'l1',
  kind: 'l1',
  finalityDepth: 64,
  blockTimeSeconds: 12,
  beacon: true,
};

/** An execution node that answers the sample's reads (its head at the clock's time). */
function chains(clock: { nowMs(): number }): EvmChains {
  const block = () => ({ number: 1000, timestamp: Math.floor(clock.nowMs() / 1000), gasLimit: 30_000_000n });
  return {
    source: () => ({
      full: {
        taggedBlock: async () => block(),
        txpoolStatus: async () => ({ pending: 0, queued: 0 }),
        feeHistory: async () => ({ baseFeePerBlobGas: [1n] }),
      },
    }),
  } as unknown as EvmChains;
}

describe('blockchain ingest: the validator read against a refusing provider', () => {
  let standin: BeaconStandin;
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    standin = await startBeaconStandin({ seed: 2, clock: { nowMs: () => NOW }, days: 8, validators: 100 });
  });
  afterAll(async () => {
    await standin?.close();
  });
  afterEach(async () => {
    await cleanup?.();
  });

  it('stores the refusal as the reason, retries an hour later, then once a day', async () => {
    ({ store, cleanup } = testStore());
    await store.migrate();
    let now = NOW;
    const clock = { nowMs: () => now };
    let refuse = true;
    const listed: number[] = [];
    const client = new BeaconClient({
      baseUrl: standin.url,
      maxRetries: 0,
      fetch: async (input, init) => {
        if (String(input).includes('/validators?')) {
          listed.push(now);
          if (refuse) return new Response('{"code":413,"message":"Payload Too Large"}', { status: 413 });
        }
        return fetch(input, init);
      },
    });
    const beacon = { client, chain: 'ethereum', baseUrl: standin.url, source: 'beacon' } as BeaconEndpoint;
    const ingest = new BlockchainIngest(chains(clock), beacon);
    const ctx = { store, clock, attempt: 1, signal: new AbortController().signal } as unknown as JobContext;
    const sample = (ingest as unknown as { sample(c: JobContext, t: EvmChainTarget): Promise<string> }).sample.bind(
      ingest,
    );
    const stored = async () => {
      const rows = await (
        store.db as unknown as import('kysely').Kysely<{ blockchain_samples: { taken_at: number; data: string } }>
      )
        .selectFrom('blockchain_samples')
        .select(['taken_at', 'data'])
        .orderBy('taken_at', 'desc')
        .execute();
      return JSON.parse(rows[0]!.data) as NetworkSample;
    };

    expect(await sample(ctx, TARGET)).toBe('sampled (unavailable: validators)');
    let s = await stored();
    expect(s.validators).toBeNull();
    expect(s.unavailable.validators).toMatch(/HTTP 413: Payload Too Large/);
    expect(s.beacon?.headSlot).toBeGreaterThan(0);
    expect(s.unavailable.beacon).toBeUndefined();
    expect(listed.length).toBe(1);

    // The next samples within the hour do not ask for the registry again.
    now += 120_000;
    expect(await sample(ctx, TARGET)).toBe('sampled');
    now += (VALIDATOR_RETRY_SECONDS - 200) * 1000;
    expect(await sample(ctx, TARGET)).toBe('sampled');
    expect(listed.length).toBe(1);

    // An hour after the failure it is tried again; the provider now answers: the day's snapshot, exact.
    refuse = false;
    now += 100_000;
    expect(await sample(ctx, TARGET)).toBe('sampled with validators');
    s = await stored();
    expect(s.validators?.countedBy).toBe('validators');
    const all = standin.world.at(Math.floor(s.validators!.slot / 32));
    expect(Object.values(s.validators!.byStatus).reduce((a, b) => a + b, 0)).toBe(all.length);
    expect(s.validators?.totalBalanceGwei).toBe(String(all.reduce((t, v) => t + BigInt(v.balance), 0n)));

    // Not again that day.
    const asked = listed.length;
    now += 2 * 3600_000;
    expect(await sample(ctx, TARGET)).toBe('sampled');
    expect(listed.length).toBe(asked);
  });
});
