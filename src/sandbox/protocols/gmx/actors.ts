/**
 * GMX v2's actors on the Arbitrum sandbox chain, from their own random stream (`gmx`), in each of the chain's blocks:
 *
 * 1. the keeper (the deployer) sets the oracle's prices: the world's prices of the block (the synthetic BTC at
 *    WBTC's), one basis point either side;
 * 2. it liquidates every position the chain as the last block left it flags (`positionStates`); the engine
 *    re-checks at the new prices and leaves a position that became healthy alone;
 * 3. traders open, increase, decrease and close longs and shorts on every market (a Poisson number of actions per
 *    market, `TRADES_PER_HOUR` an hour at scale 1: few, to keep the chain's catch-up cheap), with leverage from 2×
 *    to 25×: the world's ETH crash liquidates the most leveraged longs;
 * 4. the liquidity provider deposits into a market token now and then (`DEPOSITS_PER_HOUR`).
 *
 * Everything is drawn from the saved generator and the chain's state: same seed, same chain; resumed from the saved
 * state after a stop.
 */
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import type { Agent } from '../../chain/agent.js';
import { pow } from '../../world/pow.js';
import { Rng, type RngState } from '../../world/random.js';
import type { WorldHost } from '../protocol.js';
import { gmxAbi } from './deploy.js';
import { GMX_KEYS, positionKeyOf } from './keys.js';
import { type GmxMarket, type GmxSection, gmxPrice } from './section.js';

export const TRADES_PER_HOUR = 1.5;
export const DEPOSITS_PER_HOUR = 0.2;
const GAS_TRADE = 3_000_000n;
const GAS_PRICES = 1_500_000n;
const FLOAT = 10n ** 30n;

/** A position a trader holds (as far as it knows: the keeper may have liquidated it). */
export interface GmxPositionState {
  /** Index into `agents`. */
  readonly trader: number;
  /** Index into the section's markets. */
  readonly market: number;
  /** Collateral in the market's long token (else its short token). */
  readonly longCollateral: boolean;
  readonly isLong: boolean;
  /** GMX's position key. */
  readonly key: Hex;
}

export interface GmxRuntimeState {
  rng: RngState;
  /** Indices into `agents`. */
  readonly traders: number[];
  readonly lp: number;
  positions: GmxPositionState[];
  stats: { priceUpdates: number; increases: number; decreases: number; liquidations: number; deposits: number };
}

export interface GmxReading {
  /** Sizes (USD, 30 decimals) of the tracked positions, in `positions` order. */
  readonly sizes: readonly bigint[];
  /** Keys of every open position the keeper may liquidate at the last block's prices. */
  readonly liquidatable: readonly Hex[];
}

/** Poisson draw (Knuth; small means only). */
function poisson(rng: Rng, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rng.next();
  while (p > limit) {
    k += 1;
    p *= rng.next();
  }
  return k;
}

export class GmxActors {
  private readonly rng: Rng;
  private readonly keeper: Agent;

  constructor(
    private readonly section: GmxSection,
    private readonly state: GmxRuntimeState,
    private readonly host: WorldHost,
  ) {
    this.rng = new Rng(state.rng);
    const keeper = host.agents.find((a) => a.address.toLowerCase() === section.keeper.toLowerCase());
    if (!keeper) throw new Error('gmx: the keeper is not among the agents');
    this.keeper = keeper;
  }

  private async call<T>(to: Address, functionName: string, args: readonly unknown[]): Promise<T> {
    const data = encodeFunctionData({ abi: gmxAbi, functionName, args } as never);
    const out = await this.host.session.rpc.request<Hex>('eth_call', [{ to, data }, 'latest']);
    return decodeFunctionResult({ abi: gmxAbi, functionName, data: out } as never) as T;
  }

  async read(): Promise<GmxReading> {
    const s = this.section;
    const count = await this.call<bigint>(s.dataStore, 'getBytes32Count', [GMX_KEYS.POSITION_LIST]);
    const open =
      count > 0n
        ? await this.call<readonly Hex[]>(s.dataStore, 'getBytes32ValuesAt', [GMX_KEYS.POSITION_LIST, 0n, count])
        : [];
    const keys = [...this.state.positions.map((p) => p.key), ...open];
    const [sizes, , liquidatable] =
      keys.length > 0
        ? await this.call<readonly [readonly bigint[], readonly bigint[], readonly boolean[]]>(
            s.marketEngine,
            'positionStates',
            [keys],
          )
        : [[], [], []];
    const tracked = this.state.positions.length;
    return {
      sizes: sizes.slice(0, tracked),
      liquidatable: open.filter((_, i) => liquidatable[tracked + i]),
    };
  }

  step(reading: GmxReading, from: number, to: number): void {
    const hours = (to - from) / 3600;
    // Positions the keeper liquidated are gone.
    this.state.positions = this.state.positions.filter((_, i) => (reading.sizes[i] ?? 0n) > 0n);
    this.setPrices();
    for (const key of reading.liquidatable) {
      this.host.session.send(this.keeper, {
        to: this.section.marketEngine,
        data: encodeFunctionData({ abi: gmxAbi, functionName: 'liquidate', args: [key] }),
        gas: GAS_TRADE,
        kind: 'liquidation',
      });
      this.state.stats.liquidations += 1;
      this.state.positions = this.state.positions.filter((p) => p.key !== key);
    }
    this.section.markets.forEach((m, i) => {
      const n = poisson(this.rng, TRADES_PER_HOUR * this.host.scale * hours);
      for (let k = 0; k < n; k++) this.trade(m, i);
    });
    if (this.rng.chance(Math.min(1, DEPOSITS_PER_HOUR * hours))) this.deposit();
  }

  save(): void {
    this.state.rng = this.rng.state();
  }

  /** The world's USD price of a GMX token at the block. */
  private priceUsd(symbol: string): number {
    const t = this.section.tokens.find((x) => x.symbol === symbol);
    const price = t && this.host.state.prices[t.priceSymbol];
    if (!price) throw new Error(`gmx: no world price for ${symbol}`);
    return price;
  }

  private setPrices(): void {
    const tokens = this.section.tokens;
    const prices = tokens.map((t) => gmxPrice(this.priceUsd(t.symbol), t.decimals));
    this.host.session.send(this.keeper, {
      to: this.section.oracle,
      data: encodeFunctionData({
        abi: gmxAbi,
        functionName: 'setPrices',
        args: [tokens.map((t) => t.address), prices.map((p) => p.min), prices.map((p) => p.max)],
      }),
      gas: GAS_PRICES,
      kind: 'oracle',
    });
    this.state.stats.priceUpdates += 1;
  }

  private trade(m: GmxMarket, market: number): void {
    const rng = this.rng;
    const trader = this.state.traders[rng.int(this.state.traders.length)]!;
    const isLong = rng.chance(0.5);
    const longCollateral = m.longToken === m.shortToken || rng.chance(0.5);
    const held = this.state.positions.find(
      (p) => p.trader === trader && p.market === market && p.isLong === isLong && p.longCollateral === longCollateral,
    );
    const agent = this.host.agents[trader]!;
    const collateralSymbol = longCollateral ? m.longSymbol : m.shortSymbol;
    const collateralToken = longCollateral ? m.longToken : m.shortToken;
    const action = held ? rng.next() : 0;
    if (!held || action < 0.4) {
      // Open or increase: size log-normal around $20k, leverage 2× to 25×, collateral at the block's price (+1 %
      // for the fees).
      const sizeUsd = Math.min(rng.logNormal(20_000, 1), 500_000) * this.host.scale;
      const leverage = rng.uniform(2, 25);
      const view = this.host.token(collateralSymbol);
      const collateral = BigInt(
        Math.ceil(((sizeUsd / leverage) * 1.01 * pow(10, view.m.decimals)) / this.priceUsd(collateralSymbol)),
      );
      this.host.spend(agent, view, collateral);
      this.host.approve(agent, view.m.address, this.section.marketEngine);
      this.send(agent, 'increasePosition', [
        m.marketToken,
        collateralToken,
        isLong,
        collateral,
        BigInt(Math.round(sizeUsd)) * FLOAT,
      ]);
      this.state.stats.increases += 1;
      if (!held) {
        this.state.positions.push({
          trader,
          market,
          longCollateral,
          isLong,
          key: positionKeyOf(agent.address as Address, m.marketToken, collateralToken, isLong),
        });
      }
      return;
    }
    // Decrease: half of it, or a close (the engine caps the size at the position's).
    const close = action >= 0.75;
    const sizeUsd = close ? 10n ** 60n : BigInt(Math.round(rng.logNormal(10_000, 1) * this.host.scale)) * FLOAT;
    this.send(agent, 'decreasePosition', [m.marketToken, collateralToken, isLong, sizeUsd]);
    this.state.stats.decreases += 1;
    if (close) this.state.positions = this.state.positions.filter((p) => p !== held);
  }

  private deposit(): void {
    const m = this.section.markets[this.rng.int(this.section.markets.length)]!;
    const agent = this.host.agents[this.state.lp]!;
    const dollars = this.rng.logNormal(200_000, 0.7) * this.host.scale;
    const amounts = [m.longSymbol, m.shortSymbol].map((symbol, i) => {
      if (i === 1 && m.longToken === m.shortToken) return 0n;
      const view = this.host.token(symbol);
      const share = m.longToken === m.shortToken ? 1 : 0.5;
      const amount = BigInt(Math.floor(((dollars * share) / this.priceUsd(symbol)) * pow(10, view.m.decimals)));
      this.host.spend(agent, view, amount);
      this.host.approve(agent, view.m.address, this.section.marketFactory);
      return amount;
    });
    this.host.session.send(agent, {
      to: this.section.marketFactory,
      data: encodeFunctionData({
        abi: gmxAbi,
        functionName: 'deposit',
        args: [m.marketToken, amounts[0]!, amounts[1]!],
      }),
      gas: GAS_TRADE,
      kind: 'lp-add',
    });
    this.state.stats.deposits += 1;
  }

  private send(agent: Agent, functionName: 'increasePosition' | 'decreasePosition', args: readonly unknown[]): void {
    this.host.session.send(agent, {
      to: this.section.marketEngine,
      data: encodeFunctionData({ abi: gmxAbi, functionName, args } as never),
      gas: GAS_TRADE,
      kind: 'lend',
    });
  }
}
