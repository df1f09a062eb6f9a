/**
 * The cast of the world and the scenario's starting point: the agents (the deployer, the arbitrageur, one bot per
 * single-trader pool, the traders with their habits, the LPs, the lending cast), each pool's clientele, and the
 * lending positions the protocols draw for their borrowers.
 */
import { type AgentState, newAgentState } from '../chain/agent.js';
import { initialAaveState } from '../protocols/aave/positions.js';
import { lendingCastCounts } from '../protocols/lending/positions.js';
import { castLiquity } from '../protocols/liquity/actors.js';
import { initialMorphoState, morphoBorrowerCount, morphoBorrowerIndices } from '../protocols/morpho/positions.js';
import { BURSTS, CHARACTERS, SINGLE_TRADER } from '../protocols/uniswap/plan.js';
import type { WorldManifest } from './manifest.js';
import { isLiquidStakingPool } from './plan.js';
import { Rng, seedState } from './random.js';
import type { PoolRuntimeState, ScenarioState } from './state.js';

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
 * The cast and the scenario's starting point. Agents: 0 the deployer, 1 the arbitrageur, then one bot per
 * single-trader pool, the traders, the LPs. Each pool gets its clientele from the traders by its character.
 */
export function createInitialState(
  manifest: WorldManifest,
  opts: { seed: number; startTimestamp: number; scale: number; depthUsd: ReadonlyMap<string, number> },
): ScenarioState {
  const { seed, scale } = opts;
  const rng = Rng.fromSeed(seed, 'agents');
  const coreRng = rng;
  const agents: AgentState[] = [newAgentState(seed, -1, 'deployer'), newAgentState(seed, 0, 'arbitrageur')];
  let key = 1;
  const botOf = new Map<string, number>();
  for (const pool of manifest.pools) {
    if (pool.character !== 'single-trader') continue;
    botOf.set(pool.address.toLowerCase(), agents.length);
    agents.push(
      newAgentState(seed, key++, 'bot', {
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
      newAgentState(seed, key++, 'trader', {
        medianTradeUsd: rng.logNormal(TRADER_MEDIAN_USD, TRADER_SIZE_SIGMA),
        activity: rng.logNormal(1, TRADER_ACTIVITY_SIGMA),
        activeFromHour: rng.int(24),
        activeHours: ACTIVE_HOURS_MIN + rng.int(ACTIVE_HOURS_SPAN),
      }),
    );
  }
  const lpCount = Math.max(MIN_LPS, Math.round(LPS_AT_SCALE_1 * scale));
  for (let i = 0; i < lpCount; i++) agents.push(newAgentState(seed, key++, 'lp'));
  // The lending cast comes last (protocols/aave draws their positions from its own stream).
  const markets = manifest.lending?.aave.length ?? 0;
  if (markets > 0) {
    const cast = lendingCastCounts(scale, markets);
    for (let i = 0; i < cast.suppliers; i++) agents.push(newAgentState(seed, key++, 'supplier'));
    for (let i = 0; i < cast.borrowers; i++) agents.push(newAgentState(seed, key++, 'borrower'));
    for (let i = 0; i < cast.loopers; i++) agents.push(newAgentState(seed, key++, 'looper'));
    for (let i = 0; i < cast.liquidators; i++) agents.push(newAgentState(seed, key++, 'liquidator'));
  }
  // Morpho's borrowers after everyone else (protocols/morpho draws their positions from its own stream).
  const morpho = manifest.lending?.morpho[0];
  const morphoBorrowers = morpho && markets > 0 ? morphoBorrowerCount(scale, morpho.markets.length) : 0;
  for (let i = 0; i < morphoBorrowers; i++) agents.push(newAgentState(seed, key++, 'borrower'));
  const lending =
    markets > 0 ? initialAaveState(manifest, seed, agents.slice(0, agents.length - morphoBorrowers)) : undefined;
  if (lending && morpho && morphoBorrowers > 0) {
    lending.morpho = initialMorphoState(morpho, seed, morphoBorrowerIndices(agents, morphoBorrowers));
  }
  // Liquity's cast after everyone else, from its own stream (protocols/liquity).
  const liquity = manifest.liquity ? castLiquity(seed, scale, key, agents.length) : undefined;
  if (liquity) agents.push(...liquity.agents);

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
      depthUsd: opts.depthUsd.get(address) ?? 1e6,
      clientele: rng.sample(traders, size).sort((a, b) => a - b),
    };
    const bot = botOf.get(address);
    if (bot !== undefined) return { ...runtime, bot };
    if (pool.character === 'bursty') {
      const start = opts.startTimestamp + Math.round(rng.uniform(...BURSTS.firstWithinHours) * 3600);
      const end = start + Math.round(rng.uniform(BURSTS.minHours, BURSTS.maxHours) * 3600);
      return { ...runtime, burstStart: start, burstEnd: end };
    }
    return runtime;
  });

  const prices: Record<string, number> = {};
  for (const t of manifest.tokens) prices[t.symbol] = t.initialPriceUsd;
  return {
    format: 1,
    seed,
    scale,
    lastTimestamp: opts.startTimestamp,
    prices,
    step: 0,
    rngPrices: seedState(seed, 'prices'),
    rngAgents: rng.state(),
    rngLiquidStakingPools: lstRng.state(),
    agents,
    pools,
    v3Positions: [],
    v2Shares: [],
    ...(lending ? { lending } : {}),
    ...(liquity ? { liquity: liquity.state } : {}),
    stats: {
      blocks: 1,
      transactions: 0,
      swaps: 0,
      liquidityChanges: 0,
      revertedTolerated: 0,
      revertedUnexpected: 0,
    },
  };
}
