/**
 * The reference ("true") USD prices the scenario moves every step, which the arbitrageur trades the pools towards
 * and the feeds report: geometric Brownian motion with a common market factor for volatile tokens, a
 * mean-reverting peg for stablecoins (stream `prices`, independent of everything else), and the scheduled market
 * events on top.
 */
import { PROTOCOLS } from '../protocols/index.js';
import { crashFactor, type TokenPlan } from './plan.js';
import { pow } from './pow.js';
import type { Rng } from './random.js';

const SECONDS_PER_YEAR = 365 * 86400;

/**
 * Moves the reference prices over `dt` seconds. Volatile tokens: GBM without drift whose shock is
 * ρ·(market shock) + √(1−ρ²)·(own shock). Stablecoins: exact OU step of the log price toward the peg.
 * Draws exactly 1 + (number of tokens) normals, so the path depends only on the seed and the step grid.
 */
export function advancePrices(
  prices: Record<string, number>,
  tokens: readonly { symbol: string; volatility: number; plan?: TokenPlan | undefined }[],
  dt: number,
  rng: Rng,
): Record<string, number> {
  const years = dt / SECONDS_PER_YEAR;
  const market = rng.normal();
  const next: Record<string, number> = {};
  for (const t of tokens) {
    const previous = prices[t.symbol] ?? 1;
    // A liquid staking token has no walk of its own (see `applyMarketEvents`), and draws nothing.
    if (t.plan?.liquidStaking) {
      next[t.symbol] = previous;
      continue;
    }
    const own = rng.normal();
    const stable = t.plan?.stable;
    if (stable) {
      const theta = Math.LN2 / (stable.halfLifeHours / (365 * 24));
      const decay = Math.exp(-theta * years);
      const sd = stable.deviation * Math.sqrt(1 - decay * decay);
      next[t.symbol] = Math.exp(Math.log(previous) * decay + sd * own);
      continue;
    }
    const rho = t.plan?.marketCorrelation ?? 0.5;
    const z = rho * market + Math.sqrt(1 - rho * rho) * own;
    next[t.symbol] = previous * Math.exp(-0.5 * pow(t.volatility, 2) * years + t.volatility * Math.sqrt(years) * z);
  }
  return next;
}

/**
 * The scheduled events over (from, to] on top of the walk (`MARKET_EVENTS`): the ETH crash multiplies each volatile
 * token's price by the change of its crash factor, and each liquid staking token is priced from its underlying,
 * its exchange rate and the depeg discount at `to`. Deterministic: no draw.
 */
export function applyMarketEvents(
  prices: Record<string, number>,
  tokens: readonly { symbol: string; plan?: TokenPlan | undefined }[],
  genesis: number,
  from: number,
  to: number,
): Record<string, number> {
  const next = { ...prices };
  const h0 = (from - genesis) / 3600;
  const h1 = (to - genesis) / 3600;
  for (const t of tokens) {
    if (!t.plan || t.plan.stable || t.plan.liquidStaking) continue;
    const rho = t.plan.marketCorrelation;
    next[t.symbol] = next[t.symbol]! * (crashFactor(h1, rho) / crashFactor(h0, rho));
  }
  // A token a protocol issues (the liquid staking token) is priced by that protocol from the others' prices.
  for (const t of tokens) {
    if (!t.plan) continue;
    for (const p of PROTOCOLS) {
      const price = p.referencePriceUsd?.(t.plan, next, genesis, to);
      if (price !== undefined) next[t.symbol] = price;
    }
  }
  return next;
}
