import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BeaconClient, BeaconError } from '../../../sources/beacon/client.js';
import { VALIDATOR_STATUSES } from '../../../sources/beacon/schemas.js';
import { type BeaconStandin, startBeaconStandin } from './server.js';
import { EPOCH_SECONDS } from './world.js';

/**
 * Counting the registry (issue 30 item 1) against the stand-in: through the node's counting endpoint where it has
 * one (Prysm's `validator_count`), through the streamed list where it has not, and a provider that refuses the list:
 * the counts stand with the sums null and the refusal as their reason, or, without a counting endpoint, a
 * `BeaconError` that says so (the area's gap). The POST variant of the list answers as the GET.
 */

const NOW = Date.parse('2026-11-24T12:00:00Z');
const clock = { nowMs: () => NOW };
const HEAD_EPOCH = Math.floor((8 * 86_400) / EPOCH_SECONDS);

/** A fetch that answers the validator list with `status` (a provider refusing it) and forwards the rest. */
const refusing =
  (status: number, seen: string[]) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    seen.push(url);
    if (url.includes('/validators?')) {
      return new Response(JSON.stringify({ code: status, message: 'Request Entity Too Large' }), { status });
    }
    return fetch(input, init);
  };

describe('validator counts', () => {
  let plain: BeaconStandin;
  let counting: BeaconStandin;

  beforeAll(async () => {
    plain = await startBeaconStandin({ seed: 5, clock, days: 8, validators: 400 });
    counting = await startBeaconStandin({ seed: 5, clock, days: 8, validators: 400, validatorCount: true });
  });
  afterAll(async () => {
    await plain?.close();
    await counting?.close();
  });

  const expected = (standin: BeaconStandin) => {
    const all = standin.world.at(HEAD_EPOCH);
    return {
      byStatus: Object.fromEntries(VALIDATOR_STATUSES.map((s) => [s, all.filter((v) => v.status === s).length])),
      totalBalanceGwei: all.reduce((t, v) => t + BigInt(v.balance), 0n),
      activeStakeGwei: all
        .filter((v) => v.status.startsWith('active_'))
        .reduce((t, v) => t + BigInt(v.validator.effective_balance), 0n),
    };
  };

  it('without a counting endpoint: the streamed list, after one 404 from validator_count', async () => {
    const client = new BeaconClient({ baseUrl: plain.url, maxRetries: 0 });
    const from = plain.log.length;
    const counts = await client.validatorCounts('head');
    expect(counts).toEqual({ ...expected(plain), countedBy: 'validators' });
    const asked = plain.log.slice(from);
    expect(asked.filter((r) => r.url.includes('/validator_count')).map((r) => r.status)).toEqual([404]);
    expect(asked.filter((r) => r.url.includes('/validators?')).length).toBe(VALIDATOR_STATUSES.length);
  });

  it('with the counting endpoint: its counts, agreeing with the list, which gives the sums', async () => {
    const client = new BeaconClient({ baseUrl: counting.url, maxRetries: 0 });
    const counts = await client.validatorCounts('head');
    expect(counts).toEqual({ ...expected(counting), countedBy: 'validator_count' });
    const res = await fetch(`${counting.url}/eth/v1/beacon/states/head/validator_count?status=active`);
    const body = (await res.json()) as { data: { status: string; count: string }[]; finalized: string };
    const active = VALIDATOR_STATUSES.filter((s) => s.startsWith('active_'));
    expect(body.data).toEqual([
      { status: 'active', count: String(active.reduce((t, s) => t + counts.byStatus[s], 0)) },
    ]);
    expect(body.finalized).toBe('false');
  });

  it('a refused list with the counting endpoint: the counts stand, the sums are null with the refusal', async () => {
    const seen: string[] = [];
    const client = new BeaconClient({ baseUrl: counting.url, maxRetries: 0, fetch: refusing(413, seen) });
    const counts = await client.validatorCounts('head');
    expect(counts.byStatus).toEqual(expected(counting).byStatus);
    expect(counts.activeStakeGwei).toBeNull();
    expect(counts.totalBalanceGwei).toBeNull();
    expect(counts.sumsUnavailable).toMatch(/HTTP 413: Request Entity Too Large/);
    // Refused at once (a 413 is not retried), after the first status.
    expect(seen.filter((u) => u.includes('/validators?')).length).toBe(1);
  });

  it('a refused list without it (429 after the retries): a retryable BeaconError naming the refusal', async () => {
    const seen: string[] = [];
    const client = new BeaconClient({
      baseUrl: plain.url,
      maxRetries: 2,
      sleep: async () => undefined,
      fetch: refusing(429, seen),
    });
    const err = await client.validatorCounts('head').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BeaconError);
    expect((err as BeaconError).message).toMatch(/validator list refused or failed after 3 attempts: HTTP 429/);
    expect(seen.filter((u) => u.includes('/validators?')).length).toBe(3);
  });

  it('a list cut short is retried, then counted whole', async () => {
    let cut = 1;
    const client = new BeaconClient({
      baseUrl: plain.url,
      maxRetries: 1,
      sleep: async () => undefined,
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!String(input).includes('/validators?') || cut-- <= 0) return res;
        const text = await res.text();
        return new Response(text.slice(0, Math.floor(text.length / 2)), { status: 200 });
      },
    });
    expect(await client.validatorCounts('head')).toEqual({ ...expected(plain), countedBy: 'validators' });
  });

  it('POST of the list answers as the GET, its filters in the body', async () => {
    const get = await (await fetch(`${plain.url}/eth/v1/beacon/states/head/validators?status=active,exited`)).json();
    const post = await (
      await fetch(`${plain.url}/eth/v1/beacon/states/head/validators`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ids: null, statuses: ['active', 'exited'] }),
      })
    ).json();
    expect(post).toEqual(get);
    expect((post as { data: unknown[] }).data.length).toBeGreaterThan(0);
    const bad = await fetch(`${plain.url}/eth/v1/beacon/states/head/validators`, {
      method: 'POST',
      body: '{"statuses":"x"}',
    });
    expect(bad.status).toBe(400);
  });
});
