import { describe, expect, it } from 'vitest';
import { isoSeconds } from '../core/time.js';
import type { StatusReport } from '../jobs/status.js';
import { FRESHNESS_METHOD, historyWindow } from '../jobs/status-history.js';
import {
  durationChart,
  escapeHtml,
  formatDuration,
  formatSpan,
  freshnessChart,
  niceCeil,
  niceSpan,
  prefersHtml,
  relativeTime,
  renderStatusPage,
  scaleY,
  serviceState,
  spanTick,
} from './status-page.js';

const NOW = 1_795_000_000;
const W = historyWindow(NOW);

function report(over: Partial<StatusReport> = {}): StatusReport {
  return {
    now: isoSeconds(NOW),
    store: 'sqlite',
    jobs: [],
    datasets: [],
    history: {
      since: isoSeconds(W.since),
      until: isoSeconds(W.until),
      bucket_seconds: W.bucketSeconds,
      truncated: false,
      jobs: [],
      freshness: { method: FRESHNESS_METHOD, computations: [] },
    },
    ...over,
  } as StatusReport;
}

const job = (name: string, over: Partial<StatusReport['jobs'][number]> = {}): StatusReport['jobs'][number] => ({
  name,
  area: 'dex',
  description: 'does a thing',
  every_seconds: 10,
  scheduled_here: true,
  running: false,
  next_run_at: isoSeconds(NOW + 8),
  consecutive_failures: 0,
  last_run: {
    started_at: isoSeconds(NOW - 241),
    finished_at: isoSeconds(NOW - 240),
    result: 'ok',
    duration_ms: 1234,
    attempts: 1,
    error: null,
    summary: 'published 3 documents',
  },
  ...over,
});

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', true],
    ['text/html', true],
    ['application/json;q=0.5, text/html', true],
    ['text/*;q=0.9, application/json;q=0.8', true],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/html', false],
    ['text/html;q=0.5, */*', false],
    ['', false],
    [undefined, false],
    ['garbage', false],
    ['text/html;q=abc', false],
  ])('%s → %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});

describe('formatting', () => {
  it('spans, durations and relative times in human units', () => {
    expect(formatSpan(45)).toBe('45 s');
    expect(formatSpan(240)).toBe('4 min');
    expect(formatSpan(7500)).toBe('2 h 5 min');
    expect(formatSpan(3 * 86_400 + 4 * 3600)).toBe('3 days 4 h');
    expect(formatDuration(120)).toBe('120 ms');
    expect(formatDuration(1440)).toBe('1.4 s');
    expect(formatDuration(12_400)).toBe('12 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(null)).toBe('—');
    expect([45, 900, 5400, 10_800, 172_800].map(spanTick)).toEqual(['45 s', '15 min', '1.5 h', '3 h', '2 d']);
    expect(relativeTime(isoSeconds(NOW - 240), isoSeconds(NOW))).toBe('4 min ago');
    expect(relativeTime(isoSeconds(NOW + 30), isoSeconds(NOW))).toBe('in 30 s');
    expect(relativeTime(isoSeconds(NOW - 2), isoSeconds(NOW))).toBe('just now');
    expect(relativeTime(null, isoSeconds(NOW))).toBe('—');
  });
});

describe('chart scaling', () => {
  it('the axis top is the next 1, 2, 2.5 or 5 × 10^k', () => {
    expect([0, -3, Number.NaN, 0.7, 1, 1.2, 2, 2.2, 3, 7, 10, 1234, 4999, 5001].map(niceCeil)).toEqual([
      1, 1, 1, 1, 1, 2, 2, 2.5, 5, 10, 10, 2000, 5000, 10_000,
    ]);
  });
  it('an axis of ages tops at a round span', () => {
    expect([0, 1, 45, 61, 300, 301, 1801, 5000, 9000, 50_000, 90_000, 400_000].map(niceSpan)).toEqual([
      60, 5, 60, 120, 300, 600, 3600, 7200, 10_800, 86_400, 172_800, 432_000,
    ]);
  });
  it('values map proportionally onto the axis and are clamped to it', () => {
    expect(scaleY(50, 200, 100)).toBe(25);
    expect(scaleY(200, 200, 100)).toBe(100);
    expect(scaleY(500, 200, 100)).toBe(100);
    expect(scaleY(-1, 200, 100)).toBe(0);
    expect(scaleY(1, 0, 100)).toBe(0);
  });
  it('bars stand at their bucket and are as tall as their longest run on a nice axis', () => {
    const win = { since: W.since, until: W.until, bucketSeconds: W.bucketSeconds, count: W.count };
    const at = (k: number) => isoSeconds(W.since + k * W.bucketSeconds);
    const svg = durationChart(
      [
        { start: at(0), runs: 2, failed: 0, running: 0, max_duration_ms: 800, mean_duration_ms: 500 },
        { start: at(71), runs: 1, failed: 1, running: 0, max_duration_ms: 400, mean_duration_ms: 400 },
      ],
      win,
    );
    const rects = [
      ...svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="([^"]+)"/g),
    ];
    expect(rects).toHaveLength(2);
    // Frame: 360 × 150, margins 60 / 12 / 12 / 34 → plot 288 × 104; axis top niceCeil(800) = 1000 ms.
    const [first, last] = rects.map((r) => r.slice(1).map((v, i) => (i < 4 ? Number(v) : v)));
    expect(first![0]).toBeCloseTo(60, 2);
    expect(first![3]).toBeCloseTo(104 * 0.8, 1);
    expect(last![0]).toBeCloseTo(60 + (71 * 288) / 72, 1);
    expect(last![3]).toBeCloseTo(104 * 0.4, 1);
    expect(first![4]).toBe('#2b8a3e');
    expect(last![4]).toBe('#c92a2a');
    expect(svg).toContain('>1.0 s</text>'); // the top tick
    expect(svg).toContain('>0 ms</text>');
    expect(svg).toContain('time (UTC)');
  });
  it('the freshness line follows the age and the fresh window is drawn on the same axis', () => {
    const win = { since: W.since, until: W.until, bucketSeconds: W.bucketSeconds, count: W.count };
    const points = Array.from({ length: W.count }, (_, k) => ({
      at: isoSeconds(Math.min(W.since + (k + 1) * W.bucketSeconds, NOW)),
      staleness_seconds: k < 10 ? null : 60,
      publications: 1,
    }));
    const svg = freshnessChart(points, 300, win);
    const line = svg.match(/<polyline points="([^"]+)"/)![1]!.split(' ');
    expect(line).toHaveLength(W.count - 10); // a gap before the first publication
    // Axis top niceSpan(300) = 300 s; age 60 s sits at 60/300 of 104 px above the bottom (y = 12 + 104).
    expect(Number(line[0]!.split(',')[1])).toBeCloseTo(116 - (60 / 300) * 104, 1);
    const limitY = Number(svg.match(/<line x1="60" x2="348" y1="([\d.]+)"[^>]*stroke-dasharray/)![1]);
    expect(limitY).toBeCloseTo(12, 1); // the window is the axis top
  });
});

describe('renderStatusPage', () => {
  it('escapes error text, summaries and names everywhere', () => {
    const evil = '<script>alert("x")</script> & \'quoted\'';
    const html = renderStatusPage(
      report({
        jobs: [
          job('dex.<b>compute</b>', {
            consecutive_failures: 2,
            last_run: { ...job('x').last_run!, result: 'failed', error: evil, summary: evil },
          }),
        ],
        sandbox: { rpc_url: 'http://127.0.0.1:8545/<x>' },
      } as Partial<StatusReport>),
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>compute');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;');
    expect(html).toContain('dex.&lt;b&gt;compute&lt;/b&gt;');
    expect(html).toContain('http://127.0.0.1:8545/&lt;x&gt;');
  });

  it('renders an empty state with no jobs, runs or datasets', () => {
    const html = renderStatusPage(report());
    expect(html).toContain('<!doctype html>');
    expect(html).toContain('>Starting<');
    expect(html).toContain('No jobs are scheduled by this process.');
    expect(html).toContain('Nothing has been published yet.');
    expect(html).toContain('No job has run in this window.');
    expect(html).not.toMatch(/NaN|undefined|Infinity/);
  });

  it('shows per job and per dataset the figures of the report, and the method of the freshness history', () => {
    const at = (k: number) => isoSeconds(W.since + k * W.bucketSeconds);
    const html = renderStatusPage(
      report({
        jobs: [job('dex.compute'), job('maintenance.prune', { area: null, last_run: null, next_run_at: null })],
        datasets: [
          {
            computation: 'dex.compute',
            area: 'dex',
            version: 7,
            published_at: isoSeconds(NOW - 240),
            documents: 1200,
            as_of: isoSeconds(NOW - 240),
            oldest_as_of: isoSeconds(NOW - 400),
            staleness_seconds: 240,
            stale: false,
            fresh_for_seconds: 3600,
          },
        ],
        history: {
          ...report().history,
          jobs: [
            {
              job: 'dex.compute',
              buckets: [{ start: at(3), runs: 1, failed: 0, running: 0, max_duration_ms: 9, mean_duration_ms: 9 }],
            },
          ],
          freshness: {
            method: FRESHNESS_METHOD,
            computations: [
              {
                computation: 'dex.compute',
                points: [{ at: isoSeconds(NOW), staleness_seconds: 240, publications: 1 }],
              },
            ],
          },
        },
      }),
    );
    expect(html).toContain('>Healthy<');
    expect(html).toContain('4 min ago');
    expect(html).toContain('4 min old');
    expect(html).toContain('1.2 s');
    expect(html).toContain('in 8 s');
    expect(html).toContain('1,200');
    expect(html).toContain('never run');
    expect(html).toContain('<h3>service</h3>');
    expect(html).toContain(escapeHtml(FRESHNESS_METHOD));
    expect(html.match(/data-chart="duration"/g)).toHaveLength(1);
    expect(html.match(/data-chart="freshness"/g)).toHaveLength(1);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('says which jobs another process schedules, and shows extra fields (the sandbox) as a table', () => {
    const html = renderStatusPage(
      report({
        jobs: [job('dex.ingest', { scheduled_here: false, description: null, every_seconds: null })],
        sandbox: { rpc_url: 'http://127.0.0.1:8545', chain_id: 31337, simulated_until: NOW },
        sandbox_chains: { optimism: { chain_id: 10, rpc_url: 'http://127.0.0.1:9545', simulated_until: NOW } },
      } as Partial<StatusReport>),
    );
    expect(html).toContain('scheduled by another process (a worker)');
    expect(html).toContain('data-extra="sandbox"');
    expect(html).toContain(`<th>chain_id</th><td><code>31337</code></td>`);
    // A chain's fields are rows of their own, not a JSON blob.
    expect(html).toContain('data-extra="sandbox_chains"');
    expect(html).toContain(`<th>optimism · chain_id</th><td><code>10</code></td>`);
    expect(html).not.toContain(`${NOW} (`);
  });

  it('shows every instant as ISO (issue 13): now, last and next runs, publications, as_of, chart buckets', () => {
    const r = report({
      jobs: [job('dex.compute')],
      datasets: [
        {
          computation: 'dex.compute',
          area: 'dex',
          version: 7,
          published_at: isoSeconds(NOW - 200),
          documents: 12,
          as_of: isoSeconds(NOW - 240),
          oldest_as_of: isoSeconds(NOW - 400),
          staleness_seconds: 240,
          stale: false,
          fresh_for_seconds: 3600,
        },
      ],
      history: {
        ...report().history,
        jobs: [
          {
            job: 'dex.compute',
            buckets: [
              { start: isoSeconds(W.since), runs: 1, failed: 0, running: 0, max_duration_ms: 9, mean_duration_ms: 9 },
            ],
          },
        ],
      },
    });
    const html = renderStatusPage(r);
    expect(html).toContain(`<title>${isoSeconds(W.since)}: 1 run`);
    const instants = [r.now, ...r.jobs.flatMap((j) => [j.next_run_at, j.last_run?.finished_at])]
      .concat(r.datasets.flatMap((d) => [d.as_of, d.published_at]))
      .filter((x): x is string => typeof x === 'string');
    expect(instants.length).toBeGreaterThan(2);
    for (const at of instants) expect(html).toContain(`<time datetime="${at}">${at}</time>`);
    expect(html).not.toMatch(/\d\d:\d\d(:\d\d)? UTC/);
  });

  it('names failing jobs and stale datasets in the header state', () => {
    const failing = report({ jobs: [job('a', { consecutive_failures: 1 })] });
    expect(serviceState(failing)).toMatchObject({ label: 'Degraded', detail: '1 job failing' });
    const severe = report({ jobs: [job('a', { consecutive_failures: 3 }), job('b', { consecutive_failures: 5 })] });
    expect(serviceState(severe)).toMatchObject({ label: 'Failing', tone: 'bad', detail: '2 jobs failing' });
  });
});
