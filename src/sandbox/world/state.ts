/**
 * The state the scenario carries between calls (what `SimulationState`'s open part holds), saved to disk by
 * `world.ts` as JSON: the agents, the pools' runtime state, the LPs' positions, the feeds' reporter, the lending
 * actors. Types only.
 */
import type { AgentState } from '../chain/agent.js';
import type { MakerRuntimeState, RollupRuntimeState, TokenomicsRuntimeState } from '../protocols/index.js';
import type { PoolCharacter, SimulationState } from './manifest.js';

export interface PoolRuntimeState {
  /** Lowercase pool address. */
  readonly address: string;
  readonly character: PoolCharacter;
  readonly depthUsd: number;
  /** Indices into `agents` of the traders who trade this pool. */
  readonly clientele: number[];
  /** Single-trader pools: index of the bot. */
  readonly bot?: number;
  /** Bursty pools: unix seconds. */
  burstStart?: number;
  burstEnd?: number;
}

export interface V3PositionState {
  readonly tokenId: string;
  readonly pool: string;
  /** Index into `agents`. */
  readonly owner: number;
  liquidity: string;
}

export interface V2ShareState {
  readonly pool: string;
  readonly owner: number;
  liquidity: string;
}

export interface ScenarioStats {
  blocks: number;
  transactions: number;
  swaps: number;
  liquidityChanges: number;
  /** Reverted transactions that the scenario tolerates (slippage on swaps, arbitrage that came too late). */
  revertedTolerated: number;
  /** Reverted transactions that should not revert (funding, approvals, liquidity): a bug if not zero. */
  revertedUnexpected: number;
}

/** A feed's reporter between steps (protocols/feeds). Answers are raw integers as decimal strings. */
export interface FeedRuntimeState {
  readonly pair: string;
  /** The newest answer on chain, and the time of its block. */
  answer: string;
  updatedAt: number;
  /** A round sent but not yet on chain: it lands in the first block at or after `landsAt`. */
  pending: { answer: string; landsAt: number } | null;
}

export interface OracleRuntimeState {
  /** The reporter's own generator stream (`oracles`): feeds never change what traders draw. */
  rng: [number, number, number, number];
  feeds: FeedRuntimeState[];
  stats: {
    rounds: number;
    deviationRounds: number;
    heartbeatRounds: number;
    /** Rounds that landed in a later block than the one of the step that sent them. */
    delayed: number;
    /** Rounds caught in an outage (see `REPORTER.outage`). */
    outages: number;
  };
}

export interface ScenarioState extends SimulationState {
  readonly format: 1;
  readonly seed: number;
  /** The scale the agents were created for. */
  readonly scale: number;
  /** Generator states: prices and agents draw from separate streams, so the price path does not depend on scale. */
  rngPrices: [number, number, number, number];
  rngAgents: [number, number, number, number];
  /**
   * The pools of the liquid staking token draw their clientele, swaps and liquidity events from their own stream
   * (`liquid-staking-pools`), after the other pools' actions in each block: adding them changed nothing the other
   * pools draw. Absent in worlds saved before they existed.
   */
  rngLiquidStakingPools?: [number, number, number, number];
  agents: AgentState[];
  pools: PoolRuntimeState[];
  v3Positions: V3PositionState[];
  v2Shares: V2ShareState[];
  stats: ScenarioStats;
  /** Absent with the manifest's `oracles` (worlds saved before feeds existed). */
  oracles?: OracleRuntimeState;
  /** Absent with the manifest's `lending` (worlds saved before lending existed); see protocols/aave. */
  lending?: LendingRuntimeState;
  /**
   * Collateral the liquidators seized and still sell back into the asset they repaid (`sellSeized` in
   * protocols/uniswap/sales.ts). Absent in worlds saved before liquidators sold.
   */
  seizedSales?: SeizedSaleState[];
  /** Liquity's actors (protocols/liquity; absent in worlds without Liquity). */
  liquity?: LiquityRuntimeState;
  /** MakerDAO's actors (protocols/maker). Absent with the manifest's `maker` (worlds saved before it existed). */
  maker?: MakerRuntimeState;
  /** The rollup batchers (protocols/rollups). Absent in worlds saved before they existed. */
  rollups?: RollupRuntimeState;
  /** The tokenomics tokens' actors (protocols/tokenomics). Absent in worlds saved before they existed. */
  tokenomics?: TokenomicsRuntimeState;
}

/** Seized collateral a liquidator is selling on the DEX pools, a chunk per block. */
export interface SeizedSaleState {
  /** Index into `agents`. */
  readonly liquidator: number;
  /** Token symbols: what it sells, and what it wants back (the debt asset it repaid). */
  readonly sell: string;
  readonly buy: string;
  /** Raw amount of `sell` still to sell. */
  amount: string;
}

/** A borrower's position in one market, as the scenario planned it (the chain is the truth for amounts). */
export interface LendingPositionState {
  /** Index into `agents`. */
  readonly owner: number;
  /** `aave`/`spark` (Aave design) or `morpho`. */
  readonly protocol: string;
  /** Morpho: the market id. */
  readonly marketId?: string;
  readonly collateral: string;
  /**
   * Aave: a second collateral asset, supplied beside the first (a third of the safe and leveraged borrowers; absent
   * for the others and in worlds saved before). Liquidations seize the first until one of them reverts, then the
   * other (`liquidateSecond`), and so on.
   */
  readonly secondCollateral?: string;
  liquidateSecond?: boolean;
  readonly debt: string;
  readonly kind: 'safe' | 'leveraged' | 'near' | 'looper';
  /** The health factor aimed at when opening. */
  targetHf: number;
  open: boolean;
  /** Raw collateral supplied and debt borrowed by the scenario (principal; interest and liquidations not counted). */
  collateralRaw: string;
  debtRaw: string;
  /**
   * The health factor the liquidators last read, and when (unix seconds; absent after the owner acted on it): short
   * (live) steps re-read only positions that could be near liquidation (see `needsRead` in protocols/lending).
   */
  hf?: number;
  readAt?: number;
}

/**
 * One lending protocol's actors between steps (protocols/lending/actors.ts): their own generator stream (lending
 * never changes what traders draw), the suppliers' principal, the borrowers' positions.
 */
export interface LendingActorsState {
  rng: [number, number, number, number];
  /** Whether the suppliers' initial deposits and the first cohort of borrowers went in. */
  seeded: boolean;
  /** Per supplier (agent index) and reserve key (Aave: `protocol|symbol`; Morpho: the market id): raw principal. */
  supplies: Record<string, Record<string, string>>;
  positions: LendingPositionState[];
  stats: {
    supplies: number;
    withdrawals: number;
    borrows: number;
    repays: number;
    liquidations: number;
    /** Liquidations that reverted (the position recovered before the transaction ran). */
    liquidationsMissed: number;
  };
}

/** Morpho Blue's actors (protocols/morpho), from their own stream (`morpho`). */
export type MorphoRuntimeState = LendingActorsState;

/** The Aave-design markets' actors (protocols/aave), from the `lending` stream, and Morpho's beside them. */
export interface LendingRuntimeState extends LendingActorsState {
  /** Morpho Blue's actors (absent without Morpho in the manifest). */
  morpho?: MorphoRuntimeState;
}

/** A trove owner of Liquity (protocols/liquity/actors.ts): its habits; whether its trove is open is read on chain. */
export interface TroveOwnerState {
  readonly agent: number;
  /** risky: 117–130 % and slow to top up; moderate: 145–190 %; safe: 220–320 %, and a Stability Pool depositor. */
  readonly kind: 'safe' | 'moderate' | 'risky';
  readonly targetIcr: number;
  /** Median LUSD borrowed at opening, in USD (at this world's scale). */
  readonly medianUsd: number;
  /** Share of newly borrowed LUSD put in the Stability Pool… */
  readonly spShare: number;
  /** …and sold on the LUSD/USDC pool (the rest is held). */
  readonly sellShare: number;
  /** Gathering LUSD to close the trove. */
  closing?: boolean;
}

export interface LiquityRuntimeState {
  rng: [number, number, number, number];
  seeded: boolean;
  owners: TroveOwnerState[];
  /** Agent index of the keeper (liquidations) and of the redeemer (buys LUSD under the peg, redeems it). */
  readonly keeper: number;
  readonly redeemer: number;
  stats: {
    opened: number;
    closed: number;
    topUps: number;
    borrows: number;
    repays: number;
    deposits: number;
    withdrawals: number;
    liquidationCalls: number;
    liquidationsMissed: number;
    redemptions: number;
    swaps: number;
    /** Borrowed and sold over the peg (absent in worlds saved before it). */
    arbitrageBorrows?: number;
  };
}
