import { createRequire } from 'node:module';
import path from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import type protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProtos, protoJsonSchemas } from '../../../../test/support/proto-schema.js';
import { conformance } from '../../../../test/support/wire-conformance.js';
import { RedditAbout, RedditCommentListing, RedditPostListing } from '../../../sources/reddit/schemas.js';
import { dayOf } from '../base/generate.js';
import {
  type RedditStandin,
  SANDBOX_REDDIT_CLIENT_ID,
  SANDBOX_REDDIT_CLIENT_SECRET,
  startRedditStandin,
} from './server.js';

/**
 * The stand-in's answers against Reddit's own protobufs: `@devvit/protos` (pinned in package.json), the messages
 * Reddit's developer platform reads the same endpoints into — `Listing` (`/r/{sub}/new`, `/r/{sub}/comments`, with
 * `WrappedRedditObject` and `RedditObject` for posts and comments) and `SubredditAboutResponse` (`/r/{sub}/about`) —
 * under proto3's JSON mapping (test/support/proto-schema.ts).
 *
 * Every field the messages declare must have their type wherever the stand-in sends it. The messages are left open:
 * they describe part of what Reddit sends (no `is_self` on a post, no `modhash` or `geo_filter` on a listing, all of
 * which Reddit's API answers carry), so a field they do not declare is not a deviation. What closes the gap instead:
 * every field the connector reads (`src/sources/reddit/schemas.ts`) must be one the messages declare, so the figures
 * rest only on fields Reddit's own description names. The token endpoint (`/api/v1/access_token`, OAuth) has no
 * message there.
 */

const PROTOS_VERSION = '0.14.6';
const require = createRequire(import.meta.url);
const ID = 'https://developers.reddit.com/protos';
const LISTING = 'devvit.plugin.redditapi.common.Listing';
const ABOUT = 'devvit.plugin.redditapi.subreddits.SubredditAboutResponse';
const START = Date.parse('2026-03-10T12:00:00Z');

let root: protobuf.Root;
let validator: ReturnType<typeof conformance>;

/** The connector's fields (paths of a TypeBox schema) that the proto message at that position does not declare. */
function undeclared(schema: TSchema, type: protobuf.Type, at: string): string[] {
  const out: string[] = [];
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  for (const [name, sub] of Object.entries(props)) {
    const field = type.fields[name];
    if (!field) {
      out.push(`${at}/${name}`);
      continue;
    }
    const item = (sub as { items?: TSchema }).items ?? sub;
    const nested = field.resolvedType as protobuf.Type | null;
    if (nested && 'fields' in nested && !nested.fullName.startsWith('.google.protobuf.')) {
      out.push(...undeclared(item, nested, `${at}/${name}`));
    }
  }
  return out;
}

describe("Reddit stand-in against Reddit's protobufs (@devvit/protos)", () => {
  let standin: RedditStandin;
  const answers: { url: string; message: string; body: unknown }[] = [];

  beforeAll(async () => {
    const base = path.join(path.dirname(require.resolve('@devvit/protos/package.json')), 'schema');
    root = await loadProtos(
      [base, path.join(base, '.snootobuf/deps')],
      ['devvit/plugin/redditapi/common/common_msg.proto', 'devvit/plugin/redditapi/subreddits/subreddits_msg.proto'],
    );
    validator = conformance({
      [ID]: { $defs: protoJsonSchemas(root, [LISTING, ABOUT], ID, { closed: false }) } as never,
    });

    const clock = { t: START, nowMs: () => clock.t };
    standin = await startRedditStandin({ seed: 11, clock, epochDay: dayOf(START) - 8, days: 8 });
    const basic = Buffer.from(`${SANDBOX_REDDIT_CLIENT_ID}:${SANDBOX_REDDIT_CLIENT_SECRET}`).toString('base64');
    const token = (await (
      await fetch(`${standin.authUrl}/api/v1/access_token`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      })
    ).json()) as { access_token: string };
    const get = async (url: string, message: string) => {
      const res = await fetch(standin.url + url, { headers: { authorization: `bearer ${token.access_token}` } });
      expect(res.status, url).toBe(200);
      const body = await res.json();
      answers.push({ url, message, body });
      return body as { data: { after: string | null } };
    };
    // As the source reads them: `limit=100&raw_json=1`, down the listing with `after`.
    for (const sub of standin.world.subreddits.slice(0, 6)) {
      await get(`/r/${sub.name}/about?raw_json=1`, ABOUT);
      for (const kind of ['new', 'comments']) {
        let after: string | null = null;
        for (let page = 0; page < 3; page++) {
          const body = await get(
            `/r/${sub.name}/${kind}?limit=100&raw_json=1${after ? `&after=${after}` : ''}`,
            LISTING,
          );
          after = body.data.after;
          if (!after) break;
        }
      }
    }
  });
  afterAll(() => standin?.close());

  it(`pins the protobufs (@devvit/protos ${PROTOS_VERSION})`, () => {
    expect((require('@devvit/protos/package.json') as { version: string }).version).toBe(PROTOS_VERSION);
  });

  it('every answer has the declared type in every field the messages declare', () => {
    const problems = answers.flatMap((a) =>
      validator.errors(`${ID}#/$defs/${a.message}`, a.body).map((e) => `${a.url} ${e}`),
    );
    expect(problems.slice(0, 20)).toEqual([]);
    // Deleted, removed and moderator items were among them (their nulls and special values are the risky ones).
    const things = answers
      .filter((a) => a.message === LISTING)
      .flatMap((a) =>
        (a.body as { data: { children: { data: Record<string, unknown> }[] } }).data.children.map((c) => c.data),
      );
    expect(things.some((t) => t.author === '[deleted]')).toBe(true);
    expect(things.some((t) => t.removed_by_category !== null && t.removed_by_category !== undefined)).toBe(true);
    expect(things.some((t) => t.distinguished === 'moderator')).toBe(true);
  });

  it('the connector reads only fields the messages declare', () => {
    expect(undeclared(RedditPostListing, root.lookupType(LISTING), '')).toEqual([]);
    expect(undeclared(RedditCommentListing, root.lookupType(LISTING), '')).toEqual([]);
    expect(undeclared(RedditAbout, root.lookupType(ABOUT), '')).toEqual([]);
  });
});
