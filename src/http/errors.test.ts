import { describe, expect, it } from 'vitest';
import { clientErrorResponse } from './errors.js';

/** Splits a raw HTTP/1.1 response into its status, headers and JSON body. */
function parse(raw: string) {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}

describe('clientErrorResponse', () => {
  it.each([
    [{ code: 'HPE_INVALID_HEADER_TOKEN' }, 400, 'the request is not valid HTTP'],
    [{}, 400, 'the request is not valid HTTP'],
    [{ code: 'HPE_HEADER_OVERFLOW' }, 431, 'the request headers are larger than the server accepts'],
    [{ code: 'ERR_HTTP_REQUEST_TIMEOUT' }, 408, 'the request did not arrive in time'],
  ])('%j: %i invalid_request in the envelope, connection closed', (err, status, message) => {
    const raw = clientErrorResponse(err);
    const res = parse(raw);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.connection).toBe('close');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(raw.split('\r\n\r\n')[1]!));
    expect(res.body).toEqual({
      status: false,
      error: { code: 'invalid_request', message, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
  });
});
