/**
 * The DEX's cast (moved from the world's cast.ts, issue 25): the arbitrageur (key 0), one bot per single-trader
 * pool, the traders with their habits, the LPs, and each pool's clientele. The world's deployer is agent 0 before
 * them; the other protocols' casts come after.
 */
import { newAgentState } from '../../chain/agent.js';
import { isLiquidStakingPool } from '../../world/plan.js';
import { Rng } from '../../world/random.js';
import type { PoolRuntimeState } from '../../world/state.js';
import type { CastBuild } from '../protocol.js';
import { BURSTS, CHARACTERS, SINGLE_TRADER } from './plan.js';

/** Trader population at scale 1, and its floor, so a small test world still has crowds and regulars. */
const TRADERS_AT_SCALE_1 = 100;
const MIN_TRADERS = 12;
/** LP agents at scale 1 and the floor. */
const LPS_AT_SCALE_1 = 6;
const MIN_LPS = 2;

/**
 * Trader size habits: log-normal across traders, median $1,500 with a log-sd of 1.3, so 90 % of traders sit
 * between ~$180 and ~$13k and a few whales trade hundreds of thousands.
 */
const TRADER_MEDIAN_USD = 1500;
const TRADER_SIZE_SIGMA = 1.3;
/** Activity habit: log-normal with log-sd 0.8 (the most active traders trade ~10x more often than the median one). */
const TRADER_ACTIVITY_SIGMA = 0.8;
/** Daily active window: 6 to 18 hours starting at a uniformly random UTC hour. */
const ACTIVE_HOURS_MIN = 6;
const ACTIVE_HOURS_SPAN = 13;

/**
 * Agents after the deployer: the arbitrageur, then one bot per single-trader pool, the traders, the LPs. Each pool
 * gets its clientele from the traders by its character (`depthUsd`: each pool's seeded depth, by lowercase address).
 */
export function castDex(build: CastBuild, depthUsd: ReadonlyMap<string, number>): void {
  const { seed, scale, manifest, agents } = build;
  const rng = Rng.fromSeed(seed, 'agents');
  const coreRng = rng;
  agents.push(newAgentState(seed, build.nextKey(), 'arbitrageur'));
  const botOf = new Map<string, number>();
  for (const pool of manifest.pools) {
    if (pool.character !== 'single-trader') continue;
    botOf.set(pool.address.toLowerCase(), agents.length);
    agents.push(
      newAgentState(seed, build.nextKey(), 'bot', {
        medianTradeUsd: SINGLE_TRADER.medianTradeUsd,
        activity: 1,
        activeFromHour: 0,
        activeHours: 24,
      }),
    );
  }
  const traders: number[] = [];
  const traderCount = Math.max(MIN_TRADERS, Math.round(TRADERS_AT_SCALE_1 * scale));
  for (let i = 0; i < traderCount; i++) {
    traders.push(agents.length);
    agents.push(
      newAgentState(seed, build.nextKey(), 'trader', {
        medianTradeUsd: rng.logNormal(TRADER_MEDIAN_USD, TRADER_SIZE_SIGMA),
        activity: rng.logNormal(1, TRADER_ACTIVITY_SIGMA),
        activeFromHour: rng.int(24),
        activeHours: ACTIVE_HOURS_MIN + rng.int(ACTIVE_HOURS_SPAN),
      }),
    );
  }
  const lpCount = Math.max(MIN_LPS, Math.round(LPS_AT_SCALE_1 * scale));
  for (let i = 0; i < lpCount; i++) agents.push(newAgentState(seed, build.nextKey(), 'lp'));

  // Pools of the liquid staking token draw from their own stream (see `ScenarioState.rngLiquidStakingPools`).
  const lstRng = Rng.fromSeed(seed, 'liquid-staking-pools');
  const pools: PoolRuntimeState[] = manifest.pools.map((pool) => {
    const rng = isLiquidStakingPool(manifest, pool) ? lstRng : coreRng;
    const address = pool.address.toLowerCase();
    const profile = CHARACTERS[pool.character];
    const size = Math.min(
      traders.length,
      Math.max(profile.minClientele, Math.round(profile.clienteleShare * traderCount)),
    );
    const runtime: PoolRuntimeState = {
      address,
      character: pool.character,
      depthUsd: depthUsd.get(address) ?? 1e6,
      clientele: rng.sample(traders, size).sort((a, b) => a - b),
    };
    const bot = botOf.get(address);
    if (bot !== undefined) return { ...runtime, bot };
    if (pool.character === 'bursty') {
      const start = build.startTimestamp + Math.round(rng.uniform(...BURSTS.firstWithinHours) * 3600);
      const end = start + Math.round(rng.uniform(BURSTS.minHours, BURSTS.maxHours) * 3600);
      return { ...runtime, burstStart: start, burstEnd: end };
    }
    return runtime;
  });
  Object.assign(build.state, {
    rngAgents: rng.state(),
    rngLiquidStakingPools: lstRng.state(),
    pools,
    v3Positions: [],
    v2Shares: [],
  });
}
