import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const;

interface RequestSeries {
  readonly labels: { readonly route: string; readonly method: string; readonly status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative; the last slot is +Inf). */
  readonly buckets: number[];
}

/** One value of a scraped metric, as prom-client's registry renders it. */
interface ScrapedValue {
  readonly metricName?: string;
  readonly labels: Record<string, string | number>;
  readonly value: number;
}

/** A metric as the registry expects it: a name, a type and its values when scraped. */
interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: ScrapedValue[] }>;
  reset(): void;
}

/** HTTP request counters and latency histogram, kept as numbers and rendered by the registry on a scrape. */
export class RequestMetrics {
  private readonly series = new Map<string, RequestSeries>();
  private readonly byRoute = new Map<string, Map<string, Map<number, RequestSeries>>>();

  constructor(registry: Registry) {
    const counter: ScrapedMetric = {
      name: 'protoscore_http_requests_total',
      help: 'HTTP requests by route template, method and status',
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({
        name: counter.name,
        help: counter.help,
        type: 'counter',
        aggregator: 'sum',
        values: [...this.series.values()].map((s) => ({ labels: { ...s.labels }, value: s.count })),
      }),
      reset: () => this.clear(),
    };
    const histogram: ScrapedMetric = {
      name: 'protoscore_http_request_duration_seconds',
      help: 'HTTP request latency by route template, method and status',
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({
        name: histogram.name,
        help: histogram.help,
        type: 'histogram',
        aggregator: 'sum',
        values: [...this.series.values()].flatMap((s) => {
          let cumulative = 0;
          const out: ScrapedValue[] = REQUEST_BUCKETS.map((le, i) => {
            cumulative += s.buckets[i]!;
            return { metricName: `${histogram.name}_bucket`, labels: { le, ...s.labels }, value: cumulative };
          });
          out.push(
            { metricName: `${histogram.name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count },
            { metricName: `${histogram.name}_sum`, labels: { ...s.labels }, value: s.sum },
            { metricName: `${histogram.name}_count`, labels: { ...s.labels }, value: s.count },
          );
          return out;
        }),
      }),
      reset: () => this.clear(),
    };
    registry.registerMetric(counter as never);
    registry.registerMetric(histogram as never);
  }

  private clear(): void {
    this.series.clear();
    this.byRoute.clear();
  }

  observe(route: string, method: string, status: number, seconds: number): void {
    // By route, then method, then status: the route and method strings repeat (their hashes are kept with them), so
    // no key is built per request.
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.byRoute.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let s = byStatus.get(status);
    if (s === undefined) {
      s = this.seriesOf(route, method, status);
      byStatus.set(status, s);
    }
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[i]!) i++;
    s.buckets[i]!++;
  }

  private seriesOf(route: string, method: string, status: number): RequestSeries {
    const key = `${status}${method}\u0000${route}`;
    let s = this.series.get(key);
    if (s === undefined) {
      s = {
        labels: { route, method, status: String(status) },
        count: 0,
        sum: 0,
        buckets: REQUEST_BUCKETS.map(() => 0),
      };
      s.buckets.push(0);
      this.series.set(key, s);
    }
    return s;
  }
}

/** Prometheus metrics of one process. Route labels are templates, never concrete paths or tokens. */
export class Metrics {
  readonly registry = new Registry();
  /**
   * `protoscore_http_requests_total` and `protoscore_http_request_duration_seconds`: plain numbers per series,
   * turned into Prometheus text only when scraped. prom-client's own `inc`/`observe` validate and hash the labels
   * on every call (about 1 µs of a ~25 µs request; docs/benchmarks.md), which is what a request must not pay.
   */
  readonly http = new RequestMetrics(this.registry);
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

  /** One finished job run (by the runner, or by the API half of `start` from its job thread's messages). */
  observeJobRun(job: string, result: 'ok' | 'failed', seconds: number): void {
    this.jobRuns.inc({ job, result });
    this.jobDuration.observe({ job, result }, seconds);
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.http.observe(route, method, status, seconds);
  }

  constructor(options: { defaults?: boolean } = {}) {
    if (options.defaults ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'protoscore_' });
  }
}
