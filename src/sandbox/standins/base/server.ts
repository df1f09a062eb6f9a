import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../../core/time.js';
import { type Fault, FaultInjector, type FaultRates } from './faults.js';
import { DEFAULT_RATE_LIMIT, type RateLimitConfig, RateLimiter, type RateWindow } from './ratelimit.js';

/**
 * The base of every off-chain stand-in: a loopback HTTP server that answers a declared set of routes in a real
 * service's wire format. A service declares its routes and its dialect (error bodies, rate-limit headers, how
 * it says "slow down"); the base does the rest the same way for all of them:
 *
 * 1. route matching (`/repos/:owner/:repo/commits`), 404 in the service's error format otherwise;
 * 2. the caller's identity (token or anonymous address), via the dialect;
 * 3. a running secondary block → the dialect's secondary-limit answer; an exhausted window → its primary-limit
 *    answer (both counted as `violations`: a well-behaved client never sends those requests);
 * 4. fault injection (scripted, then seeded): 5xx, or a secondary limit that blocks the client;
 * 5. the handler, then a weak ETag over the body; `If-None-Match` with that ETag → 304 without a body, which
 *    does not count against the rate limit (GitHub's rule); anything else is counted;
 * 6. rate-limit headers of the window after counting, `Date` from the stand-in's clock (so that the same seed
 *    and clock give the same bytes), and a log of what was answered.
 */

export interface StandinRequest {
  readonly method: string;
  /** The path as sent, without the query (used to build pagination links). */
  readonly rawPath: string;
  /** Route parameters, URI-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** `http://host:port` as the client addressed the stand-in. */
  readonly baseUrl: string;
  /** The stand-in clock's time of the request. */
  readonly nowMs: number;
  /** Whether the caller presented valid credentials. */
  readonly authenticated: boolean;
  /** The caller's rate-limit window for a resource, without counting (for endpoints that report quotas). */
  rateWindow(resource: string): RateWindow;
  /** The request body as text (`''` without one): a POST route's input (JSON-RPC). */
  readonly body: string;
}

export interface StandinResponse {
  readonly status: number;
  /** Serialised as compact JSON; `undefined` for an empty body. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteDef {
  /** GET (HEAD answered alike) or POST (its body in `StandinRequest.body`). */
  readonly method: 'GET' | 'POST';
  /** Path template; `:name` segments are parameters. */
  readonly path: string;
  /** Rate-limit resource the route counts against; `null`: not counted (GitHub's `/rate_limit`). */
  readonly resource: string | null;
  readonly handler: (req: StandinRequest) => StandinResponse;
}

/** An error answer from a handler, rendered by the dialect. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The service-specific parts of the wire format. */
export interface StandinDialect {
  /** Resource counted for requests that match no route. */
  readonly defaultResource: string;
  /** Headers on every response. */
  readonly commonHeaders: Readonly<Record<string, string>>;
  errorBody(status: number, message: string): unknown;
  /**
   * The caller's identity: a token (authenticated) or `undefined` (anonymous). Throws `HttpError` (401) for
   * credentials the service refuses.
   */
  identify(headers: IncomingHttpHeaders): string | undefined;
  rateLimitHeaders(window: RateWindow): Record<string, string>;
  /** The answer to a request sent while the window is exhausted. */
  primaryLimited(window: RateWindow, nowMs: number): StandinResponse;
  /** The answer of a secondary limit: the client must wait `retryAfterSeconds`. */
  secondaryLimited(retryAfterSeconds: number, window: RateWindow | undefined): StandinResponse;
}

export interface StandinService {
  /** Names the stream of seeded faults and appears in logs. */
  readonly name: string;
  readonly routes: readonly RouteDef[];
  readonly dialect: StandinDialect;
}

export interface StandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  /** Default 127.0.0.1: stand-ins are for this machine only. */
  readonly host?: string;
  /** Default 0: a free port. */
  readonly port?: number;
  readonly rateLimit?: Partial<RateLimitConfig>;
  readonly faults?: FaultRates;
  /** Requests kept in `log` (default 10000; older ones are dropped). */
  readonly logLimit?: number;
}

export interface RequestRecord {
  readonly method: string;
  /** Path and query as sent. */
  readonly url: string;
  readonly status: number;
  readonly client: string;
  /** The request carried `If-None-Match`. */
  readonly conditional: boolean;
  /** Counted against the rate limit. */
  readonly counted: boolean;
  readonly atMs: number;
}

export interface StandinStats {
  requests: number;
  /** 304 answers. */
  notModified: number;
  /** Requests sent while the client was blocked or its window exhausted: a well-behaved client sends none. */
  violations: number;
  /** Injected faults delivered. */
  faults: number;
  readonly byStatus: Record<number, number>;
}

export interface Standin {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly stats: StandinStats;
  /** The most recent requests, oldest first. */
  readonly log: readonly RequestRecord[];
  readonly faults: FaultInjector;
  readonly limiter: RateLimiter;
  close(): Promise<void>;
}

interface CompiledRoute {
  readonly route: RouteDef;
  readonly segments: readonly { readonly literal?: string; readonly param?: string }[];
}

function compile(route: RouteDef): CompiledRoute {
  const segments = route.path
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
  return { route, segments };
}

function match(routes: readonly CompiledRoute[], method: string, path: string) {
  const parts = path.split('/').slice(1);
  for (const c of routes) {
    if (c.route.method !== method || c.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const s = c.segments[i]!;
      if (s.literal !== undefined) ok = s.literal === parts[i];
      else {
        try {
          params[s.param!] = decodeURIComponent(parts[i]!);
        } catch {
          ok = false;
        }
        ok &&= parts[i] !== '';
      }
    }
    if (ok) return { route: c.route, params };
  }
  return undefined;
}

/** A weak ETag over the body bytes, in GitHub's form `W/"<64 hex>"`. */
export function weakEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('hex')}"`;
}

/** Whether an `If-None-Match` header names `etag` (weak comparison, lists, `*`). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  const wanted = strip(etag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === wanted);
}

export async function startStandin(service: StandinService, options: StandinOptions): Promise<Standin> {
  const { dialect } = service;
  const routes = service.routes.map(compile);
  const limiter = new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...options.rateLimit });
  const faults = new FaultInjector(options.seed, service.name, options.faults);
  const logLimit = options.logLimit ?? 10_000;
  const log: RequestRecord[] = [];
  const stats: StandinStats = { requests: 0, notModified: 0, violations: 0, faults: 0, byStatus: {} };
  let ownUrl = '';

  const answer = (req: IncomingMessage, res: ServerResponse, requestBody: string) => {
    const nowMs = options.clock.nowMs();
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    const headers: Record<string, string> = {
      ...dialect.commonHeaders,
      date: new Date(nowMs).toUTCString(),
    };
    let client = `anon:${req.socket.remoteAddress ?? 'unknown'}`;
    let counted = false;
    const conditional = typeof req.headers['if-none-match'] === 'string';

    const send = (status: number, body: string | undefined, extra: Readonly<Record<string, string>> = {}) => {
      Object.assign(headers, extra);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      res.sendDate = false;
      res.writeHead(status, headers);
      res.end(method === 'HEAD' ? undefined : body);
      stats.requests++;
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      log.push({ method, url: req.url ?? '/', status, client, conditional, counted, atMs: nowMs });
      if (log.length > logLimit) log.splice(0, log.length - logLimit);
    };
    const sendResponse = (r: StandinResponse) =>
      send(r.status, r.body === undefined ? undefined : JSON.stringify(r.body), r.headers);
    const sendError = (status: number, message: string, extra: Readonly<Record<string, string>> = {}) =>
      sendResponse({ status, body: dialect.errorBody(status, message), headers: extra });

    try {
      let authenticated = false;
      try {
        const token = dialect.identify(req.headers);
        if (token !== undefined) {
          client = `token:${token}`;
          authenticated = true;
        }
      } catch (err) {
        if (err instanceof HttpError) return sendError(err.status, err.message, err.headers);
        throw err;
      }

      const found = match(routes, method === 'HEAD' ? 'GET' : method, url.pathname);
      const resource = found ? found.route.resource : dialect.defaultResource;

      if (resource !== null) {
        const blockedMs = limiter.blockedFor(client, nowMs);
        if (blockedMs > 0) {
          stats.violations++;
          return sendResponse(
            dialect.secondaryLimited(Math.ceil(blockedMs / 1000), limiter.window(client, resource, nowMs)),
          );
        }
        const before = limiter.window(client, resource, nowMs);
        if (before.remaining <= 0) {
          stats.violations++;
          return sendResponse(dialect.primaryLimited(before, nowMs));
        }
        const fault: Fault | undefined = faults.draw(url.pathname);
        if (fault?.kind === 'secondary-limit') {
          stats.faults++;
          limiter.block(client, nowMs + fault.retryAfterSeconds * 1000);
          return sendResponse(dialect.secondaryLimited(fault.retryAfterSeconds, before));
        }
        if (fault?.kind === 'server-error') {
          stats.faults++;
          counted = true;
          const window = limiter.consume(client, resource, nowMs);
          return sendError(fault.status, 'Server Error', dialect.rateLimitHeaders(window));
        }
      }

      let result: StandinResponse;
      if (!found) {
        result = { status: 404, body: dialect.errorBody(404, 'Not Found') };
      } else {
        try {
          result = found.route.handler({
            method,
            rawPath: url.pathname,
            params: found.params,
            query: url.searchParams,
            headers: req.headers,
            baseUrl: req.headers.host ? `http://${req.headers.host}` : ownUrl,
            nowMs,
            authenticated,
            rateWindow: (r) => limiter.window(client, r, nowMs),
            body: requestBody,
          });
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
          result = { status: err.status, body: dialect.errorBody(err.status, err.message), headers: err.headers };
        }
      }

      const body = result.body === undefined ? undefined : JSON.stringify(result.body);
      const etag = result.status === 200 && body !== undefined ? weakEtag(body) : undefined;
      if (etag && etagMatches(req.headers['if-none-match'] as string | undefined, etag)) {
        stats.notModified++;
        const window = resource === null ? undefined : limiter.window(client, resource, nowMs);
        const { link: _link, ...resultHeaders } = result.headers ?? {};
        return send(304, undefined, { ...resultHeaders, etag, ...(window ? dialect.rateLimitHeaders(window) : {}) });
      }
      let limitHeaders: Record<string, string> = {};
      if (resource !== null) {
        counted = true;
        limitHeaders = dialect.rateLimitHeaders(limiter.consume(client, resource, nowMs));
      }
      return send(result.status, body, { ...result.headers, ...(etag ? { etag } : {}), ...limitHeaders });
    } catch (err) {
      if (!res.headersSent) return sendError(500, `stand-in ${service.name} failed: ${(err as Error).message}`);
      res.destroy(err as Error);
    }
  };

  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      // GET requests carry no body the stand-ins read; drain it so keep-alive connections stay usable.
      req.resume();
      answer(req, res, '');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  ownUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url: ownUrl,
    port,
    stats,
    log,
    faults,
    limiter,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** A JSON answer (200 unless told). */
export function json(body: unknown, headers: Readonly<Record<string, string>> = {}, status = 200): StandinResponse {
  return { status, body, headers };
}
