/** Time helpers. Times inside the service are Unix seconds (integers); the wire shows ISO-8601 UTC with `Z`. */

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;

/** ISO-8601 UTC, seconds precision, with `Z`: `2026-11-20T14:00:00Z`. */
export function isoSeconds(unixSeconds: number): string {
  return new Date(Math.floor(unixSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `YYYY-MM-DD` of the UTC day that contains the instant. */
export function utcDate(unixSeconds: number): string {
  return isoSeconds(unixSeconds).slice(0, 10);
}

/** Start (Unix seconds) of the UTC day that contains the instant. */
export function startOfUtcDay(unixSeconds: number): number {
  return Math.floor(unixSeconds / DAY) * DAY;
}

/**
 * The end instants of the daily records of a 7-day history (API.md "Time windows"), newest first: `asOf` for the
 * running day, then the last second of each earlier UTC day.
 */
export function dailyHistoryInstants(asOf: number, days = 7): number[] {
  const today = startOfUtcDay(asOf);
  return Array.from({ length: days }, (_, d) => (d === 0 ? asOf : today - (d - 1) * DAY - 1));
}

/**
 * The window of a daily record ending at `end` (one of `dailyHistoryInstants`): from the start of its UTC day to
 * `end`, both included. With whole-second timestamps this is `[day start, next day start)` for a past day, so a block
 * stamped exactly 00:00:00 belongs to the day it starts and to no other. Every area's daily figures count events by
 * block timestamp through this one window (API.md "Time windows").
 */
export interface DayWindow {
  /** The UTC day's first second. */
  readonly from: number;
  /** The record's instant: the day's last second, or `as_of` for the running day. */
  readonly to: number;
}

export function utcDayWindow(end: number): DayWindow {
  return { from: startOfUtcDay(end), to: end };
}

/** Whether the instant (Unix seconds) falls in the window. */
export function inDayWindow(t: number, w: DayWindow): boolean {
  return t >= w.from && t <= w.to;
}

/** A clock is passed in wherever time matters, so that pure code and tests control it. */
export interface Clock {
  /** Unix milliseconds. */
  nowMs(): number;
}

export const systemClock: Clock = { nowMs: () => Date.now() };

export function nowSeconds(clock: Clock): number {
  return Math.floor(clock.nowMs() / 1000);
}

/**
 * Parses a duration such as `30d`, `12h`, `45m`, `90s` into seconds. Returns undefined when malformed.
 */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d{1,9})([smhdw])$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { s: 1, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  const value = Number(m[1]) * unit;
  return value > 0 ? value : undefined;
}
