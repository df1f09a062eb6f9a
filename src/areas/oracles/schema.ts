/**
 * Payload schemas of the oracle paths (DESIGN.md convention 3). `compute.ts` produces exactly these shapes
 * (`Static<…>`); docs/methodology/oracles.md defines every figure.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Iso, Nullable } from '../kit/schema.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Seconds = (description: string) => Nullable(Type.Number({ minimum: 0, description }));
const Pct = (description: string) => Nullable(Type.Number({ minimum: 0, description }));

const feedFields = {
  pair: Type.String({ description: '`BASE-QUOTE`, uppercase' }),
  chain: Type.String(),
  feed_address: Type.String({ description: 'Lowercase address of the feed (the aggregator proxy on mainnet)' }),
  aggregator_address: Nullable(
    Type.String({ description: 'The aggregator whose AnswerUpdated logs are read; null until first resolved' }),
  ),
  heartbeat_seconds: Type.Integer({ minimum: 1, description: 'Configured heartbeat (registry)' }),
  deviation_threshold_pct: Type.Number({ exclusiveMinimum: 0, description: 'Configured deviation threshold, %' }),
  decimals: Nullable(Type.Integer({ minimum: 0, description: 'Decimals of the answers (read from the feed)' })),
};

export const OraclePair = Type.Object({
  ...feedFields,
  name: Type.String({ description: 'Display name, as the aggregator describes itself: `ETH / USD`' }),
  unresolved_reason: Nullable(
    Type.String({
      description:
        'Why the feed’s rounds are not read: `no_aggregator` (the feed answers no `aggregator()`: it is not an aggregator proxy), `no_decimals` (it answers no `decimals()`); null when they are',
    }),
  ),
  latest_answer: Nullable(Type.Number({ description: 'Newest answer, normalised by decimals' })),
  latest_updated_at: Nullable(Iso('Time of the newest round')),
  update_count_7d: Nullable(Count('Rounds in the 7 days ending at as_of')),
  prices_collateral: Type.Array(
    Type.Object({
      protocol: Type.String({ description: 'Registry id of the liquid staking protocol' }),
      symbol: Type.String(),
      token_address: Nullable(Type.String()),
      role: Type.Union([Type.Literal('lst'), Type.Literal('underlying')]),
      via: Type.String({ description: '`answer`, or `answer × exchange rate` for a wrapped LST' }),
    }),
    {
      description:
        'The liquid staking collateral the feed prices (lst: STETH-USD prices wstETH × stEthPerToken) or its underlying (ETH-USD: WETH)',
    },
  ),
  stale: Nullable(Type.Boolean({ description: 'The newest record’s `stale`' })),
  stale_since: Nullable(Iso('The newest record’s `stale_since`')),
  dex_price_usd: Nullable(Type.Number({ minimum: 0, description: 'The newest record’s `dex_price_usd`' })),
  price_disagreement_pct: Pct('The newest record’s `price_disagreement_pct`'),
  price_flagged: Nullable(Type.Boolean({ description: 'The newest record’s `price_flagged` (> 2 % apart)' })),
});

export const OracleDailyRecord = Type.Object({
  date: Type.String({ description: 'UTC day of `timestamp`' }),
  timestamp: Iso('End of the 7-day window: as_of for the running day, else the last second of the day'),
  partial: Type.Boolean({ description: 'True for the running day' }),
  gap_reason: Nullable(
    Type.String({
      description:
        "Why the record has no values: `no_data` (before ingestion covers, or before the feed's first round)",
    }),
  ),
  gap_reasons: Type.Record(Type.String(), Type.String(), {
    description:
      'Per-field reasons of the null figures of a known record: `no_data` (too few rounds in the window), `no_price`/`not_listed` (no DEX price to compare), `source_error` (the feed could not be read)',
  }),
  window_complete: Type.Boolean({
    description: 'False when ingestion began inside the window: figures cover only its covered part',
  }),
  ...feedFields,
  update_count: Nullable(Count('AnswerUpdated rounds with updatedAt in the window')),
  median_interval_seconds: Seconds('Median time between each round of the window and the round before it'),
  p95_interval_seconds: Seconds('95th percentile of those intervals (linear interpolation)'),
  max_interval_seconds: Seconds('Longest of those intervals'),
  longest_staleness_seconds: Seconds(
    'Longest time without a new round: max_interval_seconds or the time from the last round to the window end, whichever is longer',
  ),
  longest_staleness_heartbeats: Nullable(
    Type.Number({
      minimum: 0,
      description: 'longest_staleness_seconds / heartbeat_seconds: above 1 the feed was late',
    }),
  ),
  heartbeat_round_count: Nullable(Count('Rounds whose |change| vs the previous answer is below the threshold')),
  deviation_round_count: Nullable(Count('Rounds whose |change| reached the threshold')),
  heartbeat_triggered_share: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  deviation_triggered_share: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  deviation_per_update_mean_pct: Pct('Mean |answer / previous answer − 1| × 100 over the rounds'),
  deviation_per_update_median_pct: Pct('Median of the same'),
  deviation_per_update_max_pct: Pct('Largest of the same'),
  realised_volatility: Nullable(
    Type.Number({ minimum: 0, description: 'Annualised: √(Σ ln(answer/previous)² / Σ interval × seconds per year)' }),
  ),
  dex_deviation_mean_abs_pct: Pct('Mean |answer / DEX USD price of the hour − 1| × 100 over the compared rounds'),
  dex_deviation_max_abs_pct: Pct('Largest of the same'),
  dex_compared_rounds: Nullable(Count('Rounds with a DEX price of their hour')),
  dex_deviation_reason: Nullable(
    Type.String({
      description:
        'Why there is no DEX comparison: `not_listed` (no token for the pair on the chain), `no_data` (no round in the window), `no_price` (no DEX price in any round’s hour)',
    }),
  ),
  last_answer: Nullable(Type.Number({ description: 'Newest answer at the window end, normalised by decimals' })),
  last_answer_raw: Nullable(Type.String({ description: 'Exact raw answer' })),
  last_updated_at: Nullable(Iso('Time of that round')),
  stale: Nullable(
    Type.Boolean({
      description:
        'True when, at the window end, the newest round is older than heartbeat × 1.5 (core/price-policy FEED_FRESHNESS_FACTOR: the feed is not fresh and the price policy no longer lets it win)',
    }),
  ),
  stale_since: Nullable(Iso('When the feed became stale (last round + heartbeat × 1.5); null when fresh')),
  max_staleness_vs_heartbeat: Nullable(
    Type.Number({
      minimum: 0,
      description: 'longest_staleness_heartbeats: the worst staleness of the window, in heartbeats',
    }),
  ),
  heartbeat_breaches: Nullable(
    Count('Times in the window the feed went more than heartbeat × 1.5 without a round (intervals, and the open one)'),
  ),
  dex_price_usd: Nullable(
    Type.Number({ minimum: 0, description: 'DEX USD price of the base token, hour of the window end' }),
  ),
  chosen_price: Nullable(
    Type.Object(
      {
        price_usd: Type.Number(),
        source: Type.String({ description: 'oracle (a fresh feed wins), dex, or the stale feed at low confidence' }),
        source_ref: Type.String(),
        confidence: Type.Number(),
        alternative_price_usd: Nullable(Type.Number()),
        disagreement: Nullable(Type.Number()),
        flagged: Type.Boolean(),
      },
      {
        description:
          'The one price policy (core/price-policy choosePrice) on the last answer and the DEX price at the window end: what every area prices the base token at',
      },
    ),
  ),
  price_disagreement_pct: Pct('|last answer / DEX price − 1| × 100 at the window end; null without both'),
  price_flagged: Nullable(
    Type.Boolean({ description: 'True when the feed and the DEX price differ by more than 2 % at the window end' }),
  ),
});

export type OraclePairEntry = Static<typeof OraclePair>;
export type OracleDailyEntry = Static<typeof OracleDailyRecord>;
