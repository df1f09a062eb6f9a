/**
 * The traders: each pool draws its step's swaps from its character (rate, clientele, sizes, bursts, dormancy) and
 * the traders' habits (size, activity, hours of day); each swap carries the slippage protection a wallet sets.
 */
import type { Agent } from '../../chain/agent.js';
import { toRawAmount } from '../../chain/amm.js';
import type { Rng } from '../../world/random.js';
import type { Dex, PoolView } from './dex.js';
import { BURSTS, CHARACTERS, DORMANCY, SINGLE_TRADER } from './plan.js';

/** Diurnal activity: ±40 % around the mean, peaking at 15:00 UTC when the European and American sessions overlap. */
const DIURNAL_AMPLITUDE = 0.4;
const DIURNAL_PEAK_HOUR = 15;

/** Weight of a trader outside their daily active window, relative to inside (people sleep; bots are 24 h). */
const OFF_HOURS_WEIGHT = 0.05;

/** Spread of one trader's trade sizes around their own median (log-sd): the same person trades 0.3x–3x. */
const TRADE_SIZE_SIGMA = 0.6;
/** Trades below a dollar are dust nobody sends. */
const MIN_TRADE_USD = 1;

/** A floor for burst intensity in small worlds: a burst must stand out from a near-silent pool. */
const MIN_BURST_SWAPS_PER_HOUR = 15;

/** What the block's draws queue for a pool, before the shuffle: a trader's swap or an LP's event. */
export type DexAction =
  | {
      readonly type: 'swap';
      readonly pool: PoolView;
      readonly agent: Agent;
      readonly usd: number;
      readonly zeroForOne: boolean;
    }
  | { readonly type: 'lp'; readonly pool: PoolView; readonly agent: Agent };

/** 1 + A·cos(2π(h − peak)/24): the activity multiplier at fractional UTC hour `h`. */
export function diurnalFactor(hourOfDay: number): number {
  return 1 + DIURNAL_AMPLITUDE * Math.cos((2 * Math.PI * (hourOfDay - DIURNAL_PEAK_HOUR)) / 24);
}

/** Length of the overlap of [a, b) and [c, d). */
function overlap(a: number, b: number, c: number, d: number): number {
  return Math.max(0, Math.min(b, d) - Math.max(a, c));
}

/** The share of [from, to) during which a dormant pool is awake (the first hours of every period after genesis). */
export function awakeShare(genesis: number, from: number, to: number): number {
  const period = DORMANCY.periodDays * 86400;
  const awake = DORMANCY.awakeHours * 3600;
  let covered = 0;
  for (let k = Math.floor((from - genesis) / period); genesis + k * period < to; k++) {
    const start = genesis + k * period;
    covered += overlap(from, to, start, start + awake);
  }
  return to > from ? covered / (to - from) : 0;
}

/** Swaps per hour for the pool over [from, to), before the diurnal curve. */
function swapRate(dex: Dex, rng: Rng, pool: PoolView, from: number, to: number, awake: number): number {
  const profile = CHARACTERS[pool.m.character];
  const base = profile.scaled
    ? Math.max(profile.swapsPerHour * dex.host.scale, profile.minSwapsPerHour)
    : profile.swapsPerHour;
  if (pool.m.character !== 'bursty') return base * awake;
  const r = pool.runtime;
  // Schedule bursts until one ends after this step starts.
  while (r.burstStart !== undefined && r.burstEnd !== undefined && r.burstEnd <= from) {
    r.burstStart = r.burstEnd + Math.round(rng.exponential(BURSTS.meanGapHours) * 3600);
    r.burstEnd = r.burstStart + Math.round(rng.uniform(BURSTS.minHours, BURSTS.maxHours) * 3600);
  }
  const inBurst =
    r.burstStart !== undefined && r.burstEnd !== undefined
      ? overlap(from, to, r.burstStart, r.burstEnd) / (to - from)
      : 0;
  const burstRate = Math.max(BURSTS.swapsPerHour * dex.host.scale, MIN_BURST_SWAPS_PER_HOUR);
  return (1 - inBurst) * base + inBurst * burstRate;
}

/** Draws the pool's swaps over [from, to) into `out` (from the current stream `rng`). */
export function drawSwaps(
  dex: Dex,
  rng: Rng,
  pool: PoolView,
  from: number,
  to: number,
  awake: number,
  diurnal: number,
  hour: number,
  out: DexAction[],
): void {
  const count = rng.poisson((swapRate(dex, rng, pool, from, to, awake) * diurnal * (to - from)) / 3600);
  if (count === 0) return;
  const profile = CHARACTERS[pool.m.character];
  const clientele = pool.runtime.clientele.map((i) => dex.host.agents[i]!);
  const weights = clientele.map((a) => a.state.activity * hourWeight(a, hour));
  const maxUsd = profile.maxTradeShare * pool.runtime.depthUsd;
  for (let k = 0; k < count; k++) {
    let agent: Agent;
    let usd: number;
    const bot = pool.runtime.bot;
    if (bot !== undefined && !(clientele.length > 0 && rng.chance(SINGLE_TRADER.otherTraderShare))) {
      agent = dex.host.agents[bot]!;
      usd = rng.logNormal(agent.state.medianTradeUsd, TRADE_SIZE_SIGMA) * profile.sizeFactor;
    } else {
      agent = clientele[rng.weightedIndex(weights)]!;
      usd = rng.logNormal(agent.state.medianTradeUsd, TRADE_SIZE_SIGMA) * profile.sizeFactor;
      if (bot !== undefined) usd = Math.min(usd, SINGLE_TRADER.otherTraderMaxUsd);
    }
    usd = Math.max(MIN_TRADE_USD, Math.min(usd, maxUsd));
    out.push({ type: 'swap', pool, agent, usd, zeroForOne: rng.chance(0.5) });
  }
}

function hourWeight(agent: Agent, hour: number): number {
  const { activeFromHour, activeHours } = agent.state;
  const sinceStart = (Math.floor(hour) - activeFromHour + 24) % 24;
  return sinceStart < activeHours ? 1 : OFF_HOURS_WEIGHT;
}

/**
 * A trader's swap of `usd` worth, with slippage protection as a wallet sets it: quoted from the pool's state at
 * the start of the block (V2 with its exact price impact), less the character's tolerance for what the other
 * transactions of the block do to the price.
 */
export function randomSwap(dex: Dex, pool: PoolView, agent: Agent, usd: number, zeroForOne: boolean): void {
  const tokenIn = zeroForOne ? pool.t0 : pool.t1;
  const amountIn = dex.rawFromUsd(tokenIn, usd);
  if (amountIn === 0n) return;
  const minOut = toRawAmount(
    dex.quoteOut(pool, zeroForOne, amountIn) * (1 - CHARACTERS[pool.m.character].slippageTolerance),
  );
  dex.swap(agent, pool, zeroForOne, amountIn, minOut, 'swap');
}
