import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from './helpers.js';
import { SEEDED_ERROR, SEEDED_JOBS, seedStatusHistory } from './support/status-history.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('/status', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp({ env: { LOG_LEVEL: 'warn' } });
    await seedStatusHistory(t.store, t.clock.nowMs());
  });
  afterAll(() => t?.close());

  it('machines get JSON (no Accept, */*, application/json) with the history of the last six hours', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html']) {
      const res = await t.app.inject({ url: '/status', headers: accept ? { accept } : {} });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(String(res.headers.vary)).toMatch(/accept(,|$)/i);
    }
    const { data } = (await t.app.inject({ url: '/status' })).json();
    expect(data.history.bucket_seconds).toBe(300);
    expect(Date.parse(data.history.until) - Date.parse(data.history.since)).toBeLessThanOrEqual(6 * 3600_000);
    // The worker's jobs are known from the store, though this `serve` process schedules none of them.
    const names = data.jobs.map((j: { name: string }) => j.name);
    for (const job of SEEDED_JOBS) expect(names).toContain(job.name);
    const lending = data.jobs.find((j: { name: string }) => j.name === 'lending.ingest');
    expect(lending).toMatchObject({ area: 'lending', scheduled_here: false, consecutive_failures: 3 });
    expect(lending.last_run).toMatchObject({ result: 'failed', error: SEEDED_ERROR });
    expect(data.jobs.find((j: { name: string }) => j.name === 'dex.ingest').running).toBe(true);
    // Runs: every seeded run of the window is counted once, in the bucket it started in.
    const runsOf = (job: string) =>
      data.history.jobs
        .find((j: { job: string }) => j.job === job)
        .buckets.reduce((n: number, b: { runs: number }) => n + b.runs, 0);
    expect(runsOf('dex.compute')).toBe(35); // 36 runs from six hours ago, the first before the aligned window
    expect(runsOf('prices.hourly')).toBe(5);
    // Freshness: dex keeps a minute behind, oracles stopped publishing two hours ago and is stale now.
    const fresh = (c: string) =>
      data.history.freshness.computations.find((x: { computation: string }) => x.computation === c).points;
    const dex = fresh('dex.compute');
    expect(dex).toHaveLength(72);
    expect(Math.max(...dex.map((p: { staleness_seconds: number }) => p.staleness_seconds))).toBeLessThanOrEqual(660);
    const oracles = fresh('oracles.compute');
    expect(oracles.at(-1).staleness_seconds).toBeGreaterThan(2 * 3600);
    expect(data.datasets.find((d: { computation: string }) => d.computation === 'oracles.compute').stale).toBe(true);
    expect(data.history.freshness.method).toMatch(/publication history/);
  });

  it('a browser gets the page, which loads nothing from anywhere', async () => {
    const res = await t.app.inject({ url: '/status', headers: { accept: BROWSER_ACCEPT } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(String(res.headers.vary)).toMatch(/accept/i);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src/);
    const html = res.body;
    expect(html).not.toMatch(/<script|src=|https?:\/\//i);
    expect(html).toContain('RPC &lt;b&gt;timeout&lt;/b&gt;');
    expect(html).toContain('>Failing<'); // three failures in a row
    for (const job of SEEDED_JOBS) expect(html).toContain(`data-job="${job.name}"`);
    expect(html.match(/data-chart="duration"/g)).toHaveLength(SEEDED_JOBS.length);
    expect(html.match(/data-chart="freshness"/g)).toHaveLength(3);
  });
});
