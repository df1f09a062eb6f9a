/**
 * Benchmark child: the ceiling. A raw `node:http` server (no framework) that answers each document with the same
 * body and the same response headers the service sends (content type and length, ETag, cache control, vary, the
 * four rate-limit headers with a counting `remaining`, a request id made per request): what Node itself can do
 * with the same bytes on the wire. Started by bench/api/run.ts through `fork` (IPC channel); sends
 * `{ type: 'ready', port }`.
 *
 * Env: BENCH_RESPONSES (JSON: URL path → { file: the exact body bytes, headers: the service's etag, cache-control,
 * vary and content-type }), BENCH_RATE_LIMIT (the token's limit, for the rate-limit headers).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const spec = process.env.BENCH_RESPONSES;
if (!spec) throw new Error('BENCH_RESPONSES must be set');
if (!process.send) throw new Error('bench/api/raw.ts must be started with an IPC channel (fork)');
const limit = Number(process.env.BENCH_RATE_LIMIT ?? 100_000_000);
const WINDOW_MS = 60_000;

interface Response {
  /** The exact bytes, encoded once: the service sends its rendered Buffer too, so neither pays a UTF-8 encode. */
  readonly body: Buffer;
  readonly etag: string;
  readonly cacheControl: string;
  readonly vary: string;
  readonly contentType: string;
  readonly length: string;
}
const responses = new Map<string, Response>();
for (const [p, { file, headers }] of Object.entries(
  JSON.parse(spec) as Record<string, { file: string; headers: Record<string, string> }>,
)) {
  const bytes = readFileSync(file);
  responses.set(p, {
    body: bytes,
    etag: headers.etag!,
    cacheControl: headers['cache-control']!,
    vary: headers.vary!,
    contentType: headers['content-type']!,
    length: String(bytes.length),
  });
}

const prefix = randomBytes(6).toString('hex');
let counter = 0;
let windowStart = Date.now();
let used = 0;

const server = createServer((req, res) => {
  const r = responses.get(req.url!);
  if (r === undefined || req.method !== 'GET') {
    res.writeHead(404, { 'content-length': '0' });
    res.end();
    return;
  }
  const now = Date.now();
  if (now - windowStart >= WINDOW_MS) {
    windowStart = now;
    used = 0;
  }
  used++;
  const remaining = String(limit - used);
  const reset = String(Math.ceil((windowStart + WINDOW_MS - now) / 1000));
  counter++;
  res.writeHead(200, {
    'x-request-id': `${prefix}-${counter.toString(36)}`,
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
    ratelimit: `limit=${limit}, remaining=${remaining}, reset=${reset}`,
    etag: r.etag,
    'cache-control': r.cacheControl,
    vary: r.vary,
    'content-type': r.contentType,
    'content-length': r.length,
  });
  res.end(r.body);
});
// The same connection timeouts as the service (Fastify's).
server.keepAliveTimeout = 72_000;
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
});

const close = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGINT', close);
process.once('SIGTERM', close);
process.on('disconnect', close);
