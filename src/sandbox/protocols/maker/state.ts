/** The Maker actors' state between steps (saved with the world), and the state a new world starts from. */
import { type AgentState, newAgentState } from '../../chain/agent.js';
import { seedState } from '../../world/random.js';
import type { MakerSpell } from './deploy.js';

const HOUR = 3600;
/** Vault owners at scale 1 (√scale more in bigger worlds, at least `MIN_OWNERS`). */
const OWNERS_AT_SCALE_1 = 16;
const MIN_OWNERS = 8;

/** One vault: its owner (index into `agents`), type, and target ratio over the type's minimum. */
export interface MakerVaultState {
  readonly owner: number;
  readonly ilk: string;
  /** Collateral ratio the owner draws to, as a multiple of the type's minimum (`mat`). */
  readonly target: number;
  /** Tops up when the ratio falls well below the target (the others let the Dog find them). */
  readonly watchful: boolean;
  open: boolean;
}

/** The Maker actors between steps (saved with the world). */
export interface MakerRuntimeState {
  rng: [number, number, number, number];
  /** Index 0: the keeper; then the vault owners. */
  agents: AgentState[];
  vaults: MakerVaultState[];
  /** The hour (since the epoch) of the last pokes, and the last drips. */
  lastPokeHour: number;
  lastDrip: number;
  lastPotDrip: number;
  /** The keeper has its vault and has hoped the clippers. */
  keeperReady: boolean;
  /** Governance plotted at genesis and not executed yet (`DSPause.exec` at the first step at or after its eta). */
  spells: MakerSpell[];
  /** Token symbol → the price (WAD, decimal string) its pip was last poked with. */
  pokedPrices: Record<string, string>;
  stats: {
    opened: number;
    barks: number;
    takes: number;
    redos: number;
    repaid: number;
    pokes: number;
    /** DAI top-ups of other actors' agents, drawn from their own vaults (absent before issue 26's one DAI). */
    topUps?: number;
  };
  /** The DAI/USDC pair's market maker (absent in worlds saved before the pair: no pair then). */
  pairMaker?: {
    agent: AgentState;
    seeded: boolean;
    /** The pair's own random stream (its flows), so that the pair leaves the owners' draws as they were. */
    rng: [number, number, number, number];
    stats: { swaps: number; pegSells: number; pegBuys: number };
  };
}

/** Key offset of the Maker agents in the world's key derivation (far above the cast's keys). */
const KEY_OFFSET = 1_000_000;
/** The market maker's key, after the owners' (fewer than a thousand at any scale). */
const PAIR_MAKER_KEY = KEY_OFFSET + 100_000;

export function initialMakerState(seed: number, scale: number, genesis: number): MakerRuntimeState {
  const owners = Math.max(MIN_OWNERS, Math.round(OWNERS_AT_SCALE_1 * Math.sqrt(scale)));
  const agents = [newAgentState(seed, KEY_OFFSET, 'liquidator')];
  for (let i = 1; i <= owners; i++) agents.push(newAgentState(seed, KEY_OFFSET + i, 'borrower'));
  return {
    rng: seedState(seed, 'maker'),
    agents,
    vaults: [],
    lastPokeHour: Math.floor(genesis / HOUR),
    lastDrip: genesis,
    lastPotDrip: genesis,
    keeperReady: false,
    spells: [],
    pokedPrices: {},
    stats: { opened: 0, barks: 0, takes: 0, redos: 0, repaid: 0, pokes: 0 },
    pairMaker: {
      agent: newAgentState(seed, PAIR_MAKER_KEY, 'arbitrageur'),
      seeded: false,
      rng: seedState(seed, 'maker-pair'),
      stats: { swaps: 0, pegSells: 0, pegBuys: 0 },
    },
  };
}
