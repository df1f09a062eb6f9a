/**
 * The lending actors' host: what the suppliers, borrowers and liquidators of every lending protocol of the world
 * share, whatever the protocol. Each protocol (protocols/aave, protocols/morpho) plugs in by extending
 * `LendingActors` with its verbs: how it reads its positions, what its transactions are, how a position opens,
 * repays, adds collateral, borrows more or is liquidated. The host runs them, step by step, from the protocol's own
 * random stream:
 *
 * - each step starts with the liquidations (right after the block's oracle rounds, as searchers back-run them);
 * - at the first step the suppliers make every reserve's initial deposits (from two suppliers to one more than
 *   `extraSeedSuppliers` each, log-normal shares) and a first cohort of positions opens;
 * - then, per market and per hour: suppliers add and withdraw; a closed position opens; an open one repays (about
 *   once in ten days), adds collateral, or borrows back up to its target when it drifted well above it.
 */
import type { Address } from 'viem';
import type { Agent } from '../../chain/agent.js';
import { type RpcReceipt, received } from '../../chain/receipts.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestToken } from '../../world/manifest.js';
import { pow } from '../../world/pow.js';
import { Rng } from '../../world/random.js';
import type { LendingActorsState, LendingPositionState } from '../../world/state.js';

/** What the lending actors need from the simulated world. */
export interface LendingHost {
  readonly session: ChainSession;
  readonly agents: readonly Agent[];
  readonly scale: number;
  token(symbol: string): ManifestToken;
  /** Plans spending `amount`, topping the agent up first (mint, wrap or stake) when short. */
  spend(agent: Agent, symbol: string, amount: bigint): void;
  approve(agent: Agent, token: Address, spender: Address): void;
  /** USD price of a token as the markets' oracles will see it in this block (the feed's newest answer). */
  oracleUsd(symbol: string): number;
  /** The block being built's timestamp. */
  readonly now: number;
  /** A liquidation paid `liquidator` this much collateral: it sells it back into the debt asset it repaid. */
  seized(liquidator: Agent, collateral: string, debt: string, amount: bigint): void;
}

/**
 * Events per hour, per actor: suppliers add and withdraw; a closed position opens; an open one repays (about once
 * in ten days; a third of repayments close the position), adds collateral, or borrows back up to its target when
 * it drifted 10 % above it.
 */
const RATES = {
  supply: 0.05,
  withdraw: 0.025,
  open: 0.05,
  repay: 0.004,
  addCollateral: 0.003,
  borrowMore: 0.02,
} as const;

/** Share of the positions opened at the first step; the rest open over the first days (loopers all open at once). */
const FIRST_COHORT = 0.6;

/** A reserve the suppliers fund at the first step: its market, its asset and the USD they deposit in all. */
export interface SeedReserve {
  readonly market: string;
  readonly symbol: string;
  readonly usd: number;
}

export abstract class LendingActors<Reading> {
  protected readonly rng: Rng;
  /**
   * Free liquidity by reserve key (what can be borrowed or withdrawn), adjusted as the block's actions are queued.
   * A reserve key is the protocol's: Aave `protocol|symbol`, Morpho the market id.
   */
  protected liquidity = new Map<string, bigint>();
  /** Suppliers of a reserve at the first step: two, plus fewer than this many more (`rng.int`). */
  protected abstract readonly extraSeedSuppliers: number;

  constructor(
    protected readonly state: LendingActorsState,
    protected readonly host: LendingHost,
  ) {
    this.rng = new Rng(state.rng);
  }

  save(): void {
    this.state.rng = this.rng.state();
  }

  // --- what a protocol plugs in ---------------------------------------------------------------------------------

  /** Reads the positions the liquidators look at and the markets' state at the newest block. */
  abstract read(now: number): Promise<Reading>;
  /** The markets, in the order they act every step. */
  protected abstract marketKeys(): readonly string[];
  /** Free liquidity by reserve key at the start of the block. */
  protected abstract freeLiquidity(reading: Reading): Map<string, bigint>;
  /** Liquidates the positions the reading shows below their threshold (see `nextLiquidator`, `liquidationMined`). */
  protected abstract liquidate(reading: Reading): void;
  /** The reserves the suppliers fund at the first step, in order. */
  protected abstract seedReserves(): readonly SeedReserve[];
  /** A supplier's deposit of `amount` of the reserve. */
  protected abstract deposit(agent: Agent, reserve: SeedReserve, amount: bigint): void;
  /** A supplier adds to one of the market's reserves. */
  protected abstract supplyMore(market: string): void;
  /** Whether a supplier's holding of reserve key `key` is in `market`. */
  protected abstract holds(market: string, key: string): boolean;
  /** The withdrawal transaction of `amount` of reserve key `key` (the books are already updated). */
  protected abstract withdraw(agent: Agent, key: string, amount: bigint): void;
  /** The market's positions that may open in this block. */
  protected abstract closedPositions(market: string): LendingPositionState[];
  /** The market's open positions whose owners act in this block (repay, add collateral, borrow more). */
  protected abstract activePositions(market: string): LendingPositionState[];
  protected abstract open(p: LendingPositionState): void;
  protected abstract repay(p: LendingPositionState, reading: Reading): void;
  protected abstract addCollateral(p: LendingPositionState): void;
  protected abstract borrowMore(p: LendingPositionState, reading: Reading): void;

  /** Starts the block: free liquidity from the reading. */
  protected begin(reading: Reading): void {
    this.liquidity = this.freeLiquidity(reading);
  }

  // --- the step -------------------------------------------------------------------------------------------------

  /** Liquidations first (right after the block's oracle rounds), then the step's lending activity. */
  step(reading: Reading, from: number, to: number): void {
    this.begin(reading);
    this.liquidate(reading);
    if (!this.state.seeded) {
      this.seed();
      this.state.seeded = true;
      return;
    }
    const hours = (to - from) / 3600;
    const suppliers = this.suppliers().length;
    const markets = this.marketKeys();
    for (const market of markets) {
      const draws = (rate: number, actors: number) => this.rng.poisson(rate * actors * hours);
      for (let k = draws(RATES.supply, suppliers / markets.length); k > 0; k--) this.supplyMore(market);
      for (let k = draws(RATES.withdraw, suppliers / markets.length); k > 0; k--) this.withdrawSome(market);
      const closed = this.closedPositions(market);
      for (let k = draws(RATES.open, closed.length); k > 0 && closed.length; k--) {
        this.open(closed.splice(this.rng.int(closed.length), 1)[0]!);
      }
      const open = this.activePositions(market);
      for (let k = draws(RATES.repay, open.length); k > 0 && open.length; k--) {
        this.repay(open.splice(this.rng.int(open.length), 1)[0]!, reading);
      }
      for (let k = draws(RATES.addCollateral, open.length); k > 0 && open.length; k--) {
        this.addCollateral(open.splice(this.rng.int(open.length), 1)[0]!);
      }
      for (let k = draws(RATES.borrowMore, open.length); k > 0 && open.length; k--) {
        this.borrowMore(open.splice(this.rng.int(open.length), 1)[0]!, reading);
      }
    }
  }

  /** First step: every reserve gets its initial supply from a few suppliers (log-normal shares); a first cohort opens. */
  private seed(): void {
    const suppliers = this.suppliers();
    for (const reserve of this.seedReserves()) {
      const who = this.rng.sample(suppliers, 2 + this.rng.int(Math.min(this.extraSeedSuppliers, suppliers.length - 1)));
      const weights = who.map(() => this.rng.logNormal(1, 0.8));
      const total = weights.reduce((a, b) => a + b, 0);
      who.forEach((agent, k) => {
        this.deposit(agent, reserve, this.raw(reserve.symbol, (reserve.usd * weights[k]!) / total));
      });
    }
    for (const p of this.state.positions) if (this.rng.chance(FIRST_COHORT) || p.kind === 'looper') this.open(p);
  }

  /** A supplier takes back 10–40 % of one of its holdings in the market, when the reserve has twice that free. */
  private withdrawSome(market: string): void {
    const holdings = Object.entries(this.state.supplies).flatMap(([index, mine]) =>
      Object.entries(mine)
        .filter(([key, amount]) => this.holds(market, key) && BigInt(amount) > 0n)
        .map(([key, amount]) => ({ agent: this.host.agents[Number(index)]!, key, amount: BigInt(amount) })),
    );
    if (!holdings.length) return;
    const h = this.rng.pick(holdings);
    const amount = (h.amount * BigInt(Math.round(this.rng.uniform(0.1, 0.4) * 1000))) / 1000n;
    const free = this.liquidity.get(h.key) ?? 0n;
    if (amount <= 0n || amount * 2n > free) return;
    this.liquidity.set(h.key, free - amount);
    this.state.supplies[String(h.agent.index)]![h.key] = (h.amount - amount).toString();
    this.withdraw(h.agent, h.key, amount);
  }

  // --- helpers for the protocols --------------------------------------------------------------------------------

  protected suppliers(): Agent[] {
    return this.host.agents.filter((a) => a.role === 'supplier');
  }

  /** Books a deposit into reserve key `key`: its free liquidity grows; a supplier's principal is recorded. */
  protected booked(agent: Agent, key: string, amount: bigint, supplier: boolean): void {
    this.liquidity.set(key, (this.liquidity.get(key) ?? 0n) + amount);
    if (!supplier) return;
    const mine = this.state.supplies[String(agent.index)] ?? {};
    this.state.supplies[String(agent.index)] = mine;
    mine[key] = (BigInt(mine[key] ?? '0') + amount).toString();
  }

  /** The raw amount of a token worth `usd` at the oracle price of this block's rounds. */
  protected raw(symbol: string, usd: number): bigint {
    const t = this.host.token(symbol);
    const x = (usd / this.host.oracleUsd(symbol)) * pow(10, t.decimals);
    return x > 0 && Number.isFinite(x) ? BigInt(Math.floor(x)) : 0n;
  }

  /** The USD value of a raw amount at the oracle price of this block's rounds. */
  protected usd(symbol: string, raw: bigint): number {
    return (Number(raw) / pow(10, this.host.token(symbol).decimals)) * this.host.oracleUsd(symbol);
  }

  /** A USD amount at scale 1, for this world's scale (at least 0.3 of it: a small world still has markets). */
  protected scaledUsd(usd: number): number {
    return usd * Math.max(this.host.scale, 0.3);
  }

  /** The liquidators, in turn, one per liquidation of the block; undefined when the world has none. */
  protected liquidatorRota(): (() => Agent) | undefined {
    const liquidators = this.host.agents.filter((a) => a.role === 'liquidator');
    if (!liquidators.length) return undefined;
    let turn = 0;
    return () => liquidators[turn++ % liquidators.length]!;
  }

  /**
   * What a liquidation does once mined: counted (as missed when it reverted: the position recovered with this
   * block's rounds), and the collateral it paid the liquidator put up for sale.
   */
  protected liquidationMined(
    p: LendingPositionState,
    liquidator: Agent,
    collateral: string,
    onMissed?: () => void,
  ): (ok: boolean, receipt: RpcReceipt) => void {
    return (ok, receipt) => {
      if (!ok) {
        this.state.stats.liquidationsMissed += 1;
        onMissed?.();
        return;
      }
      this.state.stats.liquidations += 1;
      const seized = received(receipt, this.host.token(collateral).address, liquidator.address);
      if (seized > 0n) this.host.seized(liquidator, collateral, p.debt, seized);
    };
  }
}
