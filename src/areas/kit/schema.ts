/**
 * Schema pieces every area's payloads share (TypeBox): one definition each, so that a USD figure, a fraction, a
 * timestamp and a daily score record mean and look the same on every path.
 */
import { type TSchema, Type } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An ISO-8601 UTC timestamp with seconds precision (`2026-11-20T14:00:00Z`). */
export const Iso = (description: string) => Type.String({ format: 'date-time', description });

/** A UTC day, `YYYY-MM-DD`. */
export const IsoDate = (description = 'UTC day, YYYY-MM-DD') =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

/** A non-negative USD amount (float). */
export const Usd = (description: string) => Type.Number({ minimum: 0, description });

/** A non-negative fraction (a share, a ratio; may exceed 1 where the description says so), or null when unknown. */
export const Fraction = (description: string) => Nullable(Type.Number({ minimum: 0, description }));

export const Grade = Type.Union([
  Type.Literal('A'),
  Type.Literal('B'),
  Type.Literal('C'),
  Type.Literal('D'),
  Type.Literal('E'),
]);

/** One component of a score: its value in [0, 1] (null: not applicable, dropped), weight and the inputs behind it. */
export const ScoreComponent = Type.Object({
  name: Type.String(),
  value: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  weight: Type.Number({ minimum: 0, maximum: 1 }),
  inputs: Type.Record(Type.String(), Type.Unknown()),
  gap_reason: Type.Optional(Type.String({ description: 'Why a dropped component (value null) has no value' })),
});

/** The share of a model's nominal weight whose components had a value (core/score.ts `MIN_EVIDENCE`). */
const Evidence = () =>
  Type.Number({
    minimum: 0,
    maximum: 1,
    description:
      "Share of the model's nominal weight whose components had a value; below 0.6 the score is null with gap_reason insufficient_evidence",
  });

/** The generic score record of OpenAPI for paths whose area has not described its own yet. */
export const ScoreRecord = Type.Object(
  {
    score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    grade: Nullable(Grade),
    components: Type.Array(ScoreComponent),
    methodology: Type.String(),
    timestamp: Type.String({ format: 'date-time' }),
    evidence: Type.Optional(Evidence()),
  },
  { additionalProperties: true },
);

export interface DailyScoreOptions {
  /** What `timestamp` is for this area's records. */
  readonly timestamp?: string;
  /** The gap reasons this area's records use, for the description of `gap_reason`. */
  readonly gapReasons: string;
}

/**
 * One day of a score history (`API.md` Scores and Time windows): the score of the UTC day `date` (the running day
 * is `partial`), its components, methodology id, the instant it describes, and `gap_reason` when `score` is null.
 */
export function DailyScoreRecord(options: DailyScoreOptions) {
  return Type.Object({
    score: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    grade: Nullable(Grade),
    components: Type.Array(ScoreComponent),
    methodology: Type.String(),
    timestamp: Iso(
      options.timestamp ?? 'The instant scored: as_of for the running day, else the last second of the UTC day',
    ),
    aggregation: Type.Union([Type.Literal('weighted-mean'), Type.Literal('weighted-geometric-mean')]),
    evidence: Evidence(),
    date: IsoDate(),
    partial: Type.Boolean({ description: 'True for the running day' }),
    gap_reason: Nullable(Type.String({ description: `Why the score is null (${options.gapReasons})` })),
  });
}

/** The 7-day history of a score path: `data[0]` is the running day, newest first. */
export const ScoreHistory = <T extends TSchema>(record: T) => Type.Array(record, { minItems: 7, maxItems: 7 });

/** A count (an integer ≥ 0). */
export const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
