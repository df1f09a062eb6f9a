import { describe, expect, it } from 'vitest';
import { DAY } from '../../core/time.js';
import { computeCommunity, socialHistory } from './compute.js';
import { messageFact, type ReadMessage, type SocialSubjectFacts } from './facts.js';
import { loadModelLexicon } from './model/lexicon-file.js';

/**
 * The community computation on hand-built messages: the counting rules (exclusions, official posts, unique users),
 * spam (signals and duplicates across authors) left out of sentiment and topics, non-English and invisible content
 * counted apart, the legacy fields with both spellings, and the gap rules (an incompletely read day keeps its
 * figures and has no score).
 */
const lexicon = loadModelLexicon();
const AS_OF = Date.UTC(2026, 10, 20, 12, 0, 0) / 1000;
const TODAY = Math.floor(AS_OF / DAY) * DAY;
let n = 0;
const msg = (text: string | null, over: Partial<ReadMessage> = {}): ReadMessage => ({
  id: String(++n),
  at: TODAY + 3600,
  author: 'alice',
  excluded: null,
  text,
  ...over,
});
const subject = (messages: ReadMessage[], over: Partial<SocialSubjectFacts> = {}): SocialSubjectFacts => ({
  channel: 'discord',
  protocolId: 'aave',
  name: 'Aave',
  source: { guild_id: '1', channels: ['10', '11'] },
  readable: true,
  contentVisible: true,
  unreadableReason: null,
  coveredFrom: TODAY - 10 * DAY,
  coveredTo: AS_OF,
  missing: [],
  lastError: null,
  messages: messages.map((m) => messageFact(m, lexicon)),
  ...over,
});

describe('a day of a channel', () => {
  const raid = 'Claim the free airdrop at claim-drop dot xyz now';
  const s = subject([
    msg('great work team, the new vault is amazing', { author: 'alice' }),
    msg('my tx is stuck pending, withdrawals not working', { author: 'bob' }),
    msg('vote on the proposal before quorum', { author: 'carol' }),
    msg('the bot posted this', { author: 'bot1', excluded: 'bot' }),
    msg('webhook feed', { author: 'hook', excluded: 'webhook' }),
    msg(null, { author: 'sys', excluded: 'message_type' }),
    msg('DM me for a 10x signal', { author: 'spammer' }),
    msg(raid, { author: 'r1', at: TODAY + 7200 }),
    msg(raid, { author: 'r2', at: TODAY + 7300 }),
    msg(raid, { author: 'r3', at: TODAY + 7400 }),
    msg('Hola, alguien sabe como reclamar los tokens de la pool?', { author: 'dan' }),
    msg('yesterday was fine', { author: 'erin', at: TODAY - DAY + 60 }),
  ]);
  const [today, yesterday] = socialHistory(s, AS_OF);

  it('counts people’s messages and authors, spam included, exclusions apart', () => {
    expect(today).toMatchObject({
      date: '2026-11-20',
      partial: true,
      channel: 'discord',
      protocol: 'aave',
      daily_message_count: 8,
      number_of_unique_users: 8,
      official_posts: 0,
    });
    expect(today!.inputs).toMatchObject({
      complete: true,
      messages_seen: 11,
      excluded: { bots: 1, webhooks: 1, system: 1, automoderator: 0, deleted: 0, removed: 0 },
      spam: { total: 4, dm_offers: 1, invite_links: 0, mass_mentions: 0, duplicates: 3 },
      non_english: 1,
      no_content: 0,
      scored: 3,
    });
    expect(yesterday).toMatchObject({ date: '2026-11-19', partial: false, daily_message_count: 1 });
  });

  it('leaves spam and non-English out of sentiment and topics, with both spellings of the legacy field', () => {
    expect(today!.high_level_topic_frequency.reduce((a, t) => a + t.frequency, 0)).toBe(3);
    const topics = today!.high_level_topic_frequency.map((t) => t.topic);
    expect(topics).toContain('Governance and Voting');
    expect(topics).toContain('Technical Discussions and Support');
    // The raid's airdrop talk and the DM offer are spam: no Trading and Tokens topic from them.
    expect(topics).not.toContain('Trading and Tokens');
    const dist = today!.mid_level_topic_based_sentiment_distribution;
    expect(dist.reduce((a, d) => a + d.count, 0)).toBe(3);
    for (const d of dist) {
      expect(d.positive_sentiment_count + d.neutral_sentiment_count + d.negative_sentiment_count).toBe(d.count);
    }
    expect(today!.mid_level_topic_based_sentiment_distrubution).toEqual(dist);
    expect(today!.average_sentiment_score).not.toBeNull();
  });

  it('scores the day with the model’s methodology and stamps record 0 with as_of', () => {
    expect(today).toMatchObject({
      methodology: 'community.social@1.2.0',
      timestamp: '2026-11-20T12:00:00Z',
      gap_reason: null,
    });
    expect(today!.score).not.toBeNull();
    expect(yesterday!.timestamp).toBe('2026-11-19T23:59:59Z');
  });
});

describe('gaps', () => {
  const cases: [string, Partial<SocialSubjectFacts>, string | null][] = [
    ['read completely', {}, null],
    ['nothing read yet', { coveredFrom: null, coveredTo: null }, 'no_data'],
    ['reading started after the day', { coveredFrom: TODAY + 1800 }, 'no_data'],
    ['the last read failed', { coveredFrom: TODAY + 1800, lastError: 'HTTP 500' }, 'source_error'],
    ['a span the listing cap left unread', { missing: [{ from: TODAY + 100, to: TODAY + 200 }] }, 'listing_cap'],
    [
      'unreadable channel',
      { readable: false, unreadableReason: 'private', coveredFrom: null, coveredTo: null },
      'source_error',
    ],
  ];
  it.each(cases)('%s', (_, over, reason) => {
    const [today] = socialHistory(subject([msg('gm frens, great day')], over), AS_OF);
    expect(today!.gap_reason).toBe(reason);
    expect(today!.score === null).toBe(reason !== null);
    expect(today!.inputs.complete).toBe(reason === null);
    // The figures are published whatever the score; unknown (null, with the reason) when nothing of the day was read
    // or the listing cap left part of it unread.
    const unread = over.coveredTo === null || (over.coveredFrom ?? 0) > AS_OF || reason === 'listing_cap';
    expect(today!.daily_message_count).toBe(unread ? null : 1);
    if (unread) expect(today!.gap_reasons).toMatchObject({ daily_message_count: reason });
  });

  it('without message content: counts, no sentiment (with its reason), no score', () => {
    const [today] = socialHistory(subject([msg(null), msg(null, { author: 'bob' })], { contentVisible: false }), AS_OF);
    expect(today).toMatchObject({
      daily_message_count: 2,
      number_of_unique_users: 2,
      average_sentiment_score: null,
      gap_reasons: { average_sentiment_score: 'no_data' },
      score: null,
      gap_reason: 'insufficient_evidence',
    });
    expect(today!.inputs.no_content).toBe(2);
  });
});

describe('Reddit rules', () => {
  it('counts official posts, and apart too; leaves AutoModerator, deleted and removed items out', () => {
    const [today] = socialHistory(
      subject(
        [
          msg('weekly thread', { author: 'mod', official: true }),
          msg('rule reminder', { author: 'AutoModerator', excluded: 'automoderator' }),
          msg(null, { author: 'x', excluded: 'deleted' }),
          msg('removed text', { author: 'y', excluded: 'removed' }),
          msg('love this protocol', { author: 'z' }),
        ],
        { channel: 'reddit', source: { subreddit: 'Aave_Official' } },
      ),
      AS_OF,
    );
    expect(today).toMatchObject({
      channel: 'reddit',
      daily_message_count: 2,
      number_of_unique_users: 2,
      official_posts: 1,
    });
    expect(today!.inputs.excluded).toMatchObject({ automoderator: 1, deleted: 1, removed: 1 });
  });
});

describe('computeCommunity', () => {
  it('lists each channel’s protocols with source and coverage, and 7 records each', () => {
    const out = computeCommunity({
      asOf: AS_OF,
      subjects: [subject([]), subject([], { channel: 'reddit', source: { subreddit: 'Aave_Official' } })],
    });
    expect(out.listings.get('discord')).toEqual([
      {
        name: 'Aave',
        protocol_id: 'aave',
        source: { guild_id: '1', channels: ['10', '11'] },
        coverage: {
          readable: true,
          content_visible: true,
          reason: null,
          covered_from: '2026-11-10T00:00:00Z',
          covered_to: '2026-11-20T12:00:00Z',
          unread: [],
        },
      },
    ]);
    expect(out.histories.get('reddit:aave')).toHaveLength(7);
    expect(out.histories.get('discord:aave')!.map((r) => r.partial)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe("Reddit's listing cap", () => {
  // A first read of a subreddit whose listing ended 2.5 days before its window's end: from the window's start
  // (coveredFrom) to the oldest item reached nothing could be read; the two spans below overlap and are merged.
  const oldest = TODAY - DAY - 12 * 3600;
  const missing = [
    { from: TODAY - 10 * DAY, to: TODAY - 3 * DAY },
    { from: TODAY - 4 * DAY, to: oldest },
  ];
  const capped = subject(
    [
      msg('love this protocol', { author: 'a', at: oldest }),
      msg('great new vault', { author: 'b', at: oldest + 3600 }),
      msg('all good here', { author: 'c', at: TODAY - DAY + 60 }),
      msg('gm', { author: 'd', at: TODAY + 60 }),
    ],
    { channel: 'reddit', source: { subreddit: 'Aave_Official' }, missing },
  );
  const history = socialHistory(capped, AS_OF);

  it.each([
    [0, '2026-11-20', null],
    [1, '2026-11-19', null],
    [2, '2026-11-18', { from: '2026-11-18T00:00:00Z', to: '2026-11-18T12:00:00Z' }],
    [3, '2026-11-17', { from: '2026-11-17T00:00:00Z', to: '2026-11-17T23:59:59Z' }],
    [6, '2026-11-14', { from: '2026-11-14T00:00:00Z', to: '2026-11-14T23:59:59Z' }],
  ] as const)('record %i (%s): unread span %o', (k, date, span) => {
    const rec = history[k]!;
    expect(rec.date).toBe(date);
    expect(rec.inputs.unread).toEqual(span ? [span] : []);
    expect(rec.inputs.complete).toBe(span === null);
    if (span === null) {
      expect(rec.daily_message_count).toBe(1);
      expect(rec.gap_reasons).not.toHaveProperty('daily_message_count');
      return;
    }
    // Never an undercount: the counts, sentiment and topics of a day the cap cut are unknown, with its reason; what
    // was read of it stays visible in the inputs.
    expect(rec).toMatchObject({
      daily_message_count: null,
      number_of_unique_users: null,
      official_posts: null,
      average_sentiment_score: null,
      high_level_topic_frequency: [],
      mid_level_topic_based_sentiment_distribution: [],
      score: null,
      gap_reason: 'listing_cap',
      gap_reasons: {
        daily_message_count: 'listing_cap',
        number_of_unique_users: 'listing_cap',
        official_posts: 'listing_cap',
        average_sentiment_score: 'listing_cap',
        high_level_topic_frequency: 'listing_cap',
      },
    });
    expect(rec.inputs.messages_seen).toBe(k === 2 ? 2 : 0);
  });

  it('publishes the unread span in the listing’s coverage', () => {
    const entry = computeCommunity({ asOf: AS_OF, subjects: [capped] }).listings.get('reddit')![0]!;
    expect(entry.coverage.unread).toEqual([{ from: '2026-11-10T00:00:00Z', to: '2026-11-18T12:00:00Z' }]);
  });
});
