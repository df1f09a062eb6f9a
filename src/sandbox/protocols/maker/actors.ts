/**
 * MakerDAO's actors in the world, from their own random stream (`maker`), so that nothing else the world draws
 * changes with them. Each step, after the block's oracle rounds:
 * - **the oracle keeper** (the testchain deployer, owner of the DSValue pips): once per hour, each pip takes the
 *   newest answer of the world's feed for its token (8 → 18 decimals, exact) and `Spot.poke` carries it into
 *   `Vat.spot` for every collateral type it prices (the hourly cadence of mainnet's OSMs, without their delay);
 * - **the liquidation keeper**: reads every vault (`Vat.urns`) and every type (`Vat.ilks`) at the previous block,
 *   recomputes the spot the block's poke sets, and `Dog.bark`s each vault of a Clipper type whose collateral no
 *   longer covers its debt; it takes an auction (`Clipper.take`, the whole lot, paying from its own vault's DAI in the
 *   Vat) once the auction price is 2 % or more below the market, `redo`es the ones that need it, and exits what it
 *   bought (`GemJoin.exit`); `Jug.drip` every 8 hours per type, `Pot.drip` daily;
 * - **vault owners**: open vaults (`GemJoin.join` of WETH or LINK, `Vat.frob`, `Vat.hope(DaiJoin)` once,
 *   `DaiJoin.exit`), top them up when their ratio falls near the minimum, repay part (`DaiJoin.join` then a negative
 *   `frob`), and draw more when the price rose. Each owner has a target ratio over the type's minimum: some sit close
 *   to it, and the scenario's ETH crash takes them below.
 * - **the DAI/USDC market maker**: at the first step it opens an ETH-A vault, draws DAI and seeds the DAI/USDC
 *   Uniswap V2 pair 1:1 with it and USDC; then, last in each step, on the price the step's flows leave, it sells newly drawn
 *   DAI when DAI trades above 1 + `PEG_BAND` and buys DAI to repay when it trades below 1 − `PEG_BAND`, back to half
 *   the band, at most `PEG_CAP_SHARE` of the pair's DAI an hour: DAI's peg is kept by minting and burning against
 *   collateral (the PSM, which does it at par, is not deployed here);
 * - **flows on the pair** that move the peg: owners sell part of the DAI they draw, buy DAI they lack to repay, and
 *   trade some now and then.
 * Calls per hour stay few: about one vault action an hour (×√scale), the hourly pokes and what the crash brings.
 */
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { Agent, agentPrivateKey } from '../../chain/agent.js';
import type { ChainSession, TxKind } from '../../chain/session.js';
import type { ManifestMaker } from '../../world/manifest.js';
import { Rng } from '../../world/random.js';
import { StablePair } from '../uniswap/stable-pair.js';
import {
  clipperAbi,
  daiJoinAbi,
  dogAbi,
  gemJoinAbi,
  jugAbi,
  pipAbi,
  potAbi,
  routerAbi,
  spotAbi,
  vatAbi,
} from './abis.js';
import { ilkBytes, pauseAbi, wadFromFeed } from './deploy.js';
import { queueDaiDraw } from './draw.js';
import { type IlkReading, type MakerReading, readMaker } from './reading.js';
import type { MakerRuntimeState } from './state.js';

export type { MakerReading } from './reading.js';
export type { MakerRuntimeState, MakerVaultState } from './state.js';

const WAD = 10n ** 18n;
const RAY = 10n ** 27n;

/** Gas of the actors' calls (generous: unused gas costs nothing). */
const GAS_OF = { call: 300_000n, bark: 600_000n, take: 600_000n, addLiquidity: 3_500_000n } as const;
/** Events per hour: vault actions of all owners together (×√scale). */
const VAULT_EVENTS_PER_HOUR = 1.2;
/** A vault's size in USD of collateral: log-normal. */
const VAULT_USD = { median: 20_000, sigma: 0.8 } as const;
/** The keeper's own vault: collateral USD, and the DAI it keeps in the Vat to pay for auctions. */
const KEEPER_VAULT_USD = 200_000;
const KEEPER_DAI_SHARE = 0.4;
/** Takes once the auction price is this far below the market. */
const TAKE_DISCOUNT = 0.02;
/** Owners who do not watch their vaults draw back to their target once the ratio is this far above it. */
const RELEVER = 1.05;
/** Share of the owners who open a vault at the first step. */
const FIRST_COHORT = 0.6;
const DRIP_EVERY_S = 8 * 3600;
const POT_DRIP_EVERY_S = 24 * 3600;
const HOUR = 3600;
/**
 * The DAI/USDC pair: DAI (and USDC) seeded at scale 1 (×√scale), as deep as Liquity's LUSD/USDC pair at scale 1; the
 * market maker's vault holds collateral worth `PAIR_VAULT_RATIO` × its debt (ETH-A's minimum is 150 %: the ETH crash
 * leaves it safe).
 */
const PAIR_SEED_USD = 2_000_000;
const PAIR_VAULT_RATIO = 3.2;
/** The market maker acts when DAI trades more than 0.2 % off par (mainnet's DAI/USDC spread is a few basis points, the
 * PSM's fee 0–0.1 %: without a PSM a wider band), back to half of it… */
const PEG_BAND = 0.002;
/**
 * …moving at most this share of the pair's DAI an hour, so that a large flow shows in the peg for an hour or two (at 3 %
 * an hour, owners' sales took DAI to 0.82 for a day: no DAI market has traded so, with or without a PSM).
 */
const PEG_CAP_SHARE = 0.15;
/** Owners sell this share of the DAI they draw (the rest they keep) with this probability. */
const SELL_DRAWN = { chance: 0.6, min: 0.3, max: 0.9 } as const;
/** Trades on the pair by owners, per hour (×√scale), of a log-normal size around this median. */
const PAIR_TRADES_PER_HOUR = 1;
const PAIR_TRADE_USD = { median: 15_000, sigma: 1 } as const;

/** What the Maker actors need from the simulated world. */
export interface MakerHost {
  readonly session: ChainSession;
  readonly scale: number;
  readonly seed: number;
  /** The deployer of the testchain (owner of the pips). */
  readonly oracleKeeper: Agent;
  token(symbol: string): { address: Address; decimals: number };
  /** Plans spending `amount` of a world token, topping up first (wrap or mint) when short. */
  spend(agent: Agent, symbol: string, amount: bigint): void;
  approve(agent: Agent, token: Address, spender: Address): void;
  /** The newest on-chain answer (8 decimals) of the feed reporting `symbol`, once this block's rounds land. */
  feedAnswer(symbol: string): bigint | undefined;
  /** The reference market price in USD. */
  marketUsd(symbol: string): number;
  /** The block being built's timestamp. */
  readonly now: number;
}

export class MakerActors {
  private readonly rng: Rng;
  readonly agents: Agent[];
  /** The market maker and its pair (absent in worlds saved before the pair). */
  private readonly pairMaker?: { agent: Agent; pair: StablePair; rng: Rng };
  /** Normalised debt this block's actions add per type (against its ceiling, `line`). */
  private drawn = new Map<string, bigint>();

  constructor(
    private readonly m: ManifestMaker,
    private readonly s: MakerRuntimeState,
    private readonly host: MakerHost,
  ) {
    this.rng = new Rng(s.rng);
    this.agents = s.agents.map((a, i) => new Agent(a, i, agentPrivateKey(host.seed, a.key)));
    const pm = s.pairMaker;
    if (m.pool && pm) {
      this.pairMaker = {
        agent: new Agent(pm.agent, this.agents.length, agentPrivateKey(host.seed, pm.agent.key)),
        pair: new StablePair(m.pool, m.dai, host, (ok) => {
          if (ok) pm.stats.swaps++;
        }),
        rng: new Rng(pm.rng),
      };
    }
  }

  /** Every agent of the Maker actors, for the session to watch their balances. */
  get watched(): Agent[] {
    return this.pairMaker ? [...this.agents, this.pairMaker.agent] : this.agents;
  }

  /** Nonces from the chain (the state file may come from an older run). */
  async open(): Promise<void> {
    const all = [...this.watched, this.host.oracleKeeper];
    const nonces = await this.host.session.rpc.batchResults<Hex>(
      all.map((a) => ({ method: 'eth_getTransactionCount', params: [a.address, 'latest'] })),
    );
    all.forEach((a, i) => {
      a.state.nonce = Number(nonces[i]);
    });
  }

  save(): void {
    for (const a of this.watched) a.save();
    this.s.rng = this.rng.state();
    if (this.pairMaker && this.s.pairMaker) this.s.pairMaker.rng = this.pairMaker.rng.state();
  }

  private get keeper(): Agent {
    return this.agents[0]!;
  }

  private send(agent: Agent, to: Address, data: Hex, kind: TxKind, gas: bigint = GAS_OF.call): void {
    this.host.session.send(agent, { to, data, gas, kind });
  }
  /**
   * Tops up another actor's agent in DAI (the world's DAI is Maker's): a draw from the agent's own ETH-A vault at
   * three times the debt (`draw.ts`), at the rate this block starts from; false for any other token.
   */
  topUp(agent: Agent, token: { m: { address: Address } }, amount: bigint): boolean {
    if (token.m.address.toLowerCase() !== this.m.dai.toLowerCase()) return false;
    const ilk = this.pairIlk;
    const read = this.ilkReadings?.get(ilk.ilk);
    const eth = this.host.feedAnswer('WETH');
    if (!read || eth === undefined) throw new Error('maker: a DAI top-up before the Maker actors read the chain');
    const weth = this.host.token('WETH').address;
    const target = { vat: this.m.vat, daiJoin: this.m.daiJoin, weth, join: ilk.join, ilk: ilkBytes(ilk.ilk) };
    queueDaiDraw(this.host.session, agent, target, amount, eth * 10n ** 10n, read.rate, read.dust);
    this.s.stats.topUps = (this.s.stats.topUps ?? 0) + 1;
    return true;
  }

  /** The types as this block starts (for the top-ups of other actors' agents, which may come before `step`). */
  private ilkReadings?: ReadonlyMap<string, IlkReading>;

  /** One batch of reads at the head (the state the block starts from). */
  async read(at: number): Promise<MakerReading> {
    const reading = await this.readAt(at);
    this.ilkReadings = reading.ilks;
    return reading;
  }

  private readAt(at: number): Promise<MakerReading> {
    return readMaker(
      {
        m: this.m,
        rpc: this.host.session.rpc,
        vaults: this.s.vaults,
        agents: this.agents,
        keeper: this.keeper,
        ...(this.pairMaker ? { pairMaker: this.pairMaker } : {}),
        pairIlk: this.pairIlk.ilk,
      },
      at,
    );
  }
  /** The market maker's collateral type: the first (ETH-A). */
  private get pairIlk(): ManifestMaker['ilks'][number] {
    return this.m.ilks[0]!;
  }

  /** The price (WAD) the block's pokes give each token, and the spot (RAY) of each type from it. */
  private prices(): Map<string, bigint> {
    const prices = new Map<string, bigint>();
    for (const i of this.m.ilks) {
      const answer = this.host.feedAnswer(i.token);
      if (answer !== undefined) prices.set(i.token, answer * 10n ** 10n);
    }
    return prices;
  }

  step(reading: MakerReading, from: number, to: number): void {
    this.drawn.clear();
    this.execSpells(to);
    const hour = Math.floor(to / HOUR);
    const prices = this.prices();
    if (hour > this.s.lastPokeHour) {
      this.s.lastPokeHour = hour;
      this.poke(prices);
    }
    if (!this.s.keeperReady) {
      this.openKeeper(reading, prices);
      // A first cohort of vaults at the first step, so the world has a book before its first days are over.
      for (let owner = 1; owner < this.agents.length; owner++) {
        if (this.rng.chance(FIRST_COHORT)) this.openVault(owner, reading, prices);
      }
    }
    this.liquidate(reading, this.poked());
    const hours = (to - from) / HOUR;
    this.vaultActions(reading, prices, hours);
    this.pairTrades(reading, hours);
    // The market maker back-runs the block's flows (the reserves include the swaps queued above), so the price an hour
    // of history ends on is the one it leaves.
    this.makeMarket(reading, prices, hours);
    // Drips last: a repayment queued above was sized at the rate the block starts with.
    this.drip(to);
  }

  /** Executes the plotted governance whose delay has passed, first in the Maker actors' part of the block. */
  private execSpells(now: number): void {
    const due = this.s.spells.filter((sp) => BigInt(sp.eta) <= BigInt(now));
    if (due.length === 0) return;
    this.s.spells = this.s.spells.filter((sp) => BigInt(sp.eta) > BigInt(now));
    for (const sp of due) {
      const exec = encodeFunctionData({
        abi: pauseAbi,
        functionName: 'exec',
        args: [sp.usr, sp.tag, sp.fax, BigInt(sp.eta)],
      });
      this.send(this.host.oracleKeeper, sp.pause, exec, 'setup');
    }
    // Each Clipper's dust threshold from the Dog's new penalty (`upchost`, anyone's call, as after mainnet's spells).
    for (const i of this.m.ilks) {
      if (i.clip)
        this.send(
          this.host.oracleKeeper,
          i.clip,
          encodeFunctionData({ abi: clipperAbi, functionName: 'upchost' }),
          'setup',
        );
    }
  }

  /** The prices the pips hold once this block's pokes land (what `Vat.spot` is computed from). */
  private poked(): Map<string, bigint> {
    return new Map(Object.entries(this.s.pokedPrices).map(([token, wad]) => [token, BigInt(wad)]));
  }

  private poke(prices: ReadonlyMap<string, bigint>): void {
    const keeper = this.host.oracleKeeper;
    for (const [token, price] of prices) this.s.pokedPrices[token] = price.toString();
    const poked = new Set<string>();
    for (const i of this.m.ilks) {
      const price = prices.get(i.token);
      if (price === undefined) continue;
      if (!poked.has(i.pip)) {
        poked.add(i.pip);
        const wut = wadFromFeed(price / 10n ** 10n);
        this.send(keeper, i.pip, encodeFunctionData({ abi: pipAbi, functionName: 'poke', args: [wut] }), 'oracle');
      }
      this.send(
        keeper,
        this.m.spot,
        encodeFunctionData({ abi: spotAbi, functionName: 'poke', args: [ilkBytes(i.ilk)] }),
        'oracle',
      );
      this.s.stats.pokes++;
    }
  }

  /** Joins `amount` of the type's token for `agent` (wrapping or minting first) and frobs. */
  private lockAndDraw(agent: Agent, ilk: ManifestMaker['ilks'][number], dink: bigint, dart: bigint): void {
    const token = this.host.token(ilk.token);
    if (dink > 0n) {
      this.host.spend(agent, ilk.token, dink);
      this.host.approve(agent, token.address, ilk.join);
      this.send(
        agent,
        ilk.join,
        encodeFunctionData({ abi: gemJoinAbi, functionName: 'join', args: [agent.address, dink] }),
        'lend',
      );
    }
    const frob = encodeFunctionData({
      abi: vatAbi,
      functionName: 'frob',
      args: [ilkBytes(ilk.ilk), agent.address, agent.address, agent.address, dink, dart],
    });
    this.send(agent, this.m.vat, frob, 'lend');
  }

  /** The keeper's own vault on the first step: the DAI in the Vat it pays auctions with; it hopes the clippers. */
  private openKeeper(reading: MakerReading, prices: ReadonlyMap<string, bigint>): void {
    const keeper = this.keeper;
    const ilk = this.m.ilks[0]!;
    const price = prices.get(ilk.token);
    const r = reading.ilks.get(ilk.ilk);
    if (price === undefined || !r) return;
    const ink = this.units(ilk.token, KEEPER_VAULT_USD, price);
    const daiWad = (ink * price * BigInt(Math.round(KEEPER_DAI_SHARE * 1e6))) / 10n ** 6n / WAD;
    const dart = (daiWad * RAY) / r.rate;
    if (!this.withinCeiling(ilk.ilk, r, dart))
      throw new Error(`maker: the keeper's vault exceeds ${ilk.ilk}'s ceiling`);
    this.lockAndDraw(keeper, ilk, ink, dart);
    for (const i of this.m.ilks) {
      if (i.clip)
        this.send(
          keeper,
          this.m.vat,
          encodeFunctionData({ abi: vatAbi, functionName: 'hope', args: [i.clip] }),
          'setup',
        );
    }
    this.s.keeperReady = true;
  }

  /** Raw token units worth `usd` at `price` (WAD per whole token). */
  private units(symbol: string, usd: number, price: bigint): bigint {
    const decimals = this.host.token(symbol).decimals;
    return (BigInt(Math.round(usd * 100)) * WAD * 10n ** BigInt(decimals)) / (price * 100n);
  }

  private liquidate(reading: MakerReading, prices: ReadonlyMap<string, bigint>): void {
    const m = this.m;
    const keeper = this.keeper;
    // Bark an unsafe vault of each Clipper type, at the spot the pips hold (the Dog's per-type limit, `hole`, leaves
    // room for about one auction at a time: the next bark waits for takes).
    const barked = new Set<string>();
    for (const [index, urn] of reading.urns) {
      const vault = this.s.vaults[index]!;
      if (barked.has(vault.ilk)) continue;
      const ilk = m.ilks.find((i) => i.ilk === vault.ilk)!;
      const r = reading.ilks.get(vault.ilk)!;
      const price = prices.get(ilk.token);
      if (!ilk.clip || price === undefined || urn.art === 0n) continue;
      const spot = (price * 10n ** 9n * RAY) / r.mat;
      if ((urn.ink * spot) / RAY >= (urn.art * r.rate) / RAY) continue;
      const bark = encodeFunctionData({
        abi: dogAbi,
        functionName: 'bark',
        args: [ilkBytes(vault.ilk), this.agents[vault.owner]!.address, keeper.address],
      });
      this.send(keeper, m.dog, bark, 'liquidation', GAS_OF.bark);
      barked.add(vault.ilk);
      this.s.stats.barks++;
    }
    // Take auctions priced below the market, redo the stale ones.
    let dai = reading.keeperDai;
    for (const a of reading.auctions) {
      const ilk = m.ilks.find((i) => i.ilk === a.ilk)!;
      if (a.needsRedo) {
        this.send(
          keeper,
          a.clip,
          encodeFunctionData({ abi: clipperAbi, functionName: 'redo', args: [a.id, keeper.address] }),
          'liquidation',
        );
        this.s.stats.redos++;
        continue;
      }
      const market = BigInt(Math.round(this.host.marketUsd(ilk.token) * (1 - TAKE_DISCOUNT) * 1e6)) * 10n ** 21n;
      // price: RAY per gem WAD; the market here is RAY too.
      if (a.price > market) continue;
      // What the take costs (Clipper: owe = slice × price, RAD, at most the tab).
      let owe = a.lot * a.price;
      if (owe > a.tab) owe = a.tab;
      if (owe > dai) continue;
      dai -= owe;
      const take = encodeFunctionData({
        abi: clipperAbi,
        functionName: 'take',
        args: [a.id, a.lot, a.price, keeper.address, '0x'],
      });
      this.send(keeper, a.clip, take, 'liquidation', GAS_OF.take);
      this.s.stats.takes++;
    }
  }

  private drip(now: number): void {
    const keeper = this.keeper;
    if (now - this.s.lastDrip >= DRIP_EVERY_S) {
      this.s.lastDrip = now;
      for (const i of this.m.ilks) {
        this.send(
          keeper,
          this.m.jug,
          encodeFunctionData({ abi: jugAbi, functionName: 'drip', args: [ilkBytes(i.ilk)] }),
          'setup',
        );
      }
    }
    if (now - this.s.lastPotDrip >= POT_DRIP_EVERY_S) {
      this.s.lastPotDrip = now;
      this.send(keeper, this.m.pot, encodeFunctionData({ abi: potAbi, functionName: 'drip' }), 'setup');
    }
  }

  private vaultActions(reading: MakerReading, prices: ReadonlyMap<string, bigint>, hours: number): void {
    const events = this.rng.poisson(VAULT_EVENTS_PER_HOUR * Math.sqrt(this.host.scale) * hours);
    const busy = new Set<number>();
    for (let e = 0; e < events; e++) {
      const owner = 1 + this.rng.int(this.agents.length - 1);
      if (busy.has(owner)) continue;
      busy.add(owner);
      const vaultIndex = this.s.vaults.findIndex((v) => v.owner === owner && v.open);
      if (vaultIndex < 0) this.openVault(owner, reading, prices);
      else this.manage(vaultIndex, reading, prices);
    }
  }

  private openVault(owner: number, reading: MakerReading, prices: ReadonlyMap<string, bigint>): void {
    const ilk = this.rng.pick(this.m.ilks);
    // One urn per owner and type: a closed (or liquidated) vault of the type opens again in its place; an open one,
    // or one whose urn the reading does not know yet, is left alone.
    const existing = this.s.vaults.findIndex((v) => v.owner === owner && v.ilk === ilk.ilk);
    if (existing >= 0 && this.s.vaults[existing]!.open) return;
    const r = reading.ilks.get(ilk.ilk);
    const price = prices.get(ilk.token);
    if (!r || price === undefined) return;
    // Clipper types (every type since ETH-A moved onto the Dog): some owners close to the minimum (the crash liquidates
    // them); a type without a Clipper (in a world saved before): comfortable.
    const target = ilk.clip ? this.rng.uniform(1.03, 1.6) : this.rng.uniform(1.6, 2.6);
    const watchful = !ilk.clip || this.rng.chance(0.5);
    const ink = this.units(ilk.token, this.rng.logNormal(VAULT_USD.median, VAULT_USD.sigma), price);
    const dart = this.dartFor(ink, price, r, target);
    if (dart * r.rate < r.dust || !this.withinCeiling(ilk.ilk, r, dart)) return;
    const agent = this.agents[owner]!;
    this.lockAndDraw(agent, ilk, ink, dart);
    this.exitDai(agent, (dart * r.rate) / RAY);
    this.sellDrawn(agent, (dart * r.rate) / RAY, reading);
    const vault = { owner, ilk: ilk.ilk, target, watchful, open: true };
    if (existing >= 0) this.s.vaults[existing] = vault;
    else this.s.vaults.push(vault);
    this.s.stats.opened++;
  }

  /** Whether drawing `dart` more keeps the type under its debt ceiling; reserves it if so. */
  private withinCeiling(ilk: string, r: IlkReading, dart: bigint): boolean {
    const art = r.Art + (this.drawn.get(ilk) ?? 0n) + dart;
    if (art * r.rate > r.line) return false;
    this.drawn.set(ilk, art - r.Art);
    return true;
  }

  /** Normalised debt that puts `ink` at `target` × the minimum ratio. */
  private dartFor(ink: bigint, price: bigint, r: IlkReading, target: number): bigint {
    const valueRad = ink * price * 10n ** 9n; // WAD * WAD * 1e9 = RAD (1e45)
    const ratio = (r.mat * BigInt(Math.round(target * 1e6))) / 10n ** 6n; // RAY
    const debtRad = valueRad / ratio; // RAD / RAY = WAD... as DAI WAD
    return (debtRad * RAY) / r.rate;
  }

  /** Moves the vault's fresh DAI out of the Vat as the ERC-20 (`hope` of the DaiJoin once). */
  private exitDai(agent: Agent, wad: bigint): void {
    const key = `vat>${this.m.daiJoin.toLowerCase()}`;
    if (!agent.approvals.has(key)) {
      agent.approvals.add(key);
      this.send(
        agent,
        this.m.vat,
        encodeFunctionData({ abi: vatAbi, functionName: 'hope', args: [this.m.daiJoin] }),
        'setup',
      );
    }
    this.send(
      agent,
      this.m.daiJoin,
      encodeFunctionData({ abi: daiJoinAbi, functionName: 'exit', args: [agent.address, wad] }),
      'lend',
    );
  }

  private manage(index: number, reading: MakerReading, prices: ReadonlyMap<string, bigint>): void {
    const vault = this.s.vaults[index]!;
    const urn = reading.urns.get(index);
    const ilk = this.m.ilks.find((i) => i.ilk === vault.ilk)!;
    const r = reading.ilks.get(vault.ilk);
    const price = prices.get(ilk.token);
    const agent = this.agents[vault.owner]!;
    if (!urn || !r || price === undefined) return;
    if (urn.ink === 0n && urn.art === 0n) {
      vault.open = false; // liquidated whole, or closed
      return;
    }
    const debtWad = (urn.art * r.rate) / RAY;
    const ratio =
      debtWad === 0n ? Number.POSITIVE_INFINITY : Number((urn.ink * price) / debtWad) / 1e18 / (Number(r.mat) / 1e27);
    if (vault.watchful && ratio < vault.target * 0.85) {
      // Top up back to the target.
      const need = this.units(ilk.token, (vault.target / ratio - 1) * (Number((urn.ink * price) / WAD) / 1e18), price);
      if (need > 0n) this.lockAndDraw(agent, ilk, need, 0n);
      return;
    }
    const daiKey = this.m.dai.toLowerCase();
    const held = agent.available(daiKey);
    const pm = this.pairMaker;
    if (this.rng.chance(0.35) && (held > 0n || (pm && reading.pair))) {
      // Repay part of the debt (never below the dust: all or part) with the DAI held, or with DAI bought on the pair
      // when it holds none.
      const share = BigInt(Math.round(this.rng.uniform(0.2, 0.7) * 1000));
      let wad = (held * share) / 1000n;
      if (held === 0n && pm && reading.pair) {
        wad = pm.pair.buy(agent, (debtWad * share) / 1000n, reading.pair);
        agent.plan(daiKey, wad);
      }
      if (wad > debtWad) wad = debtWad;
      let dart = (wad * RAY) / r.rate;
      if (dart >= urn.art) dart = urn.art;
      else if ((urn.art - dart) * r.rate < r.dust) return;
      if (dart === 0n) return;
      agent.plan(this.m.dai.toLowerCase(), -wad);
      this.wipe(agent, vault.ilk, wad, dart);
      this.s.stats.repaid++;
      return;
    }
    if (ratio > vault.target * (vault.watchful ? 1.15 : RELEVER)) {
      // The price rose (or a repayment left room): draw back down to the target. The owners who do not watch their
      // ratio re-lever sooner, as leverage seekers do, so a later crash finds them near their target.
      const dart = this.dartFor(urn.ink, price, r, vault.target) - urn.art;
      if (dart <= 0n || !this.withinCeiling(ilk.ilk, r, dart)) return;
      this.lockAndDraw(agent, ilk, 0n, dart);
      this.exitDai(agent, (dart * r.rate) / RAY);
      this.sellDrawn(agent, (dart * r.rate) / RAY, reading);
    }
  }

  // --- the DAI/USDC pair ---------------------------------------------------------------------------------------

  /** An owner sells part of the DAI it just drew (in the same block: the exit comes first). */
  private sellDrawn(agent: Agent, wad: bigint, reading: MakerReading): void {
    const pm = this.pairMaker;
    if (!pm || !reading.pair || !pm.rng.chance(SELL_DRAWN.chance)) return;
    agent.plan(this.m.dai.toLowerCase(), wad);
    const share = BigInt(Math.round(pm.rng.uniform(SELL_DRAWN.min, SELL_DRAWN.max) * 1000));
    pm.pair.sell(agent, (wad * share) / 1000n, reading.pair);
  }

  /** Owners' trades on the pair now and then: sell DAI they hold, or buy some. */
  private pairTrades(reading: MakerReading, hours: number): void {
    const pm = this.pairMaker;
    if (!pm || !reading.pair) return;
    const trades = pm.rng.poisson(PAIR_TRADES_PER_HOUR * Math.sqrt(this.host.scale) * hours);
    for (let t = 0; t < trades; t++) {
      const agent = this.agents[1 + pm.rng.int(this.agents.length - 1)]!;
      const wad = BigInt(Math.round(pm.rng.logNormal(PAIR_TRADE_USD.median, PAIR_TRADE_USD.sigma))) * WAD;
      if (pm.rng.chance(0.5) && agent.available(this.m.dai.toLowerCase()) > 0n) pm.pair.sell(agent, wad, reading.pair);
      else pm.pair.buy(agent, wad, reading.pair);
    }
  }

  /** Seeds the pair at the first step it can, then keeps DAI within the band by drawing and selling, or buying and repaying. */
  private makeMarket(reading: MakerReading, prices: ReadonlyMap<string, bigint>, hours: number): void {
    const pm = this.pairMaker;
    const state = this.s.pairMaker;
    const ilk = this.pairIlk;
    const r = reading.ilks.get(ilk.ilk);
    const price = prices.get(ilk.token);
    if (!pm || !state || !r || price === undefined || !reading.pairVault) return;
    if (!state.seeded) {
      this.seedPair(pm, r, price);
      return;
    }
    const pair = reading.pair;
    if (!pair) return;
    const peg = pm.pair.peg(pair);
    const cap = (Number(pair.stable) / 1e18) * PEG_CAP_SHARE * hours;
    const agent = pm.agent;
    const daiKey = this.m.dai.toLowerCase();
    if (peg > 1 + PEG_BAND) {
      const units = Math.min(cap, pm.pair.toPrice(pair, 1 + PEG_BAND / 2).units);
      const wad = pm.pair.raw(true, units);
      if (wad <= 0n) return;
      // Enough collateral for the vault to stay at its ratio with the new debt.
      const debtWad = (reading.pairVault.art * r.rate) / RAY + wad;
      const wantInk = this.units(ilk.token, (Number(debtWad) / 1e18) * PAIR_VAULT_RATIO, price);
      const dink = wantInk > reading.pairVault.ink ? wantInk - reading.pairVault.ink : 0n;
      const dart = (wad * RAY + r.rate - 1n) / r.rate;
      if (!this.withinCeiling(ilk.ilk, r, dart)) return;
      this.lockAndDraw(agent, ilk, dink, dart);
      this.exitDai(agent, wad);
      agent.plan(daiKey, wad);
      pm.pair.swap(agent, true, wad, pair);
      state.stats.pegSells++;
    } else if (peg < 1 - PEG_BAND) {
      const units = Math.min(cap, pm.pair.toPrice(pair, 1 - PEG_BAND / 2).units);
      const usdc = pm.pair.raw(false, units);
      if (usdc <= 0n) return;
      const bought = pm.pair.swap(agent, false, usdc, pair);
      // Repays with what it bought (all of the debt at most; never leaving less than the dust).
      const art = reading.pairVault.art;
      let dart = (bought * RAY) / r.rate;
      if (dart >= art) dart = art;
      else if ((art - dart) * r.rate < r.dust) return;
      if (dart === 0n) return;
      const wad = (dart * r.rate + RAY - 1n) / RAY;
      this.wipe(agent, ilk.ilk, wad, dart);
      agent.plan(daiKey, bought - wad);
      state.stats.pegBuys++;
    }
  }

  /** Pays `wad` DAI back into the Vat (`DaiJoin.join`) and wipes `dart` of the vault's normalised debt (negative `frob`). */
  private wipe(agent: Agent, ilk: string, wad: bigint, dart: bigint): void {
    this.host.approve(agent, this.m.dai, this.m.daiJoin);
    this.send(
      agent,
      this.m.daiJoin,
      encodeFunctionData({ abi: daiJoinAbi, functionName: 'join', args: [agent.address, wad] }),
      'lend',
    );
    const frob = encodeFunctionData({
      abi: vatAbi,
      functionName: 'frob',
      args: [ilkBytes(ilk), agent.address, agent.address, agent.address, 0n, -dart],
    });
    this.send(agent, this.m.vat, frob, 'lend');
  }

  /** The market maker's vault and the pair's seed: DAI drawn against ETH-A and as much USDC, added 1:1. */
  private seedPair(pm: NonNullable<MakerActors['pairMaker']>, r: IlkReading, price: bigint): void {
    const ilk = this.pairIlk;
    const agent = pm.agent;
    const seedUsd = Math.round(PAIR_SEED_USD * Math.sqrt(this.host.scale));
    const wad = BigInt(seedUsd) * WAD;
    const dart = (wad * RAY + r.rate - 1n) / r.rate;
    // The governance raises ETH-A's ceiling at the first step (`deploy.ts`, `CEILINGS`): the seed waits for it.
    if (!this.withinCeiling(ilk.ilk, r, dart)) return;
    this.lockAndDraw(agent, ilk, this.units(ilk.token, seedUsd * PAIR_VAULT_RATIO, price), dart);
    this.exitDai(agent, wad);
    const usdc = BigInt(seedUsd) * 10n ** BigInt(pm.pair.ref.usdcDecimals);
    this.host.spend(agent, 'USDC', usdc);
    this.host.approve(agent, this.m.dai, pm.pair.ref.router);
    this.host.approve(agent, pm.pair.ref.usdc, pm.pair.ref.router);
    this.send(
      agent,
      pm.pair.ref.router,
      encodeFunctionData({
        abi: routerAbi,
        functionName: 'addLiquidity',
        args: [this.m.dai, pm.pair.ref.usdc, wad, usdc, wad, usdc, agent.address, BigInt(this.host.now + 3600)],
      }),
      'lp-add',
      GAS_OF.addLiquidity,
    );
    this.s.pairMaker!.seeded = true;
  }
}
