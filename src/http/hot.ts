import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ApiError, STATUS_OF } from '../core/errors.js';
import type { Clock } from '../core/time.js';
import type { Metrics } from '../metrics/metrics.js';
import type { AccessLog } from './access-log.js';
import type { TokenVerifier } from './auth.js';
import { cacheControlOf, type DatasetCache, negotiateEncoding, type Page, type Rendered } from './datasets.js';
import { errorBody } from './errors.js';
import type { Hit, RateLimitStore } from './ratelimit.js';

/**
 * The hot path: answers repeat requests for dataset documents before Fastify routes them.
 *
 * A request URL that the full route (router, parameter checks, canonicalisation, entity lookup) has already
 * answered with a document is remembered with the document it resolved to. That mapping depends only on the path
 * table and the registry, never on data, so it stays true for the life of the process. A later GET or HEAD of
 * the exact same URL with a token that already passed verification is answered here from the rendered cache,
 * with the same status, headers and body as the full route (test/hot-path.test.ts compares them), the same rate
 * limit counter, the same metrics and the same log line. Anything else (an unknown URL, a query string, a token
 * that is missing, wrong, revoked or expired, a document not in memory, an overloaded or closing server) goes
 * the full way, so every error is produced in one place. Measured in docs/benchmarks.md.
 */

export const JSON_TYPE = 'application/json; charset=utf-8';
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const MAX_HOT_URLS = 100_000;

export interface HotTarget {
  readonly docPath: string;
  readonly page?: Page;
  /** The route label for metrics and logs (the spec template). */
  readonly label: string;
}

/** This process's prefix of the request ids it makes: random, so ids of several replicas do not collide. */
const ID_PREFIX = randomBytes(6).toString('hex');
let idCounter = 0;

/**
 * The request id: the client's `X-Request-Id` when well-formed, else one made here (`<process prefix>-<counter>`,
 * unique per process and across replicas; cheaper than a UUID, measured in docs/benchmarks.md).
 */
export function requestIdOf(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && REQUEST_ID.test(incoming)) return incoming;
  idCounter = (idCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `${ID_PREFIX}-${idCounter.toString(36)}`;
}

export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export function rateLimitHeaders(hit: Hit): Record<string, string> {
  return {
    'x-ratelimit-limit': String(hit.limit),
    'x-ratelimit-remaining': String(hit.remaining),
    'x-ratelimit-reset': String(hit.resetSeconds),
    ratelimit: `limit=${hit.limit}, remaining=${hit.remaining}, reset=${hit.resetSeconds}`,
  };
}

export interface DatasetReply {
  readonly status: 200 | 304;
  readonly headers: Record<string, string>;
  /** The bytes to send (absent for 304). */
  readonly body?: Buffer;
}

/** Status, headers and bytes of a served document: one function for both paths, so they cannot drift apart. */
export function datasetReply(
  rendered: Rendered,
  ifNoneMatch: string | undefined,
  acceptEncoding: string | string[] | undefined,
): DatasetReply {
  const headers: Record<string, string> = {
    etag: rendered.etag,
    'cache-control': cacheControlOf(rendered.maxAge),
    vary: 'accept-encoding',
  };
  if (ifNoneMatchHits(ifNoneMatch, rendered.etag)) return { status: 304, headers };
  const encoding = negotiateEncoding(acceptEncoding);
  const body = rendered.variants.get(encoding);
  headers['content-type'] = JSON_TYPE;
  if (body !== rendered.variants.identity) headers['content-encoding'] = encoding!;
  return { status: 200, headers, body };
}

/** The four request headers the hot path reads. */
interface HotHeaders {
  authorization: string | undefined;
  requestId: string | undefined;
  ifNoneMatch: string | undefined;
  acceptEncoding: string | undefined;
}

/**
 * The headers the hot path reads, from `rawHeaders` in one pass: `req.headers` builds an object of every header
 * on first access (about 3 µs a request, docs/benchmarks.md). A repeated header is joined as Node joins it
 * (`, `); a repeated Authorization or X-Request-Id makes the request go the full way (undefined here is not
 * enough: the full path must see it), signalled by returning undefined.
 */
export function hotHeaders(raw: readonly string[]): HotHeaders | undefined {
  const h: HotHeaders = {
    authorization: undefined,
    requestId: undefined,
    ifNoneMatch: undefined,
    acceptEncoding: undefined,
  };
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    switch (name.length) {
      case 13:
        if (name === 'Authorization' || name === 'authorization' || name.toLowerCase() === 'authorization') {
          if (h.authorization !== undefined) return undefined;
          h.authorization = value;
        } else if (name.toLowerCase() === 'if-none-match') {
          h.ifNoneMatch = h.ifNoneMatch === undefined ? value : `${h.ifNoneMatch}, ${value}`;
        }
        break;
      case 12:
        if (name.toLowerCase() === 'x-request-id') {
          if (h.requestId !== undefined) return undefined;
          h.requestId = value;
        }
        break;
      case 15:
        if (name.toLowerCase() === 'accept-encoding') {
          h.acceptEncoding = h.acceptEncoding === undefined ? value : `${h.acceptEncoding}, ${value}`;
        }
        break;
    }
  }
  return h;
}

export interface HotPathDeps {
  readonly clock: Clock;
  readonly tokens: TokenVerifier;
  readonly datasets: DatasetCache;
  readonly limiter: RateLimitStore;
  readonly metrics: Metrics;
  /** The access log (its fields are fixed and never hold a header). */
  readonly accessLog: AccessLog;
  /** A shared rate-limit counter failed (the request is served, not counted). */
  readonly onLimiterError: (requestId: string, err: Error) => void;
  /** True while the full path must answer everything (overloaded or closing). */
  readonly bypass: () => boolean;
}

export class HotPath {
  private readonly urls = new Map<string, HotTarget>();
  /** Requests answered here (for tests and /status). */
  served = 0;

  constructor(private readonly deps: HotPathDeps) {}

  /** Called by the full route after it answered `url` with a document. */
  remember(url: string, target: HotTarget): void {
    if (url.includes('?')) return;
    if (this.urls.size >= MAX_HOT_URLS) this.urls.clear();
    this.urls.set(url, target);
  }

  get size(): number {
    return this.urls.size;
  }

  /** Answers the request and returns true, or returns false having done nothing (the full path takes it). */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url;
    if (url === undefined) return false;
    const target = this.urls.get(url);
    if (target === undefined) return false;
    const { deps } = this;
    // One reading of the clock for the document's freshness, the token's expiry and the rate-limit window.
    const nowMs = deps.clock.nowMs();
    const rendered = deps.datasets.renderLoaded(target.docPath, target.page, nowMs);
    if (!rendered) return false;
    if (deps.bypass()) return false;
    const headers = hotHeaders(req.rawHeaders);
    if (headers === undefined) return false;
    const principal = deps.tokens.tryVerify(headers.authorization, nowMs);
    if (principal === undefined) return false;
    const started = performance.now();
    this.served++;
    const requestId = requestIdOf(headers.requestId);
    let counted: Hit | Promise<Hit> | undefined;
    try {
      counted = deps.limiter.hit(principal.tokenId, principal.rateLimit, principal.rateWindowMs, nowMs);
    } catch {
      return false;
    }
    if (counted instanceof Promise) {
      counted.then(
        (hit) => this.finish(req, res, target, rendered, headers, requestId, started, hit),
        (err: unknown) => {
          deps.onLimiterError(requestId, err as Error);
          this.finish(req, res, target, rendered, headers, requestId, started, undefined);
        },
      );
    } else {
      this.finish(req, res, target, rendered, headers, requestId, started, counted);
    }
    return true;
  }

  private finish(
    req: IncomingMessage,
    res: ServerResponse,
    target: HotTarget,
    rendered: Rendered,
    headers: HotHeaders,
    requestId: string,
    started: number,
    hit: Hit | undefined,
  ): void {
    const method = req.method!;
    let status: number;
    if (
      hit !== undefined &&
      !hit.exceeded &&
      headers.ifNoneMatch === undefined &&
      headers.acceptEncoding === undefined
    ) {
      // The common answer, the document's bytes as they are: its headers in one object, in the order `datasetReply`
      // gives them after the request id and the rate limit (so the full path and this one send the same bytes).
      status = 200;
      const remaining = String(hit.remaining);
      const limit = String(hit.limit);
      const reset = String(hit.resetSeconds);
      res.writeHead(200, {
        'x-request-id': requestId,
        'x-ratelimit-limit': limit,
        'x-ratelimit-remaining': remaining,
        'x-ratelimit-reset': reset,
        ratelimit: `limit=${limit}, remaining=${remaining}, reset=${reset}`,
        etag: rendered.etag,
        'cache-control': cacheControlOf(rendered.maxAge),
        vary: 'accept-encoding',
        'content-type': JSON_TYPE,
        'content-length': rendered.variants.identityLength,
      });
      // The identity body as a string: Node then sends the header block and the body in one write.
      if (method === 'HEAD') res.end();
      else res.end(rendered.body);
    } else {
      const head: Record<string, string> = { 'x-request-id': requestId };
      if (hit) Object.assign(head, rateLimitHeaders(hit));
      let body: Buffer | string | undefined;
      if (hit?.exceeded) {
        const err = new ApiError(
          'rate_limited',
          `rate limit of ${hit.limit} requests exceeded; retry in ${hit.resetSeconds} s`,
          { 'retry-after': String(hit.resetSeconds) },
        );
        Object.assign(head, err.headers, { 'cache-control': 'no-store', 'content-type': JSON_TYPE });
        status = STATUS_OF[err.code];
        body = Buffer.from(errorBody(err.code, err.message, requestId), 'utf8');
      } else {
        const reply = datasetReply(rendered, headers.ifNoneMatch, headers.acceptEncoding);
        Object.assign(head, reply.headers);
        status = reply.status;
        body = reply.body;
      }
      if (body !== undefined) head['content-length'] = String(body.length);
      res.writeHead(status, head);
      if (method === 'HEAD' || body === undefined) res.end();
      // The identity body as a string: Node then sends the header block and the body in one write.
      else res.end(body === rendered.variants.identity ? rendered.body : body);
    }
    const ms = performance.now() - started;
    this.deps.metrics.observeRequest(target.label, method, status, ms / 1000);
    this.deps.accessLog.write(requestId, method, target.label, req.url!, status, ms);
  }
}
