import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one process. Route labels are templates, never concrete paths or tokens. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'protoscore_http_requests_total',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'protoscore_http_request_duration_seconds',
    help: 'HTTP request latency by route template, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly jobRuns = new Counter({
    name: 'protoscore_job_runs_total',
    help: 'Job runs by job and result',
    labelNames: ['job', 'result'] as const,
    registers: [this.registry],
  });
  readonly jobDuration = new Histogram({
    name: 'protoscore_job_duration_seconds',
    help: 'Job run duration by job and result',
    labelNames: ['job', 'result'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [this.registry],
  });

  readonly tokenLookups = new Counter({
    name: 'protoscore_token_lookups_total',
    help: 'Store lookups of token ids missing from the API process copy of the token table, by result',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly tokenNegativeCacheHits = new Counter({
    name: 'protoscore_token_negative_cache_hits_total',
    help: 'Requests whose token id was recently looked up and found absent, refused without a lookup',
    registers: [this.registry],
  });
  readonly tokenLookupBudgetRefusals = new Counter({
    name: 'protoscore_token_lookup_budget_refusals_total',
    help: 'Requests with an unknown token id refused without a lookup because the lookup budget was spent',
    registers: [this.registry],
  });

  /** Label children by route, method and status, so a request hashes its labels once instead of twice. */
  private readonly requestSeries = new Map<string, { count: { inc(): void }; latency: { observe(v: number): void } }>();

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${route}\u0000${method}\u0000${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const labels = { route, method, status: String(status) };
      series = { count: this.httpRequests.labels(labels), latency: this.httpDuration.labels(labels) };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.latency.observe(seconds);
  }

  constructor(options: { defaults?: boolean } = {}) {
    if (options.defaults ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'protoscore_' });
  }
}
