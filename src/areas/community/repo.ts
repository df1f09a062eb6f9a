import type { Kysely } from 'kysely';
import { inChunks } from '../../store/chunks.js';
import type { Database } from '../../store/schema.js';
import { type Wait, wait } from '../kit/index.js';
import { type CommunityInput, LOOKBACK_SECONDS } from './compute.js';
import type { ChannelSource, CommunityChannel, Exclusion, SocialMessageFact, SocialSubjectFacts } from './facts.js';
import type { CommunityTables, SocialChannelTable } from './tables.js';

/** Rows per INSERT: 13 columns × 200 stays far below SQLite's bound-parameter limit. */
const CHUNK = 200;

/** A tracked protocol on a channel, as the targets name it. */
export interface SocialTarget {
  readonly channel: CommunityChannel;
  readonly protocolId: string;
  readonly name: string;
}

/** Where a channel's reading stands (its row), as the ingest reads and writes it. */
export interface ChannelState {
  readonly source: ChannelSource;
  readonly readable: boolean;
  readonly contentVisible: boolean | null;
  readonly unreadableReason: string | null;
  readonly coveredFrom: number | null;
  readonly coveredTo: number | null;
  /** The source's cursors (plain JSON). */
  readonly cursors: unknown;
  readonly lastError: string | null;
}

/** One read of a channel, written at once: its new state, new messages, spans left unread, and the retention bound. */
export interface ChannelWrite {
  readonly channel: CommunityChannel;
  readonly subject: string;
  readonly state: ChannelState;
  readonly messages: readonly SocialMessageFact[];
  readonly gaps: readonly { readonly from: number; readonly to: number }[];
  /** Messages and gaps older than this are deleted (no document reads them). */
  readonly horizon: number;
  readonly at: number;
}

/** What the compute job's gate compares with the last publication's: each channel's `updated_at`. */
export type CommunityInputs = [string, number][];

const key = (channel: string, subject: string) => `${channel}:${subject}`;

/** Reads and writes the community area's facts; rows become typed facts here only. */
export class CommunityRepository {
  private readonly db: Kysely<Database & CommunityTables>;

  constructor(platform: Kysely<Database>) {
    this.db = platform.withTables<CommunityTables>();
  }

  async state(channel: CommunityChannel, subject: string): Promise<ChannelState | undefined> {
    const row = await this.db
      .selectFrom('social_channels')
      .selectAll()
      .where('channel', '=', channel)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row ? stateOf(row) : undefined;
  }

  /** Writes a channel's read in one transaction: messages (new ids only), gaps, state and cursors. */
  async write(w: ChannelWrite): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const rows = w.messages.map((m) => ({
        channel: w.channel,
        message_id: m.id,
        subject: w.subject,
        at: m.at,
        author_hash: m.author,
        excluded: m.excluded,
        official: m.official ? 1 : 0,
        has_content: m.hasContent ? 1 : 0,
        english: m.english === null ? null : m.english ? 1 : 0,
        compound: m.compound,
        topic_mid: m.topicMid,
        topic_high: m.topicHigh,
        spam_signals: m.spamSignals,
        content_hash: m.contentHash,
      }));
      await inChunks(
        rows,
        (chunk) =>
          trx
            .insertInto('social_messages')
            .values(chunk)
            .onConflict((oc) => oc.columns(['channel', 'subject', 'message_id']).doNothing())
            .execute(),
        CHUNK,
      );
      for (const g of w.gaps) {
        await trx
          .insertInto('social_gaps')
          .values({ channel: w.channel, subject: w.subject, from_utc: g.from, to_utc: g.to })
          .onConflict((oc) => oc.columns(['channel', 'subject', 'from_utc']).doUpdateSet({ to_utc: g.to }))
          .execute();
      }
      const s = w.state;
      const row: SocialChannelTable = {
        channel: w.channel,
        subject: w.subject,
        source: JSON.stringify(s.source),
        readable: s.readable ? 1 : 0,
        content_visible: s.contentVisible === null ? null : s.contentVisible ? 1 : 0,
        unreadable_reason: s.unreadableReason,
        covered_from: s.coveredFrom === null ? null : Math.max(s.coveredFrom, w.horizon),
        covered_to: s.coveredTo,
        cursors: JSON.stringify(s.cursors ?? null),
        last_error: s.lastError,
        updated_at: w.at,
      };
      const { channel: _c, subject: _s, ...update } = row;
      await trx
        .insertInto('social_channels')
        .values(row)
        .onConflict((oc) => oc.columns(['channel', 'subject']).doUpdateSet(update))
        .execute();
      await trx
        .deleteFrom('social_messages')
        .where('channel', '=', w.channel)
        .where('subject', '=', w.subject)
        .where('at', '<', w.horizon)
        .execute();
      await trx
        .deleteFrom('social_gaps')
        .where('channel', '=', w.channel)
        .where('subject', '=', w.subject)
        .where('to_utc', '<', w.horizon)
        .execute();
    });
  }

  /** Records a failed read without touching the channel's coverage (its days stay as complete as they were). */
  async recordError(channel: CommunityChannel, subject: string, error: string, at: number): Promise<void> {
    await this.db
      .updateTable('social_channels')
      .set({ last_error: error, updated_at: at })
      .where('channel', '=', channel)
      .where('subject', '=', subject)
      .execute();
  }

  async computeInputs(): Promise<CommunityInputs | Wait> {
    const rows = await this.db
      .selectFrom('social_channels')
      .select(['channel', 'subject', 'updated_at'])
      .orderBy('channel')
      .orderBy('subject')
      .execute();
    if (!rows.length) return wait('no channel read yet');
    return rows.map((r) => [key(r.channel, r.subject), Number(r.updated_at)]);
  }

  /**
   * The computation's input: every target's channel facts of the look-back, as of the oldest instant up to which
   * the readable channels were read (so that no document claims more than every channel has seen).
   */
  async computeInput(targets: readonly SocialTarget[]): Promise<CommunityInput | Wait> {
    const rows = await this.db.selectFrom('social_channels').selectAll().execute();
    const byKey = new Map(rows.map((r) => [key(r.channel, r.subject), r]));
    const read = rows.filter((r) => r.readable && r.covered_to !== null).map((r) => Number(r.covered_to));
    if (!read.length) return wait('no channel read completely yet');
    const asOf = Math.min(...read);
    const subjects: SocialSubjectFacts[] = [];
    for (const t of targets) {
      const row = byKey.get(key(t.channel, t.protocolId));
      if (!row) continue;
      const state = stateOf(row);
      const messages = await this.db
        .selectFrom('social_messages')
        .selectAll()
        .where('channel', '=', t.channel)
        .where('subject', '=', t.protocolId)
        .where('at', '>', asOf - LOOKBACK_SECONDS)
        .where('at', '<=', asOf)
        .orderBy('at')
        .orderBy('message_id')
        .execute();
      const gaps = await this.db
        .selectFrom('social_gaps')
        .selectAll()
        .where('channel', '=', t.channel)
        .where('subject', '=', t.protocolId)
        .execute();
      subjects.push({
        channel: t.channel,
        protocolId: t.protocolId,
        name: t.name,
        ...state,
        // A channel read further than the others is published as of the common instant.
        coveredTo: state.coveredTo === null ? null : Math.min(state.coveredTo, asOf),
        missing: gaps.map((g) => ({ from: Number(g.from_utc), to: Number(g.to_utc) })),
        messages: messages.map((m) => ({
          id: m.message_id,
          at: Number(m.at),
          author: m.author_hash,
          excluded: m.excluded as Exclusion | null,
          official: Number(m.official) === 1,
          hasContent: Number(m.has_content) === 1,
          english: m.english === null ? null : Number(m.english) === 1,
          compound: m.compound === null ? null : Number(m.compound),
          topicMid: m.topic_mid,
          topicHigh: m.topic_high,
          spamSignals: Number(m.spam_signals),
          contentHash: m.content_hash,
        })),
      });
    }
    if (!subjects.length) return wait('no tracked channel read yet');
    return { asOf, subjects };
  }
}

function stateOf(row: SocialChannelTable): ChannelState {
  return {
    source: JSON.parse(row.source) as ChannelSource,
    readable: Number(row.readable) === 1,
    contentVisible: row.content_visible === null ? null : Number(row.content_visible) === 1,
    unreadableReason: row.unreadable_reason,
    coveredFrom: row.covered_from === null ? null : Number(row.covered_from),
    coveredTo: row.covered_to === null ? null : Number(row.covered_to),
    cursors: JSON.parse(row.cursors) as unknown,
    lastError: row.last_error,
  };
}
