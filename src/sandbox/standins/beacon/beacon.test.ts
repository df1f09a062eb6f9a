import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilLite, startAnvil } from '../../../../test/support/anvil-lite.js';
import { BeaconClient, BeaconError } from '../../../sources/beacon/client.js';
import { VALIDATOR_STATUSES } from '../../../sources/beacon/schemas.js';
import { type BeaconStandin, startBeaconStandin } from './server.js';
import { BeaconWorld, EPOCH_SECONDS } from './world.js';

/** The beacon source against its stand-in (schemas, filters, errors), and the stand-in's finality mapping. */

const NOW = Date.parse('2026-11-24T12:00:00Z');
const clock = { nowMs: () => NOW };

describe('beacon world', () => {
  it('walks validators through every status of the lifecycle, deterministically by seed, moving only forward', () => {
    const world = new BeaconWorld(7, 512, 8);
    const again = new BeaconWorld(7, 512, 8);
    const epochs = [0, 225, 900, 1800, 2700];
    const seen = new Set<string>();
    for (const e of epochs) expect(again.at(e)).toEqual(world.at(e));
    for (let e = 0; e <= 2700; e += 45) for (const v of world.at(e)) seen.add(v.status);
    for (const s of VALIDATOR_STATUSES) expect(seen, s).toContain(s);
    const order = VALIDATOR_STATUSES.map((s) => s.replace(/_.*/, ''));
    const rank = (s: string) => ['pending', 'active', 'exited', 'withdrawal'].indexOf(s.replace(/_.*/, ''));
    for (const v of world.validators) {
      let last = -1;
      for (const e of epochs) {
        const view = world.at(e).find((x) => x.index === String(v.index));
        if (!view) continue;
        expect(rank(view.status)).toBeGreaterThanOrEqual(last);
        last = rank(view.status);
      }
    }
    expect(order).toContain('withdrawal');
    const balances = world.at(900).map((v) => BigInt(v.balance));
    expect(balances.every((b) => b >= 0n)).toBe(true);
  });
});

describe('beacon source against the stand-in', () => {
  let standin: BeaconStandin;
  let client: BeaconClient;

  beforeAll(async () => {
    standin = await startBeaconStandin({ seed: 3, clock, days: 8, validators: 300 });
    client = new BeaconClient({ baseUrl: standin.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await standin?.close();
  });

  it('reads genesis, spec, head and finality with numbers as decimal strings', async () => {
    const genesis = await client.genesis();
    expect(genesis.genesisTime).toBe(NOW / 1000 - 8 * 86_400);
    expect(await client.spec()).toEqual({ secondsPerSlot: 12, slotsPerEpoch: 32 });
    const head = await client.headSlot();
    expect(head).toBe(Math.floor((8 * 86_400) / 12));
    const f = await client.finality();
    expect(f.finalizedEpoch).toBe(Math.floor(head / 32) - 2);
    expect(f.justifiedEpoch).toBe(f.finalizedEpoch + 1);
  });

  it('counts validators status by status, exactly as the registry holds them', async () => {
    const counts = await client.validatorCounts('head');
    const epoch = Math.floor((8 * 86_400) / EPOCH_SECONDS);
    const all = standin.world.at(epoch);
    for (const s of VALIDATOR_STATUSES) expect(counts.byStatus[s], s).toBe(all.filter((v) => v.status === s).length);
    expect(counts.totalBalanceGwei).toBe(all.reduce((t, v) => t + BigInt(v.balance), 0n));
    expect(counts.activeStakeGwei).toBe(
      all.filter((v) => v.status.startsWith('active_')).reduce((t, v) => t + BigInt(v.validator.effective_balance), 0n),
    );
    // One request per status: never the whole registry in one answer.
    const asked = standin.log.filter((r) => r.url.includes('/validators'));
    expect(asked.every((r) => /status=[a-z_]+$/.test(r.url))).toBe(true);
    // A general filter (`active`) covers its sub-statuses.
    const res = await fetch(`${standin.url}/eth/v1/beacon/states/head/validators?status=active`);
    const active = ((await res.json()) as { data: { status: string }[] }).data;
    expect(active.length).toBe(all.filter((v) => v.status.startsWith('active_')).length);
  });

  it('refuses unknown states and filters with the beacon API’s errors, not retried', async () => {
    await expect(client.validators('99999999')).rejects.toThrow(/HTTP 404: State not found/);
    await expect(client.finality('nonsense')).rejects.toThrow(/HTTP 400: Invalid state ID/);
    const err = await client.validators('head', ['bogus' as never]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BeaconError);
    expect((err as BeaconError).retryable).toBe(false);
  });

  it('fails a malformed answer at the boundary, naming the field', async () => {
    const broken = new BeaconClient({
      baseUrl: 'http://beacon.invalid',
      fetch: async () =>
        new Response(
          JSON.stringify({
            data: { genesis_time: 12, genesis_validators_root: `0x${'0'.repeat(64)}`, genesis_fork_version: '0x0' },
          }),
          { status: 200 },
        ),
    });
    await expect(broken.genesis()).rejects.toThrow(/unexpected answer at \/data\/genesis_time/);
  });

  it('retries a 503 and gives up retryable', async () => {
    let calls = 0;
    const flaky = new BeaconClient({
      baseUrl: 'http://beacon.invalid',
      maxRetries: 2,
      sleep: async () => undefined,
      fetch: async () => {
        calls++;
        return new Response('busy', { status: 503 });
      },
    });
    const err = await flaky.headSlot().catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect((err as BeaconError).retryable).toBe(true);
  });
});

describe('the finalized checkpoint maps to the chain’s finalized block', () => {
  let anvil: AnvilLite;
  let standin: BeaconStandin;

  beforeAll(async () => {
    anvil = await startAnvil();
    await anvil.rpc('anvil_mine', ['0x60', '0xc']);
    const latest = await anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
    const at = Number.parseInt(latest.timestamp, 16) * 1000;
    standin = await startBeaconStandin({ seed: 1, clock: { nowMs: () => at }, days: 1, rpcUrl: anvil.url });
  }, 60_000);
  afterAll(async () => {
    await standin?.close();
    await anvil?.stop();
  });

  it('epoch of the finalized block’s time, its hash as the root; genesis is block 0', async () => {
    const client = new BeaconClient({ baseUrl: standin.url, maxRetries: 0 });
    const finalized = await anvil.rpc<{ hash: string; timestamp: string; number: string }>('eth_getBlockByNumber', [
      'finalized',
      false,
    ]);
    const genesis = await anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['0x0', false]);
    expect(Number.parseInt(finalized.number, 16)).toBeGreaterThan(0);
    const g = Number.parseInt(genesis.timestamp, 16);
    expect((await client.genesis()).genesisTime).toBe(g);
    const f = await client.finality();
    expect(f.finalizedRoot).toBe(finalized.hash);
    expect(f.finalizedEpoch).toBe(Math.floor((Number.parseInt(finalized.timestamp, 16) - g) / EPOCH_SECONDS));
  });
});
