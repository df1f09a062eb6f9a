import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Recorded, typeCheckAnswers } from '../../../../test/support/typecheck.js';
import {
  type DiscordStandin,
  SANDBOX_DISCORD_TOKEN,
  SANDBOX_DISCORD_TOKEN_NO_CONTENT,
  startDiscordStandin,
} from './server.js';

/**
 * The stand-in's answers against Discord's published types: `discord-api-types` (pinned in package.json, `v10`),
 * for every route `src/sources/discord` reads, with the parameters it sends, and its error and 429 bodies. The
 * answers are recorded and type-checked as `const x: Wire<Type> = <answer>` (test/support/typecheck.ts: every
 * required field, every type, nothing the type does not name).
 *
 * Guild channels are checked against `APIChannel` (the union of the concrete channel types, chosen by `type`), not
 * against the package's `RESTGetAPIGuildChannelsResult` (`APIGuildChannel[]`, the base interface every guild
 * channel shares), which would refuse a forum's own fields and miss the ones a forum must have.
 *
 * Headers are not in the types: a 429's are checked against Discord's rate-limit documentation ("Header Format":
 * `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Reset-After`, `-Bucket` with every route's answer, 429s included;
 * `X-RateLimit-Scope` on every 429; `X-RateLimit-Global` on a global one; `Retry-After`).
 */

const TYPES_VERSION = '0.38.57';
const require = createRequire(import.meta.url);
const DAY = 86_400_000;
const NOW = Date.parse('2026-03-09T12:00:00Z');
const ORIGIN = Math.floor(NOW / DAY) - 8;
const ROUTE_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-reset-after',
  'x-ratelimit-bucket',
];

describe("Discord stand-in against Discord's published types", () => {
  let standin: DiscordStandin;
  const clock = { t: NOW, nowMs: () => clock.t };
  const answers: Recorded[] = [];
  const refusals: { scope: string; headers: Headers }[] = [];
  let n = 0;

  const get = async (url: string, type: string, token = SANDBOX_DISCORD_TOKEN, status = 200) => {
    // A fresh second for every request: the buckets and the global limit never refuse what is recorded.
    clock.t += 6000;
    const res = await fetch(`${standin.url}${url}`, { headers: { authorization: `Bot ${token}` } });
    expect(res.status, url).toBe(status);
    const value = await res.json();
    answers.push({ name: `${type.replace(/\W/g, '_')}_${n++}`, type, value });
    return value;
  };

  beforeAll(async () => {
    standin = await startDiscordStandin({ seed: 3, clock, originDay: ORIGIN, days: 8 });
    await get('/users/@me', 'D.RESTGetAPICurrentUserResult');
    const guilds = (await get('/users/@me/guilds', 'D.RESTGetAPICurrentUserGuildsResult')) as { id: string }[];
    expect(guilds.length).toBe(standin.world.guilds.length);
    // A busy guild and one with an exploit or a raid (scam offers, webhooks, joins, pins).
    const sample = [
      standin.world.guilds.find((g) => g.character === 'busy')!,
      standin.world.guilds.find((g) => g.exploitDays.size > 0 || g.raidDays.size > 0)!,
    ];
    for (const g of sample) {
      await get(`/guilds/${g.id}/channels`, 'D.APIChannel[]');
      const active = (await get(`/guilds/${g.id}/threads/active`, 'D.RESTGetAPIGuildThreadsResult')) as {
        threads: { id: string }[];
      };
      for (const t of active.threads.slice(0, 3)) {
        await get(`/channels/${t.id}`, 'D.RESTGetAPIChannelResult');
        await get(`/channels/${t.id}/messages?limit=100`, 'D.RESTGetAPIChannelMessagesResult');
      }
      for (const c of g.channels.filter((x) => !x.spec.hidden)) {
        await get(`/channels/${c.id}`, 'D.RESTGetAPIChannelResult');
        if (c.spec.type === 15 || c.spec.role === 'support') {
          await get(
            `/channels/${c.id}/threads/archived/public?limit=50`,
            'D.RESTGetAPIChannelThreadsArchivedPublicResult',
          );
        }
        if (c.spec.type === 0 || c.spec.type === 5) {
          const after = (BigInt(c.id) + 1n).toString();
          await get(`/channels/${c.id}/messages?after=${after}&limit=100`, 'D.RESTGetAPIChannelMessagesResult');
          await get(`/channels/${c.id}/messages?limit=100`, 'D.RESTGetAPIChannelMessagesResult');
          await get(
            `/channels/${c.id}/messages?limit=100`,
            'D.RESTGetAPIChannelMessagesResult',
            SANDBOX_DISCORD_TOKEN_NO_CONTENT,
          );
        }
      }
    }
    // Errors the source meets: a bad token, a channel it may not read, an unknown channel and guild.
    await get('/users/@me/guilds', 'D.RESTError', 'not-a-token', 401);
    const modLog = sample[0]!.channels.find((c) => c.spec.hidden)!;
    await get(`/channels/${modLog.id}/messages`, 'D.RESTError', SANDBOX_DISCORD_TOKEN, 403);
    await get('/channels/1/messages', 'D.RESTError', SANDBOX_DISCORD_TOKEN, 404);
    await get('/guilds/1/channels', 'D.RESTError', SANDBOX_DISCORD_TOKEN, 404);

    // The three kinds of 429: the bot's bucket, the global limit, a shared resource.
    const general = sample[0]!.channels.find((c) => c.spec.role === 'general')!;
    const refuse = async (scope: string, url: string) => {
      const res = await fetch(`${standin.url}${url}`, { headers: { authorization: `Bot ${SANDBOX_DISCORD_TOKEN}` } });
      expect(res.status, scope).toBe(429);
      refusals.push({ scope, headers: res.headers });
      answers.push({ name: `rate_limit_${scope}`, type: 'D.RESTRateLimit', value: await res.json() });
    };
    clock.t += 60_000;
    for (let i = 0; i < 5; i++)
      await fetch(`${standin.url}/channels/${general.id}/messages?limit=1`, {
        headers: { authorization: `Bot ${SANDBOX_DISCORD_TOKEN}` },
      });
    await refuse('user', `/channels/${general.id}/messages?limit=1`);
    clock.t += 60_000;
    standin.limits.globalPerSecond = 1;
    await fetch(`${standin.url}/users/@me`, { headers: { authorization: `Bot ${SANDBOX_DISCORD_TOKEN}` } });
    await refuse('global', '/users/@me');
    standin.limits.globalPerSecond = 50;
    clock.t += 60_000;
    standin.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 0.35 }, pathIncludes: '/messages' });
    await refuse('shared', `/channels/${general.id}/messages?limit=1`);
  });
  afterAll(() => standin?.close());

  it(`pins the types (discord-api-types ${TYPES_VERSION})`, () => {
    const manifest = join(dirname(require.resolve('discord-api-types/v10')), 'package.json');
    expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version).toBe(TYPES_VERSION);
  });

  it('every answer type-checks against its type', () => {
    expect(answers.length).toBeGreaterThan(40);
    // `flags` and `public_flags` are bitfields (Discord: "the flags on a user, combined as a bitfield").
    const problems = typeCheckAnswers(process.cwd(), "import type * as D from 'discord-api-types/v10';", answers, [
      'flags',
      'public_flags',
    ]);
    // The same deviation repeats in every answer of a route: report each kind once.
    const kinds = [...new Set(problems.map((p) => p.replace(/^\w+?_\d+: /, '')))];
    expect(kinds).toEqual([]);
  });

  it("every 429 carries the headers Discord's documentation lists", () => {
    expect(refusals.map((r) => r.scope)).toEqual(['user', 'global', 'shared']);
    for (const { scope, headers } of refusals) {
      expect(headers.get('x-ratelimit-scope'), scope).toBe(scope);
      expect(headers.get('retry-after'), scope).toMatch(/^\d+$/);
      if (scope === 'global') expect(headers.get('x-ratelimit-global')).toBe('true');
      else for (const h of ROUTE_HEADERS) expect(headers.get(h), `${scope} 429: ${h}`).not.toBeNull();
    }
  });
});
