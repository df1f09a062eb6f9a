import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { conformance, openApi30ToJsonSchema } from './wire-conformance.js';

/**
 * GitHub's REST description as its owners publish it: `@octokit/openapi` (pinned in package.json),
 * `generated/api.github.com.json` (OpenAPI 3.0.3), and a validator over its schemas
 * (`<GITHUB_DESCRIPTION_ID>#/$defs/<name>` for `#/components/schemas/<name>`).
 */

export const GITHUB_DESCRIPTION_VERSION = '23.0.2';
const require = createRequire(import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: the description is plain JSON, walked by name
export const githubDescription: any = JSON.parse(
  readFileSync(
    join(dirname(require.resolve('@octokit/openapi/package.json')), 'generated/api.github.com.json'),
    'utf8',
  ),
);
export const githubPackageVersion = (require('@octokit/openapi/package.json') as { version: string }).version;

export const GITHUB_DESCRIPTION_ID = 'https://api.github.com/openapi';
export const githubValidator = conformance({
  [GITHUB_DESCRIPTION_ID]: {
    $defs: openApi30ToJsonSchema(githubDescription.components.schemas, GITHUB_DESCRIPTION_ID),
  } as never,
});

/** `#/components/schemas/x` → the validator's reference. */
export const githubRef = (ref: string) => ref.replace('#/components/schemas/', `${GITHUB_DESCRIPTION_ID}#/$defs/`);

/** A component schema by its `$ref`. */
// biome-ignore lint/suspicious/noExplicitAny: plain JSON
export const githubSchema = (ref: string): any => githubDescription.components.schemas[ref.split('/').pop()!];

export interface DescribedResponse {
  /** The body's schema (an item's, for a list) as its `$ref`. */
  readonly ref: string;
  readonly list: boolean;
  readonly headers: readonly { readonly name: string; readonly type: string }[];
}

/** The 200 answer of `GET <template>`. */
export function describedResponse(template: string): DescribedResponse {
  const response = githubDescription.paths[template].get.responses['200'];
  const schema = response.content['application/json'].schema;
  const list = schema.type === 'array';
  const headers = Object.entries((response.headers ?? {}) as Record<string, { $ref: string }>).map(([name, h]) => {
    const header = githubDescription.components.headers[h.$ref.split('/').pop()!];
    return { name: name.toLowerCase(), type: header.schema.type as string };
  });
  return { ref: list ? schema.items.$ref : schema.$ref, list, headers };
}

/**
 * The `oneOf` payload branch of an event, by its `type` (the branch's `title`): GitHub says which by the type, and
 * as a plain `oneOf`, `PublicEvent`'s payload (an object that declares nothing) would match every payload.
 */
export const eventPayloadRef: ReadonlyMap<string, string> = new Map(
  (githubDescription.components.schemas.event.properties.payload.oneOf as { $ref: string }[]).map((r) => [
    githubSchema(r.$ref).title as string,
    r.$ref,
  ]),
);
