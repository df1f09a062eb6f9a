import type { StatusReport } from '../jobs/status.js';

/**
 * The `/status` page for a person: the JSON report rendered as one self-contained HTML document (inline CSS and
 * server-side SVG charts, no script, nothing loaded from anywhere). Pure: the report in, the page out.
 */

/** The page loads nothing: no script at all, styles and images only from the document itself. */
export const STATUS_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Quality of `type` in an Accept header: the most specific matching range wins (RFC 9110 §12.5.1). */
function quality(ranges: readonly { type: string; sub: string; q: number }[], type: string, sub: string): number {
  let best = -1;
  let q = 0;
  for (const r of ranges) {
    const specificity =
      r.type === type && r.sub === sub ? 2 : r.type === type && r.sub === '*' ? 1 : r.type === '*' ? 0 : -1;
    if (specificity > best) {
      best = specificity;
      q = r.q;
    }
  }
  return q;
}

/**
 * Whether an Accept header prefers `text/html` to `application/json` (a browser). A tie, `*` / `*`, no header or a
 * malformed one keep the JSON: machines and curl get what they always got.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').flatMap((part) => {
    const [range, ...params] = part.trim().split(';');
    const [type, sub] = (range ?? '').trim().toLowerCase().split('/');
    if (!type || !sub) return [];
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v);
        q = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0;
      }
    }
    return [{ type, sub, q }];
  });
  return quality(ranges, 'text', 'html') > quality(ranges, 'application', 'json');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or attribute value made safe for HTML and SVG. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A span of seconds in the largest two units a person reads: `45 s`, `4 min`, `2 h 5 min`, `3 d 4 h`. */
export function formatSpan(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) {
    const m = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${m ? ` ${m} min` : ''}`;
  }
  const h = Math.floor((s % 86_400) / 3600);
  return `${plural(Math.floor(s / 86_400), 'day')}${h ? ` ${h} h` : ''}`;
}

/** `4 min ago`, `in 30 s`, `just now`, from an instant and the report's now. */
export function relativeTime(atIso: string | null, nowIso: string): string {
  if (!atIso) return '—';
  const diff = (Date.parse(atIso) - Date.parse(nowIso)) / 1000;
  if (Math.abs(diff) < 5) return diff < 0 ? 'just now' : 'now';
  return diff < 0 ? `${formatSpan(-diff)} ago` : `in ${formatSpan(diff)}`;
}

/** A run's duration: `120 ms`, `1.4 s`, `12 s`, `2 min 5 s`. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return formatSpan(s);
}

/** The smallest 1, 2, 2.5 or 5 × 10^k at or above `value` (the top of a chart's axis); 1 for nothing. */
export function niceCeil(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const exp = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= value - 1e-9 * exp) return m * exp;
  return 10 * exp;
}

/** An axis label of an age: `90 s`, `15 min`, `1.5 h`, `3 h`, `2 d`. */
export function spanTick(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 3600 * 1.5) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86_400 * 2) return `${Number((seconds / 3600).toFixed(1))} h`;
  return `${Number((seconds / 86_400).toFixed(1))} d`;
}

const SPAN_STEPS = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];

/** The top of an axis of ages in seconds: a round span (`30 min`, `2 h`, `3 h`, whole days), at or above `seconds`. */
export function niceSpan(seconds: number): number {
  if (!(seconds > 0) || !Number.isFinite(seconds)) return 60;
  const step = SPAN_STEPS.find((s) => s >= seconds);
  return step ?? niceCeil(seconds / 86_400) * 86_400;
}

/** Where a value sits on an axis of `height` pixels whose top is `max` (clamped to the axis). */
export function scaleY(value: number, max: number, height: number): number {
  if (!(max > 0)) return 0;
  return Math.max(0, Math.min(height, (value / max) * height));
}

type JobRow = StatusReport['jobs'][number];
type DatasetRow = StatusReport['datasets'][number];
type JobBuckets = StatusReport['history']['jobs'][number]['buckets'];
type FreshnessPoints = StatusReport['history']['freshness']['computations'][number]['points'];
type Bucket = JobBuckets[number];

const COLORS = {
  ok: '#2b8a3e',
  mixed: '#e8590c',
  failed: '#c92a2a',
  running: '#1c7ed6',
  line: '#5f3dc4',
  fill: '#e5dbff',
  limit: '#c92a2a',
  grid: '#dee2e6',
  axis: '#868e96',
};

function bucketColor(b: Bucket): string {
  if (b.failed > 0) return b.failed >= b.runs - b.running ? COLORS.failed : COLORS.mixed;
  if (b.max_duration_ms === null) return COLORS.running;
  return COLORS.ok;
}

interface Frame {
  readonly width: number;
  readonly height: number;
  /** Left, right, top, bottom margins (axes labels live there). */
  readonly margin: readonly [number, number, number, number];
}

const CHART: Frame = { width: 360, height: 150, margin: [60, 12, 12, 34] };
const SPARK: Frame = { width: 150, height: 28, margin: [0, 0, 2, 2] };

interface Window {
  readonly since: number;
  readonly until: number;
  readonly bucketSeconds: number;
  readonly count: number;
}

function windowOf(report: StatusReport): Window {
  const since = Date.parse(report.history.since) / 1000;
  const until = Date.parse(report.history.until) / 1000;
  const bucketSeconds = report.history.bucket_seconds;
  // The window's buckets end with the one that holds `until` (see historyWindow).
  return { since, until, bucketSeconds, count: Math.floor((until - since) / bucketSeconds) + 1 };
}

const hhmm = (unix: number) => new Date(unix * 1000).toISOString().slice(11, 16);

/** The axes of a chart: y ticks at 0, half and top, x ticks at whole hours, both axes titled. */
function axes(frame: Frame, win: Window, top: number, yLabel: (v: number) => string, yTitle: string): string {
  const [l, r, t, b] = frame.margin;
  const w = frame.width - l - r;
  const h = frame.height - t - b;
  const span = Math.max(1, win.count * win.bucketSeconds);
  const parts: string[] = [];
  for (const f of [0, 0.5, 1]) {
    const y = t + h - f * h;
    parts.push(`<line x1="${l}" x2="${l + w}" y1="${y}" y2="${y}" stroke="${COLORS.grid}" stroke-width="1"/>`);
    parts.push(`<text x="${l - 6}" y="${y + 4}" text-anchor="end" class="tick">${escapeHtml(yLabel(top * f))}</text>`);
  }
  const firstHour = Math.ceil(win.since / 3600) * 3600;
  for (let at = firstHour; at <= win.since + span; at += 3600) {
    const x = l + ((at - win.since) / span) * w;
    parts.push(`<line x1="${x}" x2="${x}" y1="${t + h}" y2="${t + h + 4}" stroke="${COLORS.axis}"/>`);
    parts.push(`<text x="${x}" y="${t + h + 16}" text-anchor="middle" class="tick">${hhmm(at)}</text>`);
  }
  parts.push(`<line x1="${l}" x2="${l + w}" y1="${t + h}" y2="${t + h}" stroke="${COLORS.axis}"/>`);
  parts.push(
    `<text x="${l + w}" y="${frame.height - 2}" text-anchor="end" class="axis-title">time (UTC)</text>`,
    `<text x="12" y="${t + h / 2}" text-anchor="middle" class="axis-title" transform="rotate(-90 12 ${t + h / 2})">${escapeHtml(yTitle)}</text>`,
  );
  return parts.join('');
}

/**
 * Bars of run durations per bucket (the longest finished run of the bucket), coloured by result; a bucket with
 * runs still going and none finished gets a thin marker. `axesOn` adds the axes and their titles.
 */
export function durationChart(buckets: JobBuckets, win: Window, frame: Frame = CHART, axesOn = true): string {
  const [l, r, t, b] = frame.margin;
  const w = frame.width - l - r;
  const h = frame.height - t - b;
  const top = niceCeil(Math.max(0, ...buckets.map((x) => x.max_duration_ms ?? 0)));
  const slot = w / win.count;
  const bars = buckets.map((bk) => {
    const index = Math.round((Date.parse(bk.start) / 1000 - win.since) / win.bucketSeconds);
    const x = l + index * slot;
    const bh = bk.max_duration_ms === null ? 2 : Math.max(1, scaleY(bk.max_duration_ms, top, h));
    const title = `${bk.start}: ${plural(bk.runs, 'run')}, ${bk.failed} failed, longest ${formatDuration(bk.max_duration_ms)}, mean ${formatDuration(bk.mean_duration_ms)}`;
    return `<rect x="${x.toFixed(2)}" y="${(t + h - bh).toFixed(2)}" width="${Math.max(1, slot - 1).toFixed(2)}" height="${bh.toFixed(2)}" fill="${bucketColor(bk)}"><title>${escapeHtml(title)}</title></rect>`;
  });
  const axisParts = axesOn ? axes(frame, win, top, (v) => formatDuration(v), 'longest run') : '';
  const empty =
    buckets.length === 0 && axesOn
      ? `<text x="${l + w / 2}" y="${t + h / 2}" text-anchor="middle" class="empty">no runs in this window</text>`
      : '';
  return `<svg class="${axesOn ? 'chart' : 'spark'}" role="img" aria-label="run durations" viewBox="0 0 ${frame.width} ${frame.height}" width="${frame.width}" height="${frame.height}">${axisParts}${bars.join('')}${empty}</svg>`;
}

/**
 * The age of the newest published data over the window (FRESHNESS_METHOD), as a filled line, with the dataset's
 * freshness window as a dashed line when known; gaps before the first publication.
 */
export function freshnessChart(
  points: FreshnessPoints,
  freshFor: number | null,
  win: Window,
  frame: Frame = CHART,
  axesOn = true,
): string {
  const [l, r, t, b] = frame.margin;
  const w = frame.width - l - r;
  const h = frame.height - t - b;
  const values = points.map((p) => p.staleness_seconds).filter((v): v is number => v !== null);
  const top = niceSpan(Math.max(0, ...values, freshFor ?? 0));
  const span = Math.max(1, win.count * win.bucketSeconds);
  const xy = points.map((p) => {
    const x = l + ((Date.parse(p.at) / 1000 - win.since) / span) * w;
    return p.staleness_seconds === null ? null : ([x, t + h - scaleY(p.staleness_seconds, top, h)] as const);
  });
  const runs: (readonly [number, number])[][] = [];
  let current: (readonly [number, number])[] = [];
  for (const p of xy) {
    if (p) current.push(p);
    else if (current.length) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length) runs.push(current);
  const shapes = runs.map((run) => {
    const line = run.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(' ');
    const area = `${run[0]![0].toFixed(2)},${t + h} ${line} ${run[run.length - 1]![0].toFixed(2)},${t + h}`;
    return `<polygon points="${area}" fill="${COLORS.fill}" opacity="0.8"/><polyline points="${line}" fill="none" stroke="${COLORS.line}" stroke-width="${axesOn ? 2 : 1.5}"/>`;
  });
  const limit =
    freshFor === null
      ? ''
      : `<line x1="${l}" x2="${l + w}" y1="${(t + h - scaleY(freshFor, top, h)).toFixed(2)}" y2="${(t + h - scaleY(freshFor, top, h)).toFixed(2)}" stroke="${COLORS.limit}" stroke-dasharray="4 3"><title>${escapeHtml(`fresh for ${formatSpan(freshFor)}`)}</title></line>`;
  const axisParts = axesOn ? axes(frame, win, top, spanTick, 'data age') : '';
  const empty =
    values.length === 0 && axesOn
      ? `<text x="${l + w / 2}" y="${t + h / 2}" text-anchor="middle" class="empty">nothing published yet</text>`
      : '';
  return `<svg class="${axesOn ? 'chart' : 'spark'}" role="img" aria-label="data age" viewBox="0 0 ${frame.width} ${frame.height}" width="${frame.width}" height="${frame.height}">${axisParts}${shapes.join('')}${limit}${empty}</svg>`;
}

type State = { label: string; tone: 'ok' | 'warn' | 'bad' | 'idle'; detail: string };

/** The service's state in one word, for the header. */
export function serviceState(report: StatusReport): State {
  const failing = report.jobs.filter((j) => j.consecutive_failures > 0);
  const stale = report.datasets.filter((d) => d.stale === true);
  if (report.datasets.length === 0 && report.jobs.every((j) => j.last_run === null)) {
    return { label: 'Starting', tone: 'idle', detail: 'nothing has run or been published yet' };
  }
  const problems = [
    failing.length ? `${plural(failing.length, 'job')} failing` : '',
    stale.length ? `${plural(stale.length, 'dataset')} stale` : '',
  ].filter(Boolean);
  if (!problems.length) return { label: 'Healthy', tone: 'ok', detail: 'every job succeeds, every dataset is fresh' };
  const severe = failing.some((j) => j.consecutive_failures >= 3);
  return { label: severe ? 'Failing' : 'Degraded', tone: severe ? 'bad' : 'warn', detail: problems.join(', ') };
}

function resultBadge(job: JobRow): string {
  if (job.running) return '<span class="badge running">running</span>';
  const result = job.last_run?.result;
  if (!result) return '<span class="badge idle">never run</span>';
  return `<span class="badge ${result === 'ok' ? 'ok' : result === 'failed' ? 'bad' : 'running'}">${escapeHtml(result)}</span>`;
}

/** An instant as ISO (the report's one form of time), with how long ago or ahead it is beneath. */
function timeCell(iso: string | null, now: string): string {
  return iso
    ? `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso)}</time><div class="sub">${relativeTime(iso, now)}</div>`
    : '—';
}

function jobLine(job: JobRow): string {
  if (!job.scheduled_here || job.description === null || job.every_seconds === null) {
    return 'scheduled by another process (a worker)';
  }
  return `${escapeHtml(job.description)} · every ${formatSpan(job.every_seconds)}`;
}

function jobTables(report: StatusReport, win: Window): string {
  const history = new Map(report.history.jobs.map((j) => [j.job, j.buckets]));
  const areas = new Map<string, JobRow[]>();
  for (const job of report.jobs) {
    const area = job.area ?? 'service';
    areas.set(area, [...(areas.get(area) ?? []), job]);
  }
  if (!report.jobs.length) return '<p class="empty">No jobs are scheduled by this process.</p>';
  return [...areas]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([area, jobs]) => {
      const rows = jobs.map((job) => {
        const last = job.last_run;
        const error = last?.error
          ? `<tr class="error-row"><td colspan="8"><details><summary>error of the last run</summary><pre>${escapeHtml(last.error)}</pre></details></td></tr>`
          : '';
        const failures = job.consecutive_failures;
        return `<tr data-job="${escapeHtml(job.name)}">
<td><div class="name">${escapeHtml(job.name)}</div><div class="sub">${jobLine(job)}</div>${last?.summary ? `<div class="sub summary">${escapeHtml(last.summary)}</div>` : ''}</td>
<td>${timeCell(last?.finished_at ?? last?.started_at ?? null, report.now)}</td>
<td>${resultBadge(job)}</td>
<td class="num">${formatDuration(last?.duration_ms ?? null)}</td>
<td>${timeCell(job.next_run_at, report.now)}</td>
<td class="num${failures > 0 ? ' bad-text' : ''}">${failures}</td>
<td class="num">${last ? last.attempts : '—'}</td>
<td>${durationChart(history.get(job.name) ?? [], win, SPARK, false)}</td>
</tr>${error}`;
      });
      return `<h3>${escapeHtml(area)}</h3>
<table class="jobs"><colgroup><col style="width:30%"><col style="width:9%"><col style="width:8%"><col style="width:8%"><col style="width:8%"><col style="width:9%"><col style="width:7%"><col style="width:170px"></colgroup><thead><tr><th>Job</th><th>Last run</th><th>Result</th><th class="num">Duration</th><th>Next run</th><th class="num">Failures in a row</th><th class="num">Attempts</th><th>Runs, last ${formatSpan(win.count * win.bucketSeconds)}</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>`;
    })
    .join('\n');
}

function datasetTable(report: StatusReport, win: Window): string {
  if (!report.datasets.length) return '<p class="empty">Nothing has been published yet.</p>';
  const history = new Map(report.history.freshness.computations.map((c) => [c.computation, c.points]));
  const rows = report.datasets.map(
    (d: DatasetRow) => `<tr data-computation="${escapeHtml(d.computation)}">
<td><div class="name">${escapeHtml(d.computation)}</div><div class="sub">version ${d.version} · published ${d.published_at ? `<time datetime="${escapeHtml(d.published_at)}">${escapeHtml(d.published_at)}</time> (${relativeTime(d.published_at, report.now)})` : '—'}</div></td>
<td>${escapeHtml(d.area)}</td>
<td class="num">${d.documents.toLocaleString('en-US')}</td>
<td>${d.as_of ? `<time datetime="${escapeHtml(d.as_of)}">${escapeHtml(d.as_of)}</time>` : '—'}</td>
<td class="num">${d.staleness_seconds === null ? '—' : `${formatSpan(d.staleness_seconds)} old`}</td>
<td class="num">${d.fresh_for_seconds === null ? '—' : formatSpan(d.fresh_for_seconds)}</td>
<td>${d.stale === null ? '<span class="badge idle">no documents</span>' : d.stale ? '<span class="badge bad">stale</span>' : '<span class="badge ok">fresh</span>'}</td>
<td>${freshnessChart(history.get(d.computation) ?? [], d.fresh_for_seconds, win, SPARK, false)}</td>
</tr>`,
  );
  return `<table class="datasets"><colgroup><col style="width:24%"><col style="width:9%"><col style="width:9%"><col style="width:16%"><col style="width:10%"><col style="width:9%"><col style="width:8%"><col style="width:170px"></colgroup><thead><tr><th>Computation</th><th>Area</th><th class="num">Documents</th><th>As of</th><th class="num">Staleness</th><th class="num">Fresh for</th><th>State</th><th>Data age, last ${formatSpan(win.count * win.bucketSeconds)}</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>`;
}

function chartGrid(report: StatusReport, win: Window): string {
  const jobsWithRuns = report.history.jobs.filter((j) => j.buckets.length > 0);
  const freshFor = new Map(report.datasets.map((d) => [d.computation, d.fresh_for_seconds]));
  const durationCards = jobsWithRuns.map(
    (j) =>
      `<figure class="card" data-chart="duration" data-job="${escapeHtml(j.job)}"><figcaption>${escapeHtml(j.job)}</figcaption>${durationChart(j.buckets, win)}</figure>`,
  );
  const freshCards = report.history.freshness.computations
    .filter((c) => c.points.some((p) => p.staleness_seconds !== null))
    .map(
      (c) =>
        `<figure class="card" data-chart="freshness" data-computation="${escapeHtml(c.computation)}"><figcaption>${escapeHtml(c.computation)}</figcaption>${freshnessChart(c.points, freshFor.get(c.computation) ?? null, win)}</figure>`,
    );
  const bucket = formatSpan(win.bucketSeconds);
  return `<section id="durations"><h2>Job durations, last ${formatSpan(win.count * win.bucketSeconds)}</h2>
<p class="note">Each bar is one ${bucket} interval: the longest finished run in it.
<span class="key"><i style="background:${COLORS.ok}"></i>all ok</span><span class="key"><i style="background:${COLORS.mixed}"></i>some failed</span><span class="key"><i style="background:${COLORS.failed}"></i>all failed</span><span class="key"><i style="background:${COLORS.running}"></i>still running</span></p>
${durationCards.length ? `<div class="grid">${durationCards.join('')}</div>` : '<p class="empty">No job has run in this window.</p>'}
</section>
<section id="freshness"><h2>Dataset freshness, last ${formatSpan(win.count * win.bucketSeconds)}</h2>
<p class="note">${escapeHtml(report.history.freshness.method)} The dashed line is the dataset's freshness window: above it, the data is stale.</p>
${freshCards.length ? `<div class="grid">${freshCards.join('')}</div>` : '<p class="empty">Nothing has been published in or before this window.</p>'}
</section>`;
}

/** A value of the extra fields as text (their instants are ISO already: `isoInstants` of jobs/status.ts). */
function scalar(v: unknown): string {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** Fields of the report beyond the standard ones (the sandbox's world, chains, stand-ins), as a key/value table per field. */
function extras(report: StatusReport): string {
  const standard = new Set(['now', 'store', 'jobs', 'datasets', 'history']);
  const sections = Object.entries(report)
    .filter(([k]) => !standard.has(k))
    .map(([key, value]) => {
      const rows =
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
              // One level of nesting (a chain's fields) as rows of their own.
              typeof v === 'object' && v !== null && !Array.isArray(v)
                ? Object.entries(v as Record<string, unknown>).map(
                    ([k2, v2]) =>
                      `<tr><th>${escapeHtml(k)} · ${escapeHtml(k2)}</th><td><code>${escapeHtml(scalar(v2))}</code></td></tr>`,
                  )
                : [`<tr><th>${escapeHtml(k)}</th><td><code>${escapeHtml(scalar(v))}</code></td></tr>`],
            )
          : [`<tr><th>${escapeHtml(key)}</th><td><code>${escapeHtml(scalar(value))}</code></td></tr>`];
      return `<div class="card extra" data-extra="${escapeHtml(key)}"><h3>${escapeHtml(key)}</h3><table class="kv">${rows.join('')}</table></div>`;
    });
  return sections.length ? `<section id="extra"><div class="grid">${sections.join('')}</div></section>` : '';
}

const STYLE = `
:root{color-scheme:light;--fg:#212529;--muted:#6c757d;--line:#e9ecef;--bg:#f8f9fa;--card:#fff}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#212529;color:#f8f9fa;padding:18px 28px;display:flex;align-items:center;gap:18px;flex-wrap:wrap}
header h1{font-size:20px;margin:0;font-weight:600}
header .meta{color:#ced4da;font-size:13px}
main{padding:20px 28px 40px;max-width:1400px}
h2{font-size:17px;margin:28px 0 10px}
h3{font-size:14px;margin:18px 0 6px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.state{padding:4px 12px;border-radius:999px;font-weight:600;font-size:13px}
.state.ok{background:#2b8a3e}.state.warn{background:#e8590c}.state.bad{background:#c92a2a}.state.idle{background:#495057}
.summary-cards{display:flex;gap:12px;flex-wrap:wrap;margin-top:4px}
.stat{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 16px;min-width:130px}
.stat b{display:block;font-size:22px;font-weight:600}
.stat span{color:var(--muted);font-size:12px}
.stat.bad b{color:#c92a2a}
table{border-collapse:collapse;width:100%;table-layout:fixed;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden}
th,td{padding:7px 10px;text-align:left;border-bottom:1px solid var(--line);vertical-align:middle}
thead th{background:#f1f3f5;font-size:12px;font-weight:600;color:#495057}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.name{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.sub{color:var(--muted);font-size:12px}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600;color:#fff}
.badge.ok{background:#2b8a3e}.badge.bad{background:#c92a2a}.badge.running{background:#1c7ed6}.badge.idle{background:#adb5bd}
.bad-text{color:#c92a2a;font-weight:600}
tr.error-row td{background:#fff5f5;border-bottom:1px solid #ffc9c9}
details summary{cursor:pointer;color:#c92a2a;font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;margin:6px 0 0;font-size:12px;max-height:14em;overflow:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px;margin:0}
figcaption{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;font-weight:600;margin-bottom:4px}
svg.chart{display:block;width:100%;height:auto}
svg .tick{font-size:10px;fill:#868e96}
svg .axis-title{font-size:10px;fill:#495057}
svg .empty{font-size:12px;fill:#adb5bd}
.note{color:var(--muted);font-size:12px;margin:0 0 10px}
.key{margin-left:12px;white-space:nowrap}.key i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.empty{color:var(--muted)}
table.kv{table-layout:auto}
table.kv th{width:1%;white-space:nowrap;background:#f8f9fa;font-weight:600}
table.kv code{font-size:12px;word-break:break-all}
footer{color:var(--muted);font-size:12px;margin-top:30px}
#extra{margin-top:16px}
`;

/** The whole page. */
export function renderStatusPage(report: StatusReport): string {
  const win = windowOf(report);
  const state = serviceState(report);
  const runs = report.history.jobs.flatMap((j) => j.buckets);
  const totalRuns = runs.reduce((n, b) => n + b.runs, 0);
  const failedRuns = runs.reduce((n, b) => n + b.failed, 0);
  const failing = report.jobs.filter((j) => j.consecutive_failures > 0).length;
  const stale = report.datasets.filter((d) => d.stale === true).length;
  const running = report.jobs.filter((j) => j.running).length;
  const stat = (value: string | number, label: string, bad = false) =>
    `<div class="stat${bad ? ' bad' : ''}"><b>${escapeHtml(value)}</b><span>${escapeHtml(label)}</span></div>`;
  const windowText = formatSpan(win.count * win.bucketSeconds);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>protoscore status: ${escapeHtml(state.label)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style></head>
<body>
<header><h1>protoscore status</h1><span class="state ${state.tone}" id="service-state">${escapeHtml(state.label)}</span>
<span class="meta">${escapeHtml(state.detail)} · <time datetime="${escapeHtml(report.now)}">${escapeHtml(report.now)}</time> · store: ${escapeHtml(report.store)}</span></header>
<main>
<div class="summary-cards">
${stat(report.jobs.length, `jobs${running ? `, ${running} running now` : ''}`)}
${stat(failing, 'jobs failing', failing > 0)}
${stat(report.datasets.length, 'dataset families')}
${stat(stale, 'stale', stale > 0)}
${stat(totalRuns.toLocaleString('en-US'), `runs in the last ${windowText}`)}
${stat(failedRuns.toLocaleString('en-US'), `failed runs in the last ${windowText}`, failedRuns > 0)}
</div>
${extras(report)}
<section id="jobs"><h2>Jobs</h2>${jobTables(report, win)}</section>
<section id="datasets"><h2>Datasets</h2>${datasetTable(report, win)}</section>
${chartGrid(report, win)}
${report.history.truncated ? '<p class="note">The history has more rows than one page shows; the oldest intervals are left out.</p>' : ''}
<footer>The same report as JSON: <code>curl -H 'accept: application/json' …/status</code> (the default for any client that does not prefer HTML). Reload the page for newer figures.</footer>
</main></body></html>
`;
}
