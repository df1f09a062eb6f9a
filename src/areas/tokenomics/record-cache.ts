import type { TokenDay } from './days.js';
import type { TokenomicsRecordPayload } from './schema.js';

type RecordDay = Extract<TokenDay, { kind: 'record' }>;
type GapDay = Extract<TokenDay, { kind: 'gap' }>;

/**
 * The records of closed days, kept between the hourly computations of a process: a closed day's record depends only
 * on what its key names (days.ts `closedDayKey`), so it is computed once, not every hour over the whole ledger
 * (docs/benchmarks.md: 100,000 holders cost seconds a day). Bounded: a token keeps the closed days of its last run
 * only (6). Not stored: a restart computes them again.
 */
export class RecordCache {
  private readonly byToken = new Map<string, Map<string, TokenomicsRecordPayload>>();

  has(token: string, key: string): boolean {
    return this.byToken.get(token)?.has(key) ?? false;
  }

  /** The records of a token's days (newest first), keeping the closed days' for the next run. */
  records(
    token: string,
    days: readonly TokenDay[],
    compute: (d: RecordDay) => TokenomicsRecordPayload,
    gap: (d: GapDay) => TokenomicsRecordPayload,
  ): TokenomicsRecordPayload[] {
    const before = this.byToken.get(token);
    const kept = new Map<string, TokenomicsRecordPayload>();
    const out = days.map((d) => {
      if (d.kind === 'gap') return gap(d);
      if (d.kind === 'cached') {
        const r = before?.get(d.key);
        if (!r) throw new Error(`tokenomics: no cached record ${d.key} of ${token}`);
        kept.set(d.key, r);
        return r;
      }
      const r = compute(d);
      if (d.key !== undefined) kept.set(d.key, r);
      return r;
    });
    this.byToken.set(token, kept);
    return out;
  }
}
