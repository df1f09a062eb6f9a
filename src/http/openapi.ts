import { type TSchema, Type } from '@sinclair/typebox';
import { EXPECTED } from '../paths/params.js';
import type { PathDef } from '../paths/types.js';
import type { RouteGroup } from './route-table.js';

/**
 * OpenAPI 3.1 from the path table and the TypeBox schemas (the same ones areas use for their payloads).
 * @fastify/swagger assembles the document from these route schemas.
 */
export function openApiInfo() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'protoscore',
      version: '0.1.0',
      description:
        'Read-only analytics datasets and risk scores for crypto protocols and chains, computed from primary sources. ' +
        'Every spec path needs `Authorization: Bearer <token>`. Responses use the envelope ' +
        '`{status, data, meta}`; errors `{status:false, error:{code, message, request_id}}`.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http' as const, scheme: 'bearer', description: 'Token from `protoscore keys create`' },
      },
    },
  };
}

export const Meta = Type.Object(
  {
    as_of: Type.String({
      format: 'date-time',
      description: 'Time of the newest source observation behind the payload',
    }),
    computed_at: Type.String({ format: 'date-time' }),
    stale: Type.Boolean({ description: "True when older than the dataset's freshness budget" }),
    methodology: Type.Optional(Type.String({ description: '`<area>.<model>@<version>`' })),
    source: Type.String({ description: 'Where the facts came from (e.g. `sandbox`, `mainnet`)' }),
    dataset_version: Type.Integer(),
  },
  { additionalProperties: true },
);

export const PagedMeta = Type.Composite([
  Meta,
  Type.Object({
    total: Type.Integer({ minimum: 0 }),
    page_size: Type.Integer({ minimum: 1 }),
    page_skip: Type.Integer({ minimum: 0 }),
    next: Type.Union([Type.String(), Type.Null()], { description: 'Path of the next page, or null' }),
  }),
]);

export const ErrorBody = Type.Object({
  status: Type.Literal(false),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    request_id: Type.String(),
  }),
});

export const Redirect = Type.Object({
  status: Type.Literal(true),
  redirect: Type.String({ description: 'The canonical path (also in the Location header)' }),
});

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
    meta: def.shape === 'paged' ? PagedMeta : Meta,
  });
}

const errorResponse = (description: string) => ({ ...ErrorBody, description });

/** The Fastify route schema of one URL shape: parameters, responses and docs. */
export function routeSchema(group: RouteGroup) {
  const defs = group.paths.map((p) => p.def);
  const first = group.paths[0]!;
  const params: Record<string, TSchema> = {};
  first.params.forEach((kind, i) => {
    params[group.paramNames[i]!] = Type.String({ description: `${group.labels[i]}: ${EXPECTED[kind]}` });
  });
  const ok =
    defs.length === 1
      ? envelope(defs[0]!)
      : Type.Union(
          defs.map((d) => envelope(d)),
          { description: 'one of' },
        );
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
      308: { ...Redirect, description: 'Redirect to the canonical form of the path' },
      400: errorResponse('invalid_parameter: a segment is malformed; the message names it and the expected form'),
      401: errorResponse('missing_token, malformed_authorization, invalid_token, revoked_token or expired_token'),
      404: errorResponse('unknown_entity (names the listing path) or no_data'),
      405: errorResponse('method_not_allowed'),
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

export const SYSTEM_SCHEMAS = {
  authorization: {
    summary: 'Checks a token',
    tags: ['system'],
    security: [{ bearer: [] }],
    response: {
      200: Type.Object({ status: Type.Literal(true), data: Type.String() }),
      401: errorResponse('The token is missing, malformed, invalid, revoked or expired'),
      429: errorResponse('rate_limited'),
    },
  },
  health: { summary: 'Liveness', tags: ['system'], response: { 200: Health } },
  ready: {
    summary: 'Readiness: 503 until every enabled dataset was computed once',
    tags: ['system'],
    response: {
      200: Type.Object({ status: Type.Literal(true), data: Type.Object({ ready: Type.Literal(true) }) }),
      503: errorResponse('not_ready'),
    },
  },
  status: {
    summary: 'Jobs (last run, result, duration, next run) and datasets (as_of, staleness)',
    tags: ['system'],
    response: { 200: Type.Object({ status: Type.Literal(true), data: Type.Record(Type.String(), Type.Unknown()) }) },
  },
  metrics: {
    summary: 'Prometheus metrics',
    tags: ['system'],
    produces: ['text/plain'],
    response: { 200: { type: 'string', description: 'Prometheus text format' } },
  },
} as const;
