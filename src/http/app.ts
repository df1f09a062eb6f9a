import { createServer, type Server } from 'node:http';
import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { ApiError } from '../core/errors.js';
import type { Clock } from '../core/time.js';
import type { StatusReport } from '../jobs/status.js';
import type { Metrics } from '../metrics/metrics.js';
import { documentPath, resolveParams } from '../paths/compile.js';
import type { PathDef } from '../paths/types.js';
import type { Registry } from '../registry/index.js';
import { type AccessLog, pinoAccessLog } from './access-log.js';
import type { Principal, TokenVerifier } from './auth.js';
import type { DatasetCache } from './datasets.js';
import { handleClientError, sendError, toApiError } from './errors.js';
import { datasetReply, HotPath, JSON_TYPE, rateLimitHeaders, requestIdOf } from './hot.js';
import { type AreaTag, routeSchema, SHARED_SCHEMAS, SYSTEM_SCHEMAS, swaggerOptions } from './openapi.js';
import { ArrivalRate, MAX_EVENT_LOOP_DELAY_MS, SHED_MIN_REQUESTS_PER_SECOND } from './pressure.js';
import { type Hit, MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from './ratelimit.js';
import { groupRoutes, type RouteGroup } from './route-table.js';
import { StaticJson } from './static-json.js';
import { prefersHtml, renderStatusPage, STATUS_PAGE_CSP } from './status-page.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** The route needs a bearer token. */
    auth?: boolean;
    /** Label for metrics and logs: the spec template or the system path. */
    label?: string;
  }
  interface FastifyInstance {
    /** Repeat requests for documents answered before routing (src/http/hot.ts). */
    hotPath: HotPath;
  }
}

export interface ReadyState {
  readonly ready: boolean;
  /** What is still missing (computations never published). */
  readonly waiting: readonly string[];
}

export interface AppDeps {
  readonly config: Config;
  readonly registry: Registry;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly tokens: TokenVerifier;
  readonly datasets: DatasetCache;
  /** Shared rate-limit counters; absent means in-memory counters per process. */
  readonly redis?: Redis;
  /** The rate-limit counters themselves, when the caller makes them (the runtime's Redis with a fallback); wins over `redis`. */
  readonly rateLimits?: RateLimitStore;
  readonly status: () => Promise<StatusReport>;
  readonly ready: () => Promise<ReadyState>;
  /** The path table (`areas/index.ts` builds it; the API knows no area). */
  readonly paths: readonly PathDef[];
  /** The access log (default: through pino; the runtime passes a faster writer for its own loggers). */
  readonly accessLog?: AccessLog;
  /** Answer repeat document requests before routing (default true; see src/http/hot.ts). */
  readonly hotPath?: boolean;
  /** Overrides of `OVERLOAD_DEFAULTS`. */
  readonly overload?: Partial<OverloadLimits>;
  /** The areas' titles, for the tags of the OpenAPI document. */
  readonly areas?: readonly AreaTag[];
}

/**
 * When the API sheds requests with `503 overloaded` (@fastify/under-pressure), measured over each sample interval.
 * A limit of 0 is not checked. The service's defaults are `OVERLOAD_DEFAULTS`; tests set their own.
 */
export interface OverloadLimits {
  /** Mean event-loop delay (ms) above which requests are shed. */
  readonly maxEventLoopDelayMs: number;
  /** Event-loop utilisation (0…1) above which requests are shed. */
  readonly maxEventLoopUtilization: number;
  readonly sampleIntervalMs: number;
  /** The `Retry-After` of a shed request, in seconds. */
  readonly retryAfterSeconds: number;
  /**
   * Below this rate of arriving requests nothing is shed, whatever the loop says: a loop that stalls without
   * request load (start-up, a long garbage collection) is not overload, and refusing the few requests that arrive
   * then helps nobody (pressure.ts).
   */
  readonly minRequestsPerSecond: number;
}

/** The service's limits: a second behind with at least 100 requests a second arriving (pressure.ts). */
export const OVERLOAD_DEFAULTS: OverloadLimits = {
  maxEventLoopDelayMs: MAX_EVENT_LOOP_DELAY_MS,
  maxEventLoopUtilization: 0,
  sampleIntervalMs: 1000,
  retryAfterSeconds: 10,
  minRequestsPerSecond: SHED_MIN_REQUESTS_PER_SECOND,
};

const OTHER_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function queryOf(url: string): string {
  const i = url.indexOf('?');
  return i === -1 ? '' : url.slice(i);
}

/** The handler of one URL shape of the path table. */
function specHandler(group: RouteGroup, deps: AppDeps, hot: HotPath) {
  const label = group.paths.map((p) => p.def.template).join(' | ');
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as Record<string, string>;
    const raw = group.paramNames.map((name) => params[name] ?? '');
    const first = resolveParams(group.paths[0]!, raw, group.labels);
    if (first.redirectTo) {
      const location = first.redirectTo + queryOf(request.url);
      return reply
        .code(308)
        .header('location', location)
        .header('cache-control', 'no-store')
        .type(JSON_TYPE)
        .send(JSON.stringify({ status: true, redirect: location }));
    }
    const candidates = group.paths.map((path, i) => ({
      path,
      values: i === 0 ? first.values : resolveParams(path, raw).values,
    }));
    for (const { path, values } of candidates) {
      if (deps.config.disabledAreas.has(path.def.area)) continue;
      const docPath = documentPath(path, values);
      const page =
        path.def.shape === 'paged'
          ? { size: Number(values.page_size), skip: Number(values.page_skip), base: docPath }
          : undefined;
      const rendered = await deps.datasets.render(docPath, page);
      if (rendered) {
        hot.remember(request.url, { docPath, page, label });
        const answer = datasetReply(rendered, request.headers['if-none-match'], request.headers['accept-encoding']);
        return reply.headers(answer.headers).code(answer.status).send(answer.body);
      }
    }
    const unknown = candidates.map(({ path, values }) => path.def.entity(values, deps.registry));
    if (unknown.every((u) => u !== undefined)) {
      throw new ApiError('unknown_entity', unknown.map((u) => u!.message).join('; '));
    }
    const known = candidates[unknown.indexOf(undefined)]!;
    if (deps.config.disabledAreas.has(known.path.def.area)) {
      throw new ApiError('no_data', `the ${known.path.def.area} area is switched off on this server`);
    }
    throw new ApiError('no_data', `no data has been computed yet for ${documentPath(known.path, known.values)}`);
  };
}

/** The connection options of Fastify's own HTTP server, as its `serverFactory` receives them (defaults applied). */
export interface FastifyServerTimeouts {
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
  readonly maxRequestsPerSocket?: number | null;
}

/**
 * Applies to a server made by a `serverFactory` what Fastify applies to the servers it makes (lib/server.js,
 * `getServerInstance`): without it the server keeps Node's defaults, whose 5 s keep-alive timeout is shorter than a
 * load balancer's 60 s idle timeout (the proxy then reuses a connection the server is closing: a 502). Node's
 * `headersTimeout` (60 s to receive a request's headers) stays, as under Fastify.
 */
export function withFastifyTimeouts<S extends Server>(server: S, options: FastifyServerTimeouts): S {
  server.keepAliveTimeout = options.keepAliveTimeout;
  server.requestTimeout = options.requestTimeout;
  server.setTimeout(options.connectionTimeout);
  if (options.maxRequestsPerSocket) server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const limiter: RateLimitStore =
    deps.rateLimits ?? (deps.redis ? new RedisRateLimitStore(deps.redis) : new MemoryRateLimitStore());
  // No redaction: the access line's fields are fixed and never hold a header.
  const accessLog = deps.accessLog ?? pinoAccessLog(deps.logger.child({}, { redact: [] }));
  let closing = false;
  let underPressureNow: () => boolean = () => false;
  const overload = { ...OVERLOAD_DEFAULTS, ...deps.overload };
  const arrivals = new ArrivalRate(overload.minRequestsPerSecond);
  const hot = new HotPath({
    clock: deps.clock,
    tokens: deps.tokens,
    datasets: deps.datasets,
    limiter,
    metrics: deps.metrics,
    accessLog,
    onLimiterError: (requestId, err) =>
      deps.logger.warn(
        { request_id: requestId, err: err.message },
        'rate limit store unavailable; request not counted',
      ),
    bypass: () => closing || underPressureNow(),
  });
  const useHotPath = deps.hotPath ?? true;
  const app = Fastify({
    // Fastify's connection timeouts (72 s keep-alive by default), which it applies only to servers it makes itself.
    keepAliveTimeout: deps.config.keepAliveTimeoutMs,
    serverFactory: (handler, options) =>
      withFastifyTimeouts(
        createServer((req, res) => {
          arrivals.count();
          if (!useHotPath || !hot.handle(req, res)) handler(req, res);
        }),
        options as unknown as FastifyServerTimeouts,
      ),
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One log line per request is written in onResponse (with the route template), not Fastify's two.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    routerOptions: { maxParamLength: 1024 },
    return503OnClosing: true,
    frameworkErrors: (err, request, reply) => {
      sendError(request, reply, toApiError(err));
    },
    clientErrorHandler: handleClientError,
  });

  app.decorate('hotPath', hot);
  app.addHook('preClose', (done) => {
    closing = true;
    arrivals.stop();
    done();
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (!request.routeOptions.config.auth) return;
    const principal = await deps.tokens.verify(request.headers.authorization);
    request.principal = principal;
    let hit: Hit;
    try {
      const counted = limiter.hit(principal.tokenId, principal.rateLimit, principal.rateWindowMs, deps.clock.nowMs());
      hit = counted instanceof Promise ? await counted : counted;
    } catch (err) {
      // A shared counter that cannot be reached does not take the API down: serve unlimited and say so in the log.
      request.log.warn({ err: (err as Error).message }, 'rate limit store unavailable; request not counted');
      return;
    }
    reply.headers(rateLimitHeaders(hit));
    if (hit.exceeded) {
      throw new ApiError(
        'rate_limited',
        `rate limit of ${hit.limit} requests exceeded; retry in ${hit.resetSeconds} s`,
        { 'retry-after': String(hit.resetSeconds) },
      );
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    const route =
      request.routeOptions.config.label ?? (request.routeOptions.url ? request.routeOptions.url : 'unknown');
    deps.metrics.observeRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    // One line per request: no headers, no query string (tokens never appear in either log field).
    accessLog.write(request.id, request.method, route, request.url, reply.statusCode, reply.elapsedTime);
  });

  app.setErrorHandler((err, request, reply) => {
    const apiError = toApiError(err);
    if (apiError.status >= 500) request.log.error({ err }, 'request failed');
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('unknown_route', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );

  await app.register(underPressure, {
    maxEventLoopDelay: overload.maxEventLoopDelayMs,
    maxEventLoopUtilization: overload.maxEventLoopUtilization,
    // Utilisation over the last sample, not since start, so that shedding stops when the load does.
    eventLoopUtilizationMode: 'interval',
    sampleInterval: overload.sampleIntervalMs,
    retryAfter: overload.retryAfterSeconds,
    exposeStatusRoute: false,
    pressureHandler: (request, reply) => {
      // A stalled loop with few requests arriving is not overload (pressure.ts): serve them.
      if (!arrivals.loaded()) return;
      sendError(
        request,
        reply,
        new ApiError('overloaded', 'the service is overloaded; retry shortly', {
          'retry-after': String(overload.retryAfterSeconds),
        }),
      );
    },
  });
  underPressureNow = () => app.isUnderPressure() && arrivals.loaded();
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip', 'deflate'],
    brotliOptions: { params: { 1: 4 } },
  });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  await app.register(
    swagger,
    swaggerOptions({
      publicUrl: deps.config.publicUrl,
      paths: deps.paths,
      ...(deps.areas ? { areas: deps.areas } : {}),
    }),
  );
  // The API description never changes while the process runs: serialised and compressed once (static-json.ts).
  const description = new StaticJson(() => app.swagger());
  app.addHook('onReady', async () => description.warm());
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true },
    staticCSP: true,
    uiHooks: {
      onRequest: (request, reply, done) => {
        if (request.routeOptions.url === '/docs/json') description.send(request, reply);
        else done();
      },
    },
  });

  const methodNotAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
    await sendError(
      request,
      reply,
      new ApiError('method_not_allowed', `${request.method} is not allowed; use GET or HEAD`, { allow: 'GET, HEAD' }),
    );
  };
  const registerOthers = (url: string) =>
    app.route({
      method: [...OTHER_METHODS],
      url,
      schema: { hide: true },
      config: { label: url },
      onRequest: methodNotAllowed,
      handler: async () => undefined,
    });

  for (const group of groupRoutes(deps.paths)) {
    app.route({
      method: 'GET',
      url: group.fastifyUrl,
      // Documents are compressed once per rendering (src/http/datasets.ts), not per request by the plugin.
      config: { auth: true, label: group.paths.map((p) => p.def.template).join(' | '), compress: false },
      schema: routeSchema(group),
      validatorCompiler: () => () => true,
      // Documents, redirects and errors are sent as rendered bytes: the response schemas document them, and compiling
      // serializers from them (with their shared `$ref`s) would only slow the start.
      serializerCompiler: () => (data) => JSON.stringify(data),
      handler: specHandler(group, deps, hot),
    });
    registerOthers(group.fastifyUrl);
  }

  app.route({
    method: 'GET',
    url: '/authorization',
    config: { auth: true, label: '/authorization' },
    schema: SYSTEM_SCHEMAS.authorization,
    handler: async (_request, reply) =>
      reply
        .type(JSON_TYPE)
        .header('cache-control', 'no-store')
        .send('{"status":true,"data":"Authorization token is valid"}'),
  });
  registerOthers('/authorization');

  app.route({
    method: 'GET',
    url: '/health',
    config: { label: '/health' },
    schema: SYSTEM_SCHEMAS.health,
    handler: async (_request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send({ status: true, data: { status: 'ok', uptime_seconds: Math.round(process.uptime()) } }),
  });
  registerOthers('/health');

  app.route({
    method: 'GET',
    url: '/ready',
    config: { label: '/ready' },
    schema: SYSTEM_SCHEMAS.ready,
    handler: async (_request, reply) => {
      const state = await deps.ready();
      if (!state.ready) {
        throw new ApiError('not_ready', `waiting for the first computation of: ${state.waiting.join(', ')}`, {
          'retry-after': '5',
        });
      }
      return reply.header('cache-control', 'no-store').send({ status: true, data: { ready: true } });
    },
  });
  registerOthers('/ready');

  app.route({
    method: 'GET',
    url: '/status',
    config: { label: '/status' },
    schema: SYSTEM_SCHEMAS.status,
    // A browser (Accept prefers text/html) gets the report as a page; everyone else the JSON.
    handler: async (request, reply) => {
      const report = await deps.status();
      reply.header('cache-control', 'no-store').header('vary', 'Accept');
      if (!prefersHtml(request.headers.accept)) return reply.send({ status: true, data: report });
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', STATUS_PAGE_CSP)
        .header('x-content-type-options', 'nosniff')
        .send(renderStatusPage(report));
    },
  });
  registerOthers('/status');

  app.route({
    method: 'GET',
    url: '/metrics',
    config: { label: '/metrics' },
    schema: SYSTEM_SCHEMAS.metrics,
    handler: async (_request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type(deps.metrics.registry.contentType)
        .send(await deps.metrics.registry.metrics()),
  });
  registerOthers('/metrics');

  app.route({
    method: 'GET',
    url: '/openapi.json',
    config: { label: '/openapi.json' },
    schema: { hide: true },
    handler: async (request, reply) => description.send(request, reply, { 'cache-control': 'public, max-age=300' }),
  });
  registerOthers('/openapi.json');

  await app.ready();
  return app;
}
