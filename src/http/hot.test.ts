import { describe, expect, it } from 'vitest';
import { hotHeaders, requestIdOf } from './hot.js';

describe('hotHeaders', () => {
  it('reads the four headers from rawHeaders whatever their case, joining repeats as Node does', () => {
    const h = hotHeaders([
      'Host',
      'x',
      'AUTHORIZATION',
      'Bearer a.b',
      'If-None-Match',
      '"1"',
      'accept-encoding',
      'gzip',
      'X-Request-ID',
      'abc',
      'if-none-match',
      'W/"2"',
      'Accept-Encoding',
      'br',
      'x-custom-header1',
      'ignored',
    ]);
    expect(h).toEqual({
      authorization: 'Bearer a.b',
      requestId: 'abc',
      ifNoneMatch: '"1", W/"2"',
      acceptEncoding: 'gzip, br',
    });
  });

  it('leaves absent headers undefined', () => {
    expect(hotHeaders(['Host', 'x'])).toEqual({
      authorization: undefined,
      requestId: undefined,
      ifNoneMatch: undefined,
      acceptEncoding: undefined,
    });
  });

  it('sends a request with a repeated Authorization or X-Request-Id the full way', () => {
    expect(hotHeaders(['Authorization', 'Bearer a', 'authorization', 'Bearer b'])).toBeUndefined();
    expect(hotHeaders(['X-Request-Id', 'a', 'x-request-id', 'b'])).toBeUndefined();
  });
});

describe('requestIdOf', () => {
  it('keeps a well-formed client id and otherwise makes unique ones', () => {
    expect(requestIdOf('client-1.a:b')).toBe('client-1.a:b');
    const made = new Set(Array.from({ length: 1000 }, () => requestIdOf('bad id with spaces')));
    expect(made.size).toBe(1000);
    for (const id of made) expect(id).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(requestIdOf(undefined)).toMatch(/^[0-9a-f]{12}-/);
    expect(requestIdOf(['a', 'b'])).toMatch(/^[0-9a-f]{12}-/);
  });
});
