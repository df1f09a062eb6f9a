import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { type TSchema, Type } from '@sinclair/typebox';
import { type ApiErrorCode, STATUS_OF } from '../core/errors.js';
import { EXPECTED } from '../paths/params.js';
import type { PathDef } from '../paths/types.js';
import type { RouteGroup } from './route-table.js';

/**
 * OpenAPI 3.1 from the path table and the TypeBox schemas (the same ones areas use for their payloads).
 * @fastify/swagger assembles the document from these route schemas; the shapes every route shares (the meta of the
 * envelope, the error envelope, the redirect) are named schemas under `components/schemas`, added to Fastify with
 * `addSchema` (SHARED_SCHEMAS) and referenced by `$ref`.
 */

/** An area as the document's tags name it (the API knows no area module: the runtime passes these). */
export interface AreaTag {
  readonly id: string;
  readonly title: string;
}

const SYSTEM_TAG = 'system';

/** The options of @fastify/swagger: info, servers, tags, security scheme and how shared schemas are named. */
export function swaggerOptions(opts: {
  readonly publicUrl: string | undefined;
  readonly paths: readonly PathDef[];
  readonly areas?: readonly AreaTag[];
}): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'protoscore',
        version: '0.1.0',
        description:
          'Read-only analytics datasets and risk scores for crypto protocols and chains, computed from primary ' +
          'sources. Every spec path needs `Authorization: Bearer <token>`. Responses use the envelope ' +
          '`{status, data, meta}`; errors `{status:false, error:{code, message, request_id}}`.',
        // A self-hosted service: whoever runs this server answers for it, not the authors of the software.
        contact: { name: 'The operator of this protoscore server' },
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // `PUBLIC_URL` where a proxy serves the API under another origin or a path prefix; else the origin this
      // document was fetched from.
      servers: [
        opts.publicUrl
          ? { url: opts.publicUrl, description: 'The public URL of this server (PUBLIC_URL)' }
          : { url: '/', description: 'This server (the origin that served this document)' },
      ],
      tags: documentTags(opts.paths, opts.areas ?? []),
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'ps_<id>_<secret>',
            description: 'Token from `protoscore keys create`',
          },
        },
      },
    },
    hideUntagged: false,
    // Shared schemas keep their `$id` as their name under components/schemas (not `def-N`).
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}` },
  };
}

/** One tag per area that has paths in the table, in the table's order, and the system tag. */
function documentTags(paths: readonly PathDef[], areas: readonly AreaTag[]) {
  const ids = [...new Set(paths.map((p) => p.area))];
  const tags: { name: string; description: string }[] = ids.map((id) => {
    const own = paths.filter((p) => p.area === id);
    const scores = own.filter((p) => p.template.startsWith('/scores/')).length;
    const title = areas.find((a) => a.id === id)?.title ?? id;
    const counts = [
      `${own.length - scores} dataset path${own.length - scores === 1 ? '' : 's'}`,
      ...(scores > 0 ? [`${scores} score path${scores === 1 ? '' : 's'}`] : []),
    ];
    return { name: id, description: `${title}: ${counts.join(' and ')}` };
  });
  tags.push({
    name: SYSTEM_TAG,
    description:
      'The server itself: liveness, readiness, job and dataset status, Prometheus metrics (no token) and the token check',
  });
  return tags;
}

const ref = <T extends TSchema>(schema: T, extra: Record<string, unknown> = {}) =>
  Type.Unsafe<T['static']>({ $ref: `${schema.$id}#`, ...extra });

export const Meta = Type.Object(
  {
    as_of: Type.String({
      format: 'date-time',
      description: 'Time of the newest source observation behind the payload',
    }),
    computed_at: Type.String({ format: 'date-time' }),
    stale: Type.Boolean({ description: "True when older than the dataset's freshness budget" }),
    methodology: Type.Optional(Type.String({ description: '`<area>.<model>@<version>`' })),
    source: Type.String({
      description:
        'Where the facts came from, one label per source read, joined by `, `: an EVM chain as `<chain>:<chain_id>` ' +
        '(`ethereum:1`), GitHub as `github`; `sandbox:` first when the sandbox world or its stand-in served it ' +
        '(`sandbox:ethereum:31337`, `sandbox:github`): those figures are not mainnet (docs/vocabulary.md)',
    }),
    dataset_version: Type.Integer(),
  },
  { $id: 'Meta', description: 'About the dataset: its freshness, version and methodology', additionalProperties: true },
);

export const PagedMeta = Type.Composite(
  [
    Meta,
    Type.Object({
      total: Type.Integer({ minimum: 0 }),
      page_size: Type.Integer({ minimum: 1 }),
      page_skip: Type.Integer({ minimum: 0 }),
      next: Type.Union([Type.String(), Type.Null()], { description: 'Path of the next page, or null' }),
    }),
  ],
  { $id: 'PagedMeta', description: 'Meta of a paged listing: the dataset and the page', additionalProperties: true },
);

const ERROR_CODES = Object.keys(STATUS_OF) as ApiErrorCode[];

export const ApiErrorObject = Type.Object(
  {
    code: Type.Union(
      ERROR_CODES.map((c) => Type.Literal(c)),
      { description: 'What went wrong: one of the codes of API.md' },
    ),
    message: Type.String({ description: 'For people: names the bad segment, the listing path, the wait' }),
    request_id: Type.String({ description: 'Also in the X-Request-Id header; quote it when reporting a problem' }),
  },
  { $id: 'Error', description: 'An error' },
);

export const ErrorBody = Type.Object(
  { status: Type.Literal(false), error: ref(ApiErrorObject) },
  { $id: 'ErrorEnvelope', description: 'The envelope of every error' },
);

export const Redirect = Type.Object(
  {
    status: Type.Literal(true),
    redirect: Type.String({ description: 'The canonical path (also in the Location header)' }),
  },
  { $id: 'Redirect', description: 'The answer to a recognisable but non-canonical path' },
);

/** Added to Fastify (`addSchema`) before the routes that reference them; named under components/schemas. */
export const SHARED_SCHEMAS: readonly TSchema[] = [Meta, PagedMeta, ApiErrorObject, ErrorBody, Redirect];

function defaultPayload(def: PathDef): TSchema {
  if (def.payload) return def.payload;
  // Areas describe their payloads; these generic shapes document the paths an area has not described yet.
  switch (def.shape) {
    case 'score-history':
    case 'all-scores':
    case 'listing':
    case 'paged':
    case 'daily-7':
      return Type.Array(Type.Record(Type.String(), Type.Unknown()));
    case 'snapshot':
      return Type.Record(Type.String(), Type.Unknown());
  }
}

function envelope(def: PathDef): TSchema {
  return Type.Object({
    status: Type.Literal(true),
    data: defaultPayload(def),
    meta: ref(def.shape === 'paged' ? PagedMeta : Meta),
  });
}

const errorResponse = (description: string) => ref(ErrorBody, { description });

/** The 4xx a request that never reaches a route can get, on every path (see `clientErrorResponse`). */
const clientErrors = {
  400: errorResponse('invalid_request: the request is not valid HTTP (answered before routing)'),
  408: errorResponse('invalid_request: the request did not arrive in time'),
  431: errorResponse('invalid_request: the request headers are larger than the server accepts'),
};

/** The Fastify route schema of one URL shape: parameters, responses and docs. */
export function routeSchema(group: RouteGroup) {
  const defs = group.paths.map((p) => p.def);
  const first = group.paths[0]!;
  const params: Record<string, TSchema> = {};
  first.params.forEach((kind, i) => {
    params[group.paramNames[i]!] = Type.String({ description: `${group.labels[i]}: ${EXPECTED[kind]}` });
  });
  // Paths sharing a URL shape often share a payload too: a union of identical envelopes says nothing more.
  const envelopes = new Map(defs.map((d) => [JSON.stringify(envelope(d)), envelope(d)]));
  const ok =
    envelopes.size === 1 ? [...envelopes.values()][0]! : Type.Union([...envelopes.values()], { description: 'one of' });
  return {
    operationId: defs.map((d) => d.id).join('_or_'),
    summary: defs.map((d) => d.summary).join(' — or — '),
    description: defs
      .map((d) => `\`${d.template}\`${d.methodology ? ` (methodology ${d.methodology})` : ''}`)
      .join('\n\n'),
    tags: [...new Set(defs.map((d) => d.area))],
    security: [{ bearer: [] }],
    ...(first.params.length > 0 ? { params: Type.Object(params) } : {}),
    response: {
      200: { ...ok, description: 'The dataset' },
      304: { description: 'Not modified (If-None-Match matched the ETag)', type: 'null' },
      308: ref(Redirect, { description: 'Redirect to the canonical form of the path' }),
      ...clientErrors,
      400: errorResponse(
        'invalid_parameter: a segment is malformed; the message names it and the expected form. ' +
          'invalid_request: the request is not valid HTTP',
      ),
      401: errorResponse('missing_token, malformed_authorization, invalid_token, revoked_token or expired_token'),
      404: errorResponse('unknown_entity (names the listing path) or no_data'),
      429: errorResponse('rate_limited (see Retry-After)'),
      500: errorResponse('internal'),
      503: errorResponse('overloaded'),
    },
  };
}

const Health = Type.Object({
  status: Type.Literal(true),
  data: Type.Object({ status: Type.Literal('ok'), uptime_seconds: Type.Integer() }),
});

/** Public system routes: no token (`security: []` overrides nothing global, but says so to clients and linters). */
const PUBLIC = { tags: [SYSTEM_TAG], security: [] };

export const SYSTEM_SCHEMAS = {
  authorization: {
    operationId: 'system.authorization',
    summary: 'Checks a token',
    description: 'Answers 200 for a valid token; the same 401 codes as the spec paths otherwise.',
    tags: [SYSTEM_TAG],
    security: [{ bearer: [] }],
    response: {
      200: Type.Object({ status: Type.Literal(true), data: Type.String() }, { description: 'The token is valid' }),
      ...clientErrors,
      401: errorResponse('The token is missing, malformed, invalid, revoked or expired'),
      429: errorResponse('rate_limited'),
    },
  },
  health: {
    operationId: 'system.health',
    summary: 'Liveness',
    description: 'Answers while the process serves HTTP; says nothing about the data (see /ready).',
    ...PUBLIC,
    response: { 200: { ...Health, description: 'The process is alive' }, ...clientErrors },
  },
  ready: {
    operationId: 'system.ready',
    summary: 'Readiness: 503 until every enabled dataset was computed once',
    description: 'For load balancers: 503 `not_ready` (with Retry-After) names the computations still missing.',
    ...PUBLIC,
    response: {
      200: Type.Object(
        { status: Type.Literal(true), data: Type.Object({ ready: Type.Literal(true) }) },
        { description: 'Every enabled area has published once' },
      ),
      ...clientErrors,
      503: errorResponse('not_ready'),
    },
  },
  status: {
    operationId: 'system.status',
    summary: 'Jobs (last run, result, duration, next run) and datasets (as_of, staleness)',
    description: 'For operators and monitoring: the state of the jobs and the freshness of the published datasets.',
    ...PUBLIC,
    response: {
      200: Type.Object(
        { status: Type.Literal(true), data: Type.Record(Type.String(), Type.Unknown()) },
        { description: 'The status report' },
      ),
      ...clientErrors,
    },
  },
  metrics: {
    operationId: 'system.metrics',
    summary: 'Prometheus metrics',
    description: 'HTTP requests and jobs of this process, in the Prometheus text format.',
    ...PUBLIC,
    produces: ['text/plain'],
    response: { 200: { type: 'string', description: 'Prometheus text format' }, ...clientErrors },
  },
} as const;
