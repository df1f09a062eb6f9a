import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';

describe('request metrics', () => {
  it('renders counts, buckets, sum and count per route, method and status as Prometheus text', async () => {
    const m = new Metrics({ defaults: false });
    m.observeRequest('/a/:p0', 'GET', 200, 0.0004);
    m.observeRequest('/a/:p0', 'GET', 200, 0.003);
    m.observeRequest('/a/:p0', 'GET', 200, 7);
    m.observeRequest('/a/:p0', 'GET', 404, 0.001);
    m.observeRequest('/b', 'HEAD', 200, 0.01);
    const text = await m.registry.metrics();
    const line = (prefix: string) =>
      text
        .split('\n')
        .find((l) => l.startsWith(prefix))
        ?.split(' ')[1];
    expect(text).toContain('# TYPE protoscore_http_requests_total counter');
    expect(text).toContain('# TYPE protoscore_http_request_duration_seconds histogram');
    expect(line('protoscore_http_requests_total{route="/a/:p0",method="GET",status="200"}')).toBe('3');
    expect(line('protoscore_http_requests_total{route="/a/:p0",method="GET",status="404"}')).toBe('1');
    const b = (le: string) =>
      line(`protoscore_http_request_duration_seconds_bucket{le="${le}",route="/a/:p0",method="GET",status="200"}`);
    // Cumulative buckets: 0.0004 ≤ 0.0005; 0.003 ≤ 0.005; 7 only in +Inf.
    expect([b('0.0005'), b('0.001'), b('0.0025'), b('0.005'), b('2.5'), b('+Inf')]).toEqual([
      '1',
      '1',
      '1',
      '2',
      '2',
      '3',
    ]);
    expect(
      Number(line('protoscore_http_request_duration_seconds_sum{route="/a/:p0",method="GET",status="200"}')),
    ).toBeCloseTo(7.0034, 6);
    expect(line('protoscore_http_request_duration_seconds_count{route="/b",method="HEAD",status="200"}')).toBe('1');
    // A boundary value falls in its own bucket (le is "less than or equal").
    m.observeRequest('/c', 'GET', 200, 0.001);
    const again = await m.registry.metrics();
    expect(again).toContain(
      'protoscore_http_request_duration_seconds_bucket{le="0.0005",route="/c",method="GET",status="200"} 0',
    );
    expect(again).toContain(
      'protoscore_http_request_duration_seconds_bucket{le="0.001",route="/c",method="GET",status="200"} 1',
    );
  });
});
