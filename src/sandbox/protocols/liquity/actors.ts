/**
 * Liquity's actors, from their own random stream (`liquity`):
 * - trove owners of three habits (risky, moderate, safe) open troves with native ETH, top them up, borrow more,
 *   repay and close them; the safe ones put part of their LUSD in the Stability Pool, the others sell part of it on
 *   the LUSD/USDC pair (and buy it back to repay or close);
 * - a keeper liquidates (`liquidateTroves`) as soon as a trove is liquidatable at the block's price: below MCR, or
 *   in recovery mode below the TCR when the Stability Pool covers it;
 * - a redeemer, when LUSD trades under the peg by more than the redemption fee, buys it on the pair and redeems it
 *   (the riskiest troves first) in the same block, first of the block's Liquity operations: it redeems only while the
 *   pair's LUSD is cheaper than the dollar of ETH a redemption pays (mainnet's redemption arbitrage, one bundle);
 * - above the peg by more than the borrowing fee, the owner whose trove has the most room borrows LUSD and sells it
 *   on the pair (Liquity's upside arbitrage: LUSD is worth at most the cost of borrowing it).
 * Every trove operation is checked first against Liquity's rules on the state read at the start of the block and
 * the price of this block's feed round (so none reverts); a block with a liquidation or a redemption has no trove
 * operation (they would change the figures those checks used).
 */
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex, zeroAddress } from 'viem';
import { type Agent, type AgentState, newAgentState } from '../../chain/agent.js';
import type { ManifestLiquity } from '../../world/manifest.js';
import { Rng } from '../../world/random.js';
import type { LiquityRuntimeState, TroveOwnerState } from '../../world/state.js';
import type { LendingHost } from '../lending/actors.js';
import { StablePair, type StablePairReserves } from '../uniswap/stable-pair.js';
import {
  borrowerOperationsAbi,
  hintHelpersAbi,
  LIQUITY,
  readerAbi,
  stabilityPoolAbi,
  troveManagerAbi,
  WAD,
} from './deploy.js';

/** Trove owners at scale 1 (at least 8), and their habits in turn. */
const OWNERS_AT_SCALE_1 = 18;
const MIN_OWNERS = 8;
const HABITS: readonly TroveOwnerState['kind'][] = [
  'risky',
  'moderate',
  'safe',
  'moderate',
  'risky',
  'safe',
  'moderate',
];
const HABIT = {
  risky: { icr: [1.16, 1.26], medianUsd: 250e3, sp: [0, 0], sell: [0.2, 0.5] },
  moderate: { icr: [1.45, 1.9], medianUsd: 250e3, sp: [0, 0.1], sell: [0.1, 0.3] },
  safe: { icr: [2.2, 3.2], medianUsd: 300e3, sp: [0.1, 0.3], sell: [0, 0.1] },
} as const;
/** Share of the owners whose trove opens at the first step; the others open over the first days. */
const FIRST_COHORT = 0.7;

/** Events per hour, per owner. */
const RATES = { open: 0.03, act: 0.06, poolTrades: 1.5 } as const;
/** Risky owners look at their troves this much less often (they are the ones a crash catches). */
const RISKY_ATTENTION = 0.25;
/** …and re-lever this much more often than others act. */
const RISKY_RELEVER = 4;

/** Safety margins of the checks (the fee decays, the block's other operations move the system a little). */
const MARGIN = 1_020_000_000_000_000_000n;
/** The upside arbitrage borrows no further than this ratio (200 %: well above the 150 % CCR, so the crash leaves it). */
const ARBITRAGE_ICR = 2_000_000_000_000_000_000n;
const MAX_FEE = LIQUITY.MAX_BORROWING_FEE;
const GAS = {
  open: 1_500_000n,
  adjust: 1_200_000n,
  close: 1_000_000n,
  sp: 600_000n,
  liquidate: 8_000_000n,
  redeem: 6_000_000n,
} as const;
const MIN_REDEMPTION = 2000n * WAD;

interface TroveReading {
  debt: bigint;
  coll: bigint;
  readonly active: boolean;
}

export interface LiquityReading {
  /** The price the contracts use in this block (1e18), or undefined when the feed is stale. */
  readonly price: bigint | undefined;
  systemColl: bigint;
  systemDebt: bigint;
  spDeposits: bigint;
  readonly borrowingRate: bigint;
  readonly redemptionRate: bigint;
  /** The pair's reserves, kept current as this block's swaps are queued. */
  pair: StablePairReserves;
  /** By agent index: the owners' troves and the deployer's. */
  readonly troves: Map<number, TroveReading>;
  /** By agent index: compounded Stability Pool deposits. */
  readonly deposits: Map<number, bigint>;
  readonly hint: { first: Address; nicr: bigint; amount: bigint } | undefined;
  /**
   * The redeemer's purchase when LUSD trades under the redemption floor at the block's start: the USDC it pays and
   * the LUSD the pair gives for it (what the hint was asked for, with what the redeemer held).
   */
  readonly purchase: { usdc: bigint; lusd: bigint } | undefined;
}

/** The cast's agents and the actors' initial state: appended after every other agent of the world. */
export function castLiquity(seed: number, scale: number, firstKey: number, firstIndex: number) {
  const rng = Rng.fromSeed(seed, 'liquity');
  const count = Math.max(MIN_OWNERS, Math.round(OWNERS_AT_SCALE_1 * scale));
  const agents: AgentState[] = [];
  let key = firstKey;
  const owners: TroveOwnerState[] = [];
  for (let i = 0; i < count; i++) {
    const kind = HABITS[i % HABITS.length]!;
    const h = HABIT[kind];
    owners.push({
      agent: firstIndex + agents.length,
      kind,
      targetIcr: rng.uniform(h.icr[0], h.icr[1]),
      medianUsd: h.medianUsd * Math.max(scale, 0.1),
      spShare: rng.uniform(h.sp[0], h.sp[1]),
      sellShare: rng.uniform(h.sell[0], h.sell[1]),
    });
    agents.push(newAgentState(seed, key++, 'trove-owner'));
  }
  const keeper = firstIndex + agents.length;
  agents.push(newAgentState(seed, key++, 'keeper'));
  const redeemer = firstIndex + agents.length;
  agents.push(newAgentState(seed, key++, 'redeemer'));
  const state: LiquityRuntimeState = {
    rng: rng.state(),
    seeded: false,
    owners,
    keeper,
    redeemer,
    stats: {
      opened: 0,
      closed: 0,
      topUps: 0,
      borrows: 0,
      repays: 0,
      deposits: 0,
      withdrawals: 0,
      liquidationCalls: 0,
      liquidationsMissed: 0,
      redemptions: 0,
      swaps: 0,
    },
  };
  return { agents, state, nextKey: key };
}

/** The ETH/USD feed's answer as the PriceFeed sees it in the block being built. */
export interface FeedAnswer {
  readonly answer: bigint;
  readonly decimals: number;
  readonly updatedAt: number;
}

export type LiquityHost = Omit<LendingHost, 'seized'>;

export class LiquityActors {
  private readonly rng: Rng;
  private readonly lusd: string;
  /** The LUSD/USDC pair (the peg's market, and where owners sell and buy LUSD). */
  private readonly pair: StablePair;

  constructor(
    private readonly m: ManifestLiquity,
    private readonly state: LiquityRuntimeState,
    private readonly host: LiquityHost,
    private readonly feed: () => FeedAnswer | undefined,
  ) {
    this.rng = new Rng(state.rng);
    this.lusd = m.lusd.toLowerCase();
    this.pair = new StablePair(m.pool, m.lusd, host, (ok) => {
      if (ok) this.state.stats.swaps += 1;
    });
    const mine = [...state.owners.map((o) => o.agent), state.keeper, state.redeemer];
    host.session.watch(
      mine.map((i) => host.agents[i]!),
      [m.lusd],
      host.token('WETH').address,
    );
  }

  save(): void {
    this.state.rng = this.rng.state();
  }

  private agent(index: number): Agent {
    return this.host.agents[index]!;
  }

  // --- reading -------------------------------------------------------------------------------------------------

  /** One batch of views: the system, the pair, every owner's trove and deposit, and the redeemer's hint. */
  async read(): Promise<LiquityReading> {
    const m = this.m;
    const fa = this.feed();
    const deployer = this.host.agents.findIndex((a) => a.role === 'deployer');
    const troveAgents = [deployer, ...this.state.owners.map((o) => o.agent)];
    const depositors = this.state.owners.filter((o) => o.kind === 'safe').map((o) => o.agent);
    const call = (to: Address, data: Hex) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
    const price =
      fa && this.host.now - fa.updatedAt <= 14_400 ? fa.answer * 10n ** BigInt(18 - fa.decimals) : undefined;
    // One call for the system, the pair, every trove and every deposit; one more for the redeemer's hint when LUSD
    // trades under the redemption floor.
    const calls = [
      call(
        m.reader,
        encodeFunctionData({
          abi: readerAbi,
          functionName: 'read',
          args: [
            m.troveManager,
            m.stabilityPool,
            m.priceFeed,
            m.pool.address,
            troveAgents.map((i) => this.agent(i).address),
            depositors.map((i) => this.agent(i).address),
          ],
        }),
      ),
    ];
    const r = await this.host.session.rpc.batchResults<Hex>(calls);
    const [sys, debts, colls, compounded] = decodeFunctionResult({ abi: readerAbi, functionName: 'read', data: r[0]! });
    const pair = this.pair.reserves(sys.reserve0, sys.reserve1);
    const purchase = price !== undefined ? this.underPeg(pair, sys.redemptionRate, sys.systemDebt) : undefined;
    const redeemable = purchase ? this.agent(this.state.redeemer).available(this.lusd) + purchase.lusd : 0n;
    const withHint = price !== undefined && redeemable >= MIN_REDEMPTION;
    if (withHint) {
      const hints = encodeFunctionData({
        abi: hintHelpersAbi,
        functionName: 'getRedemptionHints',
        args: [redeemable, price, 0n],
      });
      r.push(...(await this.host.session.rpc.batchResults<Hex>([call(m.hintHelpers, hints)])));
    }
    const troves = new Map<number, TroveReading>();
    troveAgents.forEach((i, k) => {
      // A closed trove has neither debt nor collateral (nor pending rewards).
      troves.set(i, { debt: debts[k]!, coll: colls[k]!, active: debts[k]! > 0n });
    });
    const deposits = new Map<number, bigint>();
    depositors.forEach((i, k) => {
      deposits.set(i, compounded[k]!);
    });
    let hint: LiquityReading['hint'];
    if (withHint) {
      const [first, nicr, amount] = decodeFunctionResult({
        abi: hintHelpersAbi,
        functionName: 'getRedemptionHints',
        data: r[1]!,
      });
      hint = { first, nicr, amount };
    }
    return {
      price: price ?? (sys.lastGoodPrice > 0n ? sys.lastGoodPrice : undefined),
      systemColl: sys.systemColl,
      systemDebt: sys.systemDebt,
      spDeposits: sys.spDeposits,
      borrowingRate: sys.borrowingRate,
      redemptionRate: sys.redemptionRate,
      pair,
      troves,
      deposits,
      hint: price !== undefined ? hint : undefined,
      purchase: hint ? purchase : undefined,
    };
  }

  /**
   * Under the peg by more than the redemption fee: the USDC that buys LUSD up to about that level on the pair, at most
   * 1 % of the system's debt an hour (the redemption fee grows with the amount redeemed), and the LUSD it buys.
   */
  private underPeg(pair: StablePairReserves, redemptionRate: bigint, systemDebt: bigint): LiquityReading['purchase'] {
    const floor = 1 - Number(redemptionRate) / 1e18 - 0.004;
    if (!(this.pair.peg(pair) < floor)) return undefined;
    const cap = Number(systemDebt / WAD) / 100;
    const x = Math.min(cap, this.pair.toPrice(pair, floor).units);
    if (!(x > 100)) return undefined;
    const usdc = this.pair.raw(false, x);
    const lusd = (usdc * 997n * pair.stable) / (pair.usdc * 1000n + usdc * 997n);
    return lusd > 0n ? { usdc, lusd } : undefined;
  }

  // --- the block's actions -------------------------------------------------------------------------------------

  step(r: LiquityReading, from: number, to: number): void {
    const price = r.price;
    if (price === undefined) return;
    const hours = (to - from) / 3600;

    if (this.liquidate(r, price)) return;
    const seeding = !this.state.seeded;
    // The troves a redemption reaches see no other operation in its block: their owners' checks read them before it.
    const redeemed = seeding ? undefined : this.redeem(r, price);
    if (seeding) {
      this.state.seeded = true;
      for (const o of this.state.owners) if (this.rng.chance(FIRST_COHORT)) this.open(o, r, price);
    } else {
      for (const o of this.state.owners) {
        if (redeemed?.has(o.agent)) continue;
        const t = r.troves.get(o.agent);
        // Risky owners re-lever eagerly when their ratio drifted up, but defend their troves slowly.
        const high = t?.active && (t.coll * price) / t.debt > (toWad(o.targetIcr) * 115n) / 100n;
        const attention = o.kind === 'risky' ? (high ? RISKY_RELEVER : RISKY_ATTENTION) : 1;
        if (!t?.active) {
          if (this.rng.chance(RATES.open * hours)) this.open(o, r, price);
        } else if (o.closing || this.rng.chance(RATES.act * attention * hours)) {
          this.act(o, t, r, price);
        }
      }
    }
    const trades = this.rng.poisson(RATES.poolTrades * hours);
    for (let i = 0; i < trades; i++) this.poolTrade(r);
    // The peg's arbitrage back-runs the block's flows (the price an hour of history ends on is the one it leaves).
    if (!seeding) this.sellOverPeg(r, price, redeemed);
  }

  /** The keeper: one `liquidateTroves` when any trove is liquidatable at this block's price. */
  private liquidate(r: LiquityReading, price: bigint): boolean {
    const tcr = (r.systemColl * price) / r.systemDebt;
    const recovery = tcr < LIQUITY.CCR;
    let n = 0;
    let sp = r.spDeposits;
    const active = [...r.troves.values()].filter((t) => t.active);
    const byIcr = active.map((t) => ({ t, icr: (t.coll * price) / t.debt })).sort((a, b) => (a.icr < b.icr ? -1 : 1));
    for (const { t, icr } of byIcr) {
      if (icr < LIQUITY.MCR || (recovery && icr < tcr && t.debt <= sp)) {
        n++;
        sp = sp > t.debt ? sp - t.debt : 0n;
      } else break;
    }
    if (n === 0 || active.length - n < 1) return false;
    const keeper = this.agent(this.state.keeper);
    this.host.session.send(keeper, {
      to: this.m.troveManager,
      data: encodeFunctionData({ abi: troveManagerAbi, functionName: 'liquidateTroves', args: [BigInt(n)] }),
      gas: GAS.liquidate,
      kind: 'liquidation',
      onMined: (ok) => {
        if (ok) this.state.stats.liquidationCalls += 1;
        else this.state.stats.liquidationsMissed += 1;
      },
    });
    return true;
  }

  /**
   * LUSD under the redemption floor at the block's start: the redeemer buys it on the pair and redeems what it holds
   * then, first of the block's Liquity operations (the pair and the troves are as the hint was read).
   */
  private redeem(r: LiquityReading, price: bigint): Set<number> | undefined {
    const hint = r.hint;
    const purchase = r.purchase;
    if (!hint || !purchase || hint.amount < MIN_REDEMPTION || hint.first === zeroAddress) return undefined;
    if ((r.systemColl * price) / r.systemDebt < LIQUITY.MCR) return undefined;
    const redeemer = this.agent(this.state.redeemer);
    this.pair.swap(redeemer, false, purchase.usdc, r.pair);
    redeemer.plan(this.lusd, purchase.lusd);
    // The redemption raises the base rate by its share of the supply / 2 before the fee is taken.
    const expected = r.redemptionRate + (hint.amount * WAD) / (2n * r.systemDebt) + WAD / 200n;
    const maxFee = expected > WAD ? WAD : expected;
    this.host.session.send(redeemer, {
      to: this.m.troveManager,
      data: encodeFunctionData({
        abi: troveManagerAbi,
        functionName: 'redeemCollateral',
        args: [hint.amount, hint.first, hint.first, hint.first, hint.nicr, 0n, maxFee],
      }),
      gas: GAS.redeem,
      kind: 'arbitrage',
      onMined: (ok) => {
        if (ok) this.state.stats.redemptions += 1;
      },
    });
    redeemer.plan(this.lusd, -hint.amount);
    r.systemDebt -= hint.amount;
    r.systemColl -= (hint.amount * WAD) / price;
    return this.reached(r, price, hint.amount);
  }

  /**
   * The troves a redemption of `amount` reaches: from the lowest ratio at or above MCR up, their debts less the gas
   * reserve, until the amount is covered (every trove at the last one's ratio too: the contract's order among equals
   * is its own).
   */
  private reached(r: LiquityReading, price: bigint, amount: bigint): Set<number> {
    const byIcr = [...r.troves.entries()]
      .filter(([, t]) => t.active && (t.coll * price) / t.debt >= LIQUITY.MCR)
      .map(([agent, t]) => ({ agent, t, icr: (t.coll * price) / t.debt }))
      .sort((a, b) => (a.icr < b.icr ? -1 : a.icr > b.icr ? 1 : 0));
    const reached = new Set<number>();
    let left = amount;
    let last = 0n;
    for (const { agent, t, icr } of byIcr) {
      if (left <= 0n && icr > last) break;
      reached.add(agent);
      left -= t.debt - LIQUITY.GAS_COMPENSATION;
      last = icr;
    }
    return reached;
  }

  // --- trove owners --------------------------------------------------------------------------------------------

  private fee(r: LiquityReading, recovery: boolean, amount: bigint): bigint {
    return recovery ? 0n : (amount * r.borrowingRate) / WAD;
  }

  private recovery(r: LiquityReading, price: bigint): boolean {
    return (r.systemColl * price) / r.systemDebt < LIQUITY.CCR;
  }

  private open(o: TroveOwnerState, r: LiquityReading, price: bigint): void {
    const t = r.troves.get(o.agent);
    if (t?.active) return;
    const recovery = this.recovery(r, price);
    const usd = Math.max(3000, this.rng.logNormal(o.medianUsd, 0.6));
    const lusd = BigInt(Math.round(usd)) * WAD;
    const debt = lusd + this.fee(r, recovery, lusd) + LIQUITY.GAS_COMPENSATION;
    const icr = toWad(o.targetIcr * this.rng.uniform(0.97, 1.05));
    const coll = (debt * icr) / price;
    if (recovery ? icr < mul(LIQUITY.CCR, MARGIN) : icr < mul(LIQUITY.MCR, MARGIN)) return;
    if (!recovery && ((r.systemColl + coll) * price) / (r.systemDebt + debt) < mul(LIQUITY.CCR, MARGIN)) return;
    const agent = this.agent(o.agent);
    this.sendBo(agent, 'openTrove', [MAX_FEE, lusd, agent.address, agent.address], GAS.open, coll);
    this.state.stats.opened += 1;
    r.systemColl += coll;
    r.systemDebt += debt;
    r.troves.set(o.agent, { debt, coll, active: true });
    agent.plan(this.lusd, lusd);
    o.closing = false;
    this.useBorrowed(o, agent, lusd, r);
  }

  /** New LUSD: part to the Stability Pool, part sold on the pair. */
  private useBorrowed(o: TroveOwnerState, agent: Agent, lusd: bigint, r: LiquityReading): void {
    const toSp = (lusd * toWad(o.spShare)) / WAD;
    if (toSp > 0n) this.provide(agent, toSp, r);
    const toSell = (lusd * toWad(o.sellShare)) / WAD;
    if (toSell > 0n) this.pair.sell(agent, toSell, r.pair);
  }

  /** One action on an open trove, chosen from its state: top up when low, borrow back up when high, else repay, close, move Stability Pool funds. */
  private act(o: TroveOwnerState, t: TroveReading, r: LiquityReading, price: bigint): void {
    const agent = this.agent(o.agent);
    const recovery = this.recovery(r, price);
    const icr = (t.coll * price) / t.debt;
    const target = toWad(o.targetIcr);
    if (icr < (target * 9n) / 10n || (recovery && icr < mul(LIQUITY.CCR, MARGIN))) {
      const add = (t.debt * target) / price - t.coll;
      if (add > 0n) this.topUp(agent, t, add, r);
      return;
    }
    const high = icr > (target * 115n) / 100n;
    if (high && o.kind === 'risky' && !o.closing) {
      this.borrowMore(o, agent, t, r, price, recovery, target);
      return;
    }
    if (o.closing || this.rng.chance(0.1)) {
      this.close(o, agent, t, r, price, recovery);
      return;
    }
    const roll = this.rng.next();
    if (high && roll < 0.45) this.borrowMore(o, agent, t, r, price, recovery, target);
    else if (roll < 0.7) this.repay(agent, t, r, price, recovery);
    else if (o.kind === 'safe' && roll < 0.85) this.moveDeposit(agent, r, price);
    else this.topUp(agent, t, (t.coll * toWad(this.rng.uniform(0.03, 0.15))) / WAD, r);
  }

  private topUp(agent: Agent, t: TroveReading, add: bigint, r: LiquityReading): void {
    this.sendBo(agent, 'addColl', [agent.address, agent.address], GAS.adjust, add);
    this.state.stats.topUps += 1;
    t.coll += add;
    r.systemColl += add;
  }

  private borrowMore(
    o: TroveOwnerState,
    agent: Agent,
    t: TroveReading,
    r: LiquityReading,
    price: bigint,
    recovery: boolean,
    target: bigint,
  ): void {
    if (recovery) return; // a debt increase must raise the trove's ratio there
    const lusd = (t.coll * price) / target - t.debt;
    if (this.draw(agent, t, r, price, lusd)) this.useBorrowed(o, agent, lusd, r);
  }

  /** Borrows `lusd` more on an open trove (`withdrawLUSD`) when Liquity's rules allow it outside recovery mode. */
  private draw(agent: Agent, t: TroveReading, r: LiquityReading, price: bigint, lusd: bigint): boolean {
    if (lusd < 100n * WAD) return false;
    const debt = t.debt + lusd + this.fee(r, false, lusd);
    if ((t.coll * price) / debt < mul(LIQUITY.MCR, MARGIN)) return false;
    if ((r.systemColl * price) / (r.systemDebt + debt - t.debt) < mul(LIQUITY.CCR, MARGIN)) return false;
    this.sendBo(agent, 'withdrawLUSD', [MAX_FEE, lusd, agent.address, agent.address], GAS.adjust);
    this.state.stats.borrows += 1;
    r.systemDebt += debt - t.debt;
    t.debt = debt;
    agent.plan(this.lusd, lusd);
    return true;
  }

  private repay(agent: Agent, t: TroveReading, r: LiquityReading, price: bigint, recovery: boolean): void {
    const room = t.debt - LIQUITY.GAS_COMPENSATION - LIQUITY.MIN_NET_DEBT;
    const wanted = min(room, (t.debt * toWad(this.rng.uniform(0.1, 0.4))) / WAD);
    const held = agent.available(this.lusd);
    if (held < wanted) this.pair.buy(agent, wanted - held, r.pair);
    const amount = min(held, wanted);
    if (amount < 100n * WAD) return;
    const debt = t.debt - amount;
    // Outside recovery mode the trove must end at or above MCR (it may be just under it now).
    if (!recovery && (t.coll * price) / debt < mul(LIQUITY.MCR, MARGIN)) return;
    this.sendBo(agent, 'repayLUSD', [amount, agent.address, agent.address], GAS.adjust);
    this.state.stats.repays += 1;
    agent.plan(this.lusd, -amount);
    t.debt = debt;
    r.systemDebt -= amount;
  }

  /** Closing needs the debt less the reserve in LUSD: from the Stability Pool, else bought; closes when it has it. */
  private close(
    o: TroveOwnerState,
    agent: Agent,
    t: TroveReading,
    r: LiquityReading,
    price: bigint,
    recovery: boolean,
  ): void {
    o.closing = true;
    if (recovery) return;
    const needed = t.debt - LIQUITY.GAS_COMPENSATION;
    const deposit = r.deposits.get(o.agent) ?? 0n;
    if (agent.available(this.lusd) < needed && deposit > 0n && this.noTroveUnderMcr(r, price)) {
      this.withdraw(agent, deposit, r);
      r.deposits.set(o.agent, 0n);
    }
    const held = agent.available(this.lusd);
    if (held < needed) {
      this.pair.buy(agent, needed - held + needed / 100n, r.pair);
      return;
    }
    const others = r.systemDebt - t.debt;
    if (others <= 0n || ((r.systemColl - t.coll) * price) / others < mul(LIQUITY.CCR, MARGIN)) return;
    if ([...r.troves.values()].filter((x) => x.active).length < 2) return;
    this.sendBo(agent, 'closeTrove', [], GAS.close);
    this.state.stats.closed += 1;
    agent.plan(this.lusd, -needed);
    r.systemColl -= t.coll;
    r.systemDebt -= t.debt;
    r.troves.set(o.agent, { debt: 0n, coll: 0n, active: false });
    o.closing = false;
  }

  private noTroveUnderMcr(r: LiquityReading, price: bigint): boolean {
    return [...r.troves.values()].every((t) => !t.active || (t.coll * price) / t.debt >= mul(LIQUITY.MCR, MARGIN));
  }

  // --- the Stability Pool --------------------------------------------------------------------------------------

  private provide(agent: Agent, amount: bigint, r: LiquityReading): void {
    this.host.session.send(agent, {
      to: this.m.stabilityPool,
      data: encodeFunctionData({ abi: stabilityPoolAbi, functionName: 'provideToSP', args: [amount, zeroAddress] }),
      gas: GAS.sp,
      kind: 'lend',
    });
    this.state.stats.deposits += 1;
    agent.plan(this.lusd, -amount);
    r.spDeposits += amount;
    r.deposits.set(agent.index, (r.deposits.get(agent.index) ?? 0n) + amount);
  }

  private withdraw(agent: Agent, amount: bigint, r: LiquityReading): void {
    this.host.session.send(agent, {
      to: this.m.stabilityPool,
      data: encodeFunctionData({ abi: stabilityPoolAbi, functionName: 'withdrawFromSP', args: [amount] }),
      gas: GAS.sp,
      kind: 'lend',
    });
    this.state.stats.withdrawals += 1;
    agent.plan(this.lusd, amount);
    r.spDeposits -= amount;
  }

  /** A depositor adds what it holds, or takes part of its deposit out (not while a trove is under MCR). */
  private moveDeposit(agent: Agent, r: LiquityReading, price: bigint): void {
    const deposit = r.deposits.get(agent.index) ?? 0n;
    const held = agent.available(this.lusd);
    if (held >= 100n * WAD && (deposit === 0n || this.rng.chance(0.5))) {
      this.provide(agent, held, r);
    } else if (deposit >= 100n * WAD && this.noTroveUnderMcr(r, price)) {
      const amount = (deposit * toWad(this.rng.uniform(0.2, 0.8))) / WAD;
      this.withdraw(agent, amount, r);
      r.deposits.set(agent.index, deposit - amount);
    }
  }

  // --- the LUSD/USDC pair --------------------------------------------------------------------------------------

  /**
   * Over the peg by more than the borrowing fee: the owner with the most room above `ARBITRAGE_ICR` borrows LUSD
   * (`withdrawLUSD`) and sells it, down to about that level, at most 1 % of the system's debt an hour. Never a trove
   * this block's redemption reaches, nor in recovery mode (a debt increase must raise the ratio there).
   */
  private sellOverPeg(r: LiquityReading, price: bigint, redeemed: ReadonlySet<number> | undefined): void {
    const ceiling = 1 + Number(r.borrowingRate) / 1e18 + 0.004;
    if (!(this.pair.peg(r.pair) > ceiling) || this.recovery(r, price)) return;
    const move = this.pair.toPrice(r.pair, ceiling);
    const units = Math.min(Number(r.systemDebt / WAD) / 100, move.units);
    if (!move.sellStable || !(units > 100)) return;
    const hinted = r.hint?.first.toLowerCase();
    let best: { o: TroveOwnerState; t: TroveReading; room: bigint } | undefined;
    for (const o of this.state.owners) {
      const t = r.troves.get(o.agent);
      if (!t?.active || o.closing || this.agent(o.agent).id === hinted || redeemed?.has(o.agent)) continue;
      const room = (t.coll * price) / ARBITRAGE_ICR - t.debt;
      if (room > (best?.room ?? 0n)) best = { o, t, room };
    }
    if (!best) return;
    const wanted = this.pair.raw(true, units);
    // The fee is added to the debt: borrow a little less than the room.
    const lusd = min(wanted, (best.room * 99n) / 100n);
    const agent = this.agent(best.o.agent);
    if (!this.draw(agent, best.t, r, price, lusd)) return;
    this.state.stats.arbitrageBorrows = (this.state.stats.arbitrageBorrows ?? 0) + 1;
    this.pair.sell(agent, lusd, r.pair);
  }

  /** Flows that move the peg: an owner sells some LUSD it holds, or buys some. */
  private poolTrade(r: LiquityReading): void {
    const o = this.rng.pick(this.state.owners);
    const agent = this.agent(o.agent);
    const usd = this.rng.logNormal(o.medianUsd / 10, 0.8);
    const lusd = BigInt(Math.round(usd)) * WAD;
    if (this.rng.chance(0.45) && agent.available(this.lusd) > 0n) this.pair.sell(agent, lusd, r.pair);
    else this.pair.buy(agent, lusd, r.pair);
  }

  private sendBo(agent: Agent, functionName: string, args: readonly unknown[], gas: bigint, value?: bigint): void {
    this.host.session.send(agent, {
      to: this.m.borrowerOperations,
      data: encodeFunctionData({ abi: borrowerOperationsAbi, functionName, args } as never),
      gas,
      kind: 'lend',
      ...(value !== undefined ? { value } : {}),
    });
  }
}

function toWad(x: number): bigint {
  return BigInt(Math.round(x * 1e9)) * 10n ** 9n;
}

function mul(a: bigint, b: bigint): bigint {
  return (a * b) / WAD;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
