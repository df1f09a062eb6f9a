/**
 * The reference prices an order-book venue's simulation is driven by: the sandbox world's hourly closes
 * (`WorldView.hours()`, docs/standins.md), or, where no world is open (a stand-in started on its own in a test), a
 * seeded path that is a pure function of (seed, symbol, hour). Either way a price is read per closed hour only, so
 * a venue can answer any page without keeping history.
 */

import type { Clock } from '../../../core/time.js';
import { HOUR } from '../../../core/time.js';
import type { WorldView } from '../../world/view.js';
import { streamRng } from '../base/generate.js';

export interface ReferencePrices {
  /** USD price of `symbol` at the close of the hour starting at `hour` (Unix seconds); undefined when not closed. */
  close(symbol: string, hour: number): number | undefined;
  /** The start of the last closed hour (Unix seconds), undefined when none is. */
  lastHour(): number | undefined;
  /** The start of the first hour still known (Unix seconds), undefined when none is. */
  firstHour(): number | undefined;
  /** A fixed price of `symbol` that does not move with time (the world's initial price): the anchor of sizes. */
  initial(symbol: string): number | undefined;
}

/** The world's reference prices: each closed hour's close, as the world recorded it. */
export function worldReferencePrices(view: Pick<WorldView, 'hours' | 'hour' | 'manifests'>): ReferencePrices {
  const initial = new Map<string, number>();
  for (const t of view.manifests.get('ethereum')?.tokens ?? []) initial.set(t.symbol, t.initialPriceUsd);
  return {
    close: (symbol, hour) => view.hour(hour)?.prices[symbol],
    lastHour: () => view.hours().at(-1)?.hour,
    firstHour: () => view.hours()[0]?.hour,
    initial: (symbol) => initial.get(symbol),
  };
}

/** A smooth standard-normal-ish path: draws at knots every `knotHours`, cosine-interpolated (pure per instant). */
export function smoothNoise(seed: number, key: string, hour: number, knotHours: number): number {
  const x = hour / (knotHours * HOUR);
  const k = Math.floor(x);
  const f = x - k;
  const a = streamRng(seed, 'perps-noise', key, k).normal();
  const b = streamRng(seed, 'perps-noise', key, k + 1).normal();
  const w = (1 - Math.cos(Math.PI * f)) / 2;
  return a * (1 - w) + b * w;
}

/**
 * Prices without a world: each symbol from its anchor, a slow wander (knots every 2 days) and an hourly wiggle, the
 * hours closed up to the clock's last full hour since `firstHour`.
 */
export function syntheticReferencePrices(
  seed: number,
  clock: Clock,
  firstHour: number,
  anchors: Readonly<Record<string, number>>,
): ReferencePrices {
  const lastHour = () => {
    const last = Math.floor(clock.nowMs() / 1000 / HOUR) * HOUR - HOUR;
    return last >= firstHour ? last : undefined;
  };
  return {
    close(symbol, hour) {
      const anchor = anchors[symbol];
      const last = lastHour();
      if (anchor === undefined || last === undefined || hour < firstHour || hour > last || hour % HOUR !== 0) {
        return undefined;
      }
      return anchor * Math.exp(0.15 * smoothNoise(seed, symbol, hour, 48) + 0.03 * smoothNoise(seed, symbol, hour, 3));
    },
    lastHour,
    firstHour: () => (lastHour() === undefined ? undefined : firstHour),
    initial: (symbol) => anchors[symbol],
  };
}
