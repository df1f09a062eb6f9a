import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from './examples.js';
import { type TestApp, testApp } from './helpers.js';

/**
 * Overload shedding answers real request load, and recovers (issue 12, outcome 1). A load generator in another
 * process (autocannon) floods a listening API with real requests for a served document; the API must start
 * answering `503 overloaded` with `Retry-After`, and answer 200 again within seconds once the flood stops. The
 * service's limits are set low here (event-loop utilisation over 100 ms samples) so that a two-core CI machine
 * reaches them; the production values are not what is tested.
 */

// A flood keeps the loop busy nearly all the time (utilisation ≈ 1); the test's own probes, a few ms every 100 ms,
// stay far below 0.75 even on a machine whose cores are shared.
const LIMITS = { maxEventLoopUtilization: 0.75, sampleIntervalMs: 200, retryAfterSeconds: 3 };
const STEADY = 10;
const PROBE_MS = 100;
const pool = EXAMPLES.find((e) => e.def.id === 'dex.pool-analytics')!;
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

interface Answer {
  status: number;
  headers: Headers;
  body: string;
  ms: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The instant (performance.now()) at which a run of `STEADY` answers of 200, one every `PROBE_MS`, began; anything
 * but 200 or 503 fails, and so does no such run within `withinMs`.
 */
async function steady200(ask: () => Promise<Answer>, withinMs: number): Promise<number> {
  const started = performance.now();
  let runStart: number | undefined;
  let run = 0;
  for (;;) {
    const at = performance.now();
    const answer = await ask();
    if (answer.status === 200) {
      runStart ??= at;
      if (++run === STEADY) return runStart;
    } else {
      expect(answer.status, 'only 200 or 503 overloaded').toBe(503);
      runStart = undefined;
      run = 0;
    }
    expect(performance.now() - started, `no steady 200s within ${withinMs} ms`).toBeLessThan(withinMs);
    await sleep(PROBE_MS);
  }
}

describe('overload', () => {
  let t: TestApp;
  let url: string;
  let flood: ChildProcess | undefined;

  beforeAll(async () => {
    t = await testApp({ overload: LIMITS });
    const hourly = Array.from({ length: 168 }, (_, i) => ({ hour: i, volume_usd: 1000 + i * 17.5, trades: i % 13 }));
    await t.publish('test.overload', 'dex', [
      {
        path: pool.documentPath,
        data: { pool_address: pool.values.pool_address, hourly },
        asOf: Math.floor(t.clock.nowMs() / 1000) - 60,
        source: 'test',
        freshFor: 3600,
      },
    ]);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}${pool.path}`;
  });

  afterAll(async () => {
    if (flood && flood.exitCode === null) flood.kill('SIGKILL');
    await t?.close();
  });

  it('a flood of real requests gets 503 overloaded with Retry-After, and the API recovers once it stops', async () => {
    const { token } = await t.createToken({ rateLimit: 100_000_000, rateWindowSeconds: 60 });
    const authorization = `Bearer ${token}`;
    const ask = async (): Promise<Answer> => {
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization } });
      return { status: res.status, headers: res.headers, body: await res.text(), ms: performance.now() - started };
    };

    // Unloaded (once the set-up's own work has left the last sample), the document is served, steadily.
    await steady200(ask, 10_000);

    flood = spawn(
      process.execPath,
      [AUTOCANNON, '-c', '64', '-p', '8', '-d', '60', '-H', `authorization=${authorization}`, url],
      { stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => flood!.once('exit', () => resolve()));
    const floodStarted = performance.now();
    let shed: Answer | undefined;
    while (!shed && performance.now() - floodStarted < 20_000) {
      const answer = await ask();
      if (answer.status === 503) shed = answer;
      else expect(answer.status).toBe(200);
      await sleep(20);
    }
    const shedAfterMs = performance.now() - floodStarted;

    flood.kill('SIGKILL');
    await exited;
    const stopped = performance.now();

    expect(shed, 'the flood never made the API shed requests').toBeDefined();
    expect(shed!.headers.get('retry-after')).toBe(String(LIMITS.retryAfterSeconds));
    expect(shed!.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(shed!.body)).toEqual({
      status: false,
      error: { code: 'overloaded', message: expect.any(String), request_id: expect.any(String) },
    });

    // Recovery: within a few seconds, steady 200s again.
    const recovered = (await steady200(ask, 5_000 + STEADY * PROBE_MS)) - stopped;
    expect(recovered).toBeLessThan(5_000);
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/protoscore_http_requests_total\{[^}]*status="503"[^}]*\} [1-9]/);
    console.info(
      `overload: first 503 after ${shedAfterMs.toFixed(0)} ms of flood; 200 again ${recovered.toFixed(0)} ms after it stopped`,
    );
  }, 60_000);
});
