/**
 * The DEX's actors in each block, in their order: the arbitrageur first (it trades every pool, dormant ones
 * included, back to the reference price), then the liquidators' sales, then the traders' swaps and the LPs' events,
 * drawn per pool and shuffled, and the arbitrageur last again (the closing arbitrage: it back-runs what the block's
 * trades did to each pool). Their draws come from the agents' stream (`agents`); the liquid staking token's pools draw from their
 * own (`liquid-staking-pools`), after the other pools, so that adding them changed nothing the others draw.
 */
import type { Agent } from '../../chain/agent.js';
import type { WorldManifest } from '../../world/manifest.js';
import { Rng } from '../../world/random.js';
import type { TokenView } from '../../world/tokens.js';
import { arbitrage } from './arbitrage.js';
import { Dex, type DexHost, estimateOf, type PoolReading, type PoolView, readingOf } from './dex.js';
import { provideLiquidity } from './liquidity.js';
import { CHARACTERS } from './plan.js';
import { queueSale, sellSeized } from './sales.js';
import { awakeShare, type DexAction, diurnalFactor, drawSwaps, randomSwap } from './traders.js';

/** Deadlines one hour after the block: always satisfied, as a wallet's default would be. */
const DEADLINE_SECONDS = 3600;

export class DexActors {
  readonly dex: Dex;
  /** The agents' stream; `lstRng` is the liquid staking pools' own. */
  private readonly rng: Rng;
  private readonly lstRng: Rng;
  private readonly arbitrageur: Agent;
  private readonly lps: Agent[];

  constructor(manifest: WorldManifest, tokens: readonly TokenView[], host: DexHost) {
    const s = host.state;
    this.rng = new Rng(s.rngAgents);
    this.lstRng = new Rng(s.rngLiquidStakingPools ?? s.rngAgents);
    const arbitrageur = host.agents.find((a) => a.role === 'arbitrageur');
    if (!arbitrageur) throw new Error('sandbox state: no arbitrageur');
    this.arbitrageur = arbitrageur;
    this.lps = host.agents.filter((a) => a.role === 'lp');
    this.dex = new Dex(manifest, tokens, host);
  }

  /** Writes the generators' states back into the scenario's state. */
  save(): void {
    const s = this.dex.host.state;
    s.rngAgents = this.rng.state();
    if (s.rngLiquidStakingPools) s.rngLiquidStakingPools = this.lstRng.state();
  }

  /** Starts the block that ends at `to`. */
  begin(to: number): void {
    this.dex.deadline = BigInt(to + DEADLINE_SECONDS);
  }

  /** The share of [from, to) each pool is awake (dormant pools sleep most of the time; the others are always awake). */
  awake(from: number, to: number): number[] {
    return this.dex.pools.map((p) =>
      p.m.character === 'dormant' ? awakeShare(this.dex.manifest.genesisTimestamp, from, to) : 1,
    );
  }

  /** The pools awake at all in the step (`awake` as `awake` returns it). */
  livePools(awake: readonly number[]): PoolView[] {
    return this.dex.pools.filter((_, i) => awake[i]! > 0);
  }

  read(live: readonly PoolView[]): Promise<PoolReading[]> {
    return this.dex.readPools(live);
  }

  /**
   * The arbitrageur's trades, first in the block, in every pool (`pools` with their `readings`): what they leave is
   * what traders quote from, and where the block's estimates of the pools start.
   */
  arbitrage(pools: readonly PoolView[], readings: readonly PoolReading[]): void {
    this.dex.quotes.clear();
    this.dex.estimates.clear();
    pools.forEach((pool, i) => {
      this.dex.estimates.set(pool.id, estimateOf(readings[i]!));
      this.dex.quotes.set(pool.id, arbitrage(this.dex, this.arbitrageur, pool, readings[i]!));
    });
  }

  /**
   * The closing arbitrage, last in the block: every pool traded back to the reference price from the state the
   * block's queued swaps leave (estimated), so that pools end each block near the market as searchers keep them.
   */
  closeArbitrage(pools: readonly PoolView[]): void {
    for (const pool of pools) {
      const estimate = this.dex.estimates.get(pool.id);
      if (estimate) arbitrage(this.dex, this.arbitrageur, pool, readingOf(estimate), { closing: true });
    }
  }

  /** The liquidators' sales of what they seized in earlier blocks (no random draws: nothing else changes). */
  sellSeized(live: readonly PoolView[]): void {
    sellSeized(this.dex, live);
  }

  /** A liquidation paid `liquidator` this much collateral: it sells it back into the debt asset it repaid. */
  queueSale(liquidator: Agent, collateral: string, debt: string, amount: bigint): void {
    queueSale(this.dex.host.state, liquidator, collateral, debt, amount);
  }

  /**
   * The traders' swaps and the LPs' events over [from, to): the other pools first, then the liquid staking
   * token's pools with their own stream (so that adding them changed nothing the others draw).
   */
  trade(from: number, to: number, awake: readonly number[]): void {
    const dt = to - from;
    const hour = ((((from + dt / 2) % 86400) + 86400) % 86400) / 3600;
    const diurnal = diurnalFactor(hour);
    for (const lst of [false, true]) {
      const rng = lst ? this.lstRng : this.rng;
      const actions: DexAction[] = [];
      this.dex.pools.forEach((pool, i) => {
        if (awake[i]! <= 0 || pool.lst !== lst) return;
        drawSwaps(this.dex, rng, pool, from, to, awake[i]!, diurnal, hour, actions);
        const lpEvents = rng.poisson((CHARACTERS[pool.m.character].lpEventsPerHour * awake[i]! * dt) / 3600);
        for (let k = 0; k < lpEvents; k++) actions.push({ type: 'lp', pool, agent: rng.pick(this.lps) });
      });
      for (const action of rng.shuffle(actions)) {
        if (action.type === 'swap') randomSwap(this.dex, action.pool, action.agent, action.usd, action.zeroForOne);
        else provideLiquidity(this.dex, rng, action.pool, action.agent);
      }
    }
  }
}
