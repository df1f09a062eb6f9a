import { describe, expect, it } from 'vitest';
import { HOUR } from '../../core/time.js';
import type { SimulationState } from './manifest.js';
import { HOURS_KEPT, HourlyHistory } from './view.js';

const GENESIS = 1_795_000_000 - (1_795_000_000 % HOUR);
const closing = (k: number, swaps: number) =>
  ({
    lastTimestamp: GENESIS + k * HOUR,
    prices: { WETH: 3000 + k },
    stats: { swaps, liquidityChanges: 0, transactions: swaps },
  }) as unknown as SimulationState;

describe('HourlyHistory bound (issue 31 item 2)', () => {
  it('keeps the last HOURS_KEPT closed hours as the world runs on, and through a save and reload', () => {
    const history = new HourlyHistory();
    history.start(closing(0, 0));
    const total = HOURS_KEPT + 50;
    for (let k = 1; k <= total; k++) history.record(closing(k, k * 3));
    const hours = history.hours();
    expect(hours).toHaveLength(HOURS_KEPT);
    expect(hours[0]!.hour).toBe(GENESIS + (total - HOURS_KEPT) * HOUR);
    expect(hours.at(-1)!.hour).toBe(GENESIS + (total - 1) * HOUR);
    expect(history.hour(GENESIS)).toBeUndefined();
    // Activity is still each hour's own, after the oldest went.
    expect(hours.every((h) => h.dex.swaps === 3)).toBe(true);

    // A history.json written before the bound (more hours than kept) is trimmed on load.
    const saved = JSON.parse(JSON.stringify(history.toJSON())) as ReturnType<HourlyHistory['toJSON']>;
    const older = Array.from({ length: 30 }, (_, i) => ({ ...saved.hours[0]!, hour: GENESIS + i * HOUR }));
    const reloaded = new HourlyHistory({ ...saved, hours: [...older, ...saved.hours] });
    expect(reloaded.hours()).toEqual(hours);
  });

  it('keeps every hour of a world younger than the bound', () => {
    const history = new HourlyHistory();
    history.start(closing(0, 0));
    for (let k = 1; k <= 200; k++) history.record(closing(k, k));
    expect(history.hours()).toHaveLength(200);
    expect(new HourlyHistory(JSON.parse(JSON.stringify(history))).hours()).toHaveLength(200);
  });
});
