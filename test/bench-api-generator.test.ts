import { describe, expect, it } from 'vitest';
import { parseWrk } from '../bench/api/generator.js';

/** bench:api reads wrk's `--latency` report (bench/api/generator.ts); a misread would make every ratio wrong. */
describe('bench:api: parseWrk', () => {
  // A real wrk 4.1.0 report (a server answering 500 to everything), and one with socket errors and µs latencies.
  const refused = `Running 1s test @ http://127.0.0.1:18123/bad
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     6.39ms   12.29ms 113.06ms   91.02%
    Req/Sec     1.80k     1.59k    4.39k    60.00%
  Latency Distribution
     50%    2.00ms
     75%    6.72ms
     90%   17.14ms
     99%   65.22ms
  1806 requests in 1.03s, 252.21KB read
  Non-2xx or 3xx responses: 1806
Requests/sec:   1757.48
Transfer/sec:    245.43KB
`;
  const fast = `Running 10s test @ http://127.0.0.1:8080/x
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.00us  301.50us   1.20s    88.00%
    Req/Sec    40.12k     2.01k   44.00k    70.00%
  Latency Distribution
     50%  750.00us
     75%    0.90ms
     90%    1.10ms
     99%    2.50ms
  401234 requests in 10.00s, 1.20GB read
  Socket errors: connect 0, read 2, write 0, timeout 3
Requests/sec:  40123.45
Transfer/sec:    122.80MB
`;

  it('counts refused requests as not 2xx', () => {
    const r = parseWrk(refused);
    expect(r.requests2xx).toBe(0);
    expect(r.non2xx).toBe(1806);
    expect(r.errors).toBe(0);
    expect(r.durationSeconds).toBeCloseTo(1.03, 5);
    expect(r.requestsPerSec).toBeCloseTo(1757.48, 5);
    expect(r.latencyP50Ms).toBeCloseTo(2, 5);
    expect(r.latencyP99Ms).toBeCloseTo(65.22, 5);
    expect(r.latencyMaxMs).toBeCloseTo(113.06, 5);
  });

  it('reads microseconds, seconds and socket errors', () => {
    const r = parseWrk(fast);
    expect(r.requests2xx).toBe(401_234);
    expect(r.non2xx).toBe(0);
    expect(r.errors).toBe(5);
    expect(r.latencyP50Ms).toBeCloseTo(0.75, 5);
    expect(r.latencyP99Ms).toBeCloseTo(2.5, 5);
    expect(r.latencyMaxMs).toBeCloseTo(1200, 5);
  });

  it('refuses a report without latency percentiles', () => {
    expect(() => parseWrk(fast.replace(/ {5}99%.*\n/, ''))).toThrow(/99th percentile/);
  });
});
