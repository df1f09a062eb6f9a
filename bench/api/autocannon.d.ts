// The part of autocannon 8's programmatic API that bench/api uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      title?: string;
      workers?: number;
    }

    interface Histogram {
      readonly average: number;
      readonly mean: number;
      readonly stddev: number;
      readonly min: number;
      readonly max: number;
      readonly total: number;
      readonly sent?: number;
      readonly p2_5: number;
      readonly p50: number;
      readonly p75: number;
      readonly p90: number;
      readonly p97_5: number;
      readonly p99: number;
      readonly p99_9: number;
    }

    interface Result {
      readonly title?: string;
      readonly url: string;
      readonly requests: Histogram;
      readonly latency: Histogram;
      readonly throughput: Histogram;
      readonly duration: number;
      readonly errors: number;
      readonly timeouts: number;
      readonly mismatches: number;
      readonly non2xx: number;
      readonly resets: number;
      readonly connections: number;
      readonly pipelining: number;
      readonly start: Date;
      readonly finish: Date;
      readonly '1xx': number;
      readonly '2xx': number;
      readonly '3xx': number;
      readonly '4xx': number;
      readonly '5xx': number;
      readonly statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
