/**
 * The cast of the world and the scenario's starting point: the deployer (agent 0), then each protocol's agents and
 * its section of the state, in the list's order (the DEX's traders, LPs and arbitrageur; the lenders; the stablecoins'
 * owners and keepers). Agents' keys follow one counter, so the same list and seed give the same addresses.
 */
import { type AgentState, newAgentState } from '../chain/agent.js';
import { type CastBuild, type GenesisBuild, PROTOCOLS, Provided, type SandboxProtocol } from '../protocols/index.js';
import type { WorldManifest } from './manifest.js';
import { seedState } from './random.js';
import type { ScenarioState } from './state.js';

/**
 * The cast and the scenario's starting point of a world deployed as `manifest` (`genesis`: what the protocols
 * provided while deploying it; absent, protocols use their defaults). Returns the state and the agents outside
 * `state.agents` that need native ETH like the others (a protocol's own cast).
 */
export async function createInitialState(
  manifest: WorldManifest,
  opts: {
    seed: number;
    startTimestamp: number;
    scale: number;
    genesis?: GenesisBuild | Provided;
    protocols?: readonly SandboxProtocol[];
  },
): Promise<{ state: ScenarioState; funded: AgentState[] }> {
  const { seed, scale } = opts;
  const agents: AgentState[] = [newAgentState(seed, -1, 'deployer')];
  const prices: Record<string, number> = {};
  for (const t of manifest.tokens) prices[t.symbol] = t.initialPriceUsd;
  const state = {
    format: 1,
    seed,
    scale,
    lastTimestamp: opts.startTimestamp,
    prices,
    step: 0,
    rngPrices: seedState(seed, 'prices'),
    agents,
    stats: { blocks: 1, transactions: 0, swaps: 0, liquidityChanges: 0, revertedTolerated: 0, revertedUnexpected: 0 },
    // The DEX's sections until its cast writes them (a world without a DEX keeps them empty).
    rngAgents: seedState(seed, 'agents'),
    pools: [],
    v3Positions: [],
    v2Shares: [],
  } satisfies ScenarioState as ScenarioState;
  const funded: AgentState[] = [];
  let key = 0;
  const build: CastBuild = Object.assign(new Provided(), {
    manifest,
    seed,
    scale,
    startTimestamp: opts.startTimestamp,
    agents,
    nextKey: () => key++,
    fund: (agent: AgentState) => {
      funded.push(agent);
    },
    state,
    genesis: (opts.genesis ?? new Provided()) as GenesisBuild,
  });
  const protocols = opts.protocols ?? PROTOCOLS.filter((p) => p.chain === (manifest.chain ?? 'ethereum'));
  for (const p of protocols) await p.cast?.(build);
  return { state, funded };
}
