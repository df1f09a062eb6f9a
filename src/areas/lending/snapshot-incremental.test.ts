import { describe, expect, it } from 'vitest';
import type { EvmSource } from '../../sources/evm/index.js';
import { STATE_CALL_BATCH } from '../../sources/evm/index.js';
import type { MarketSnapshot } from './facts.js';
import { aaveAccountData, rayMul, readAaveSnapshot } from './ingest-snapshot.js';
import { incrementalAccounts, type ParticipationRow, participantsOf } from './participants.js';
import type { LendingMarketTarget } from './targets.js';

/**
 * Issue 30: "a lending snapshot after one block reads only the changed accounts", on an Aave market of N accounts (a
 * parameter) read through a fake multicall that counts the calls. The fake holds each account's scaled balances and
 * configuration and each reserve's indices and price, and answers balances as the aToken does (scaled × index).
 */

const RAY = 10n ** 27n;
const POOL = '0x00000000000000000000000000000000000000b0';
const PROVIDER = '0x00000000000000000000000000000000000000b1';
const ORACLE = '0x00000000000000000000000000000000000000b2';
const TREASURY = `0x${'fe'.repeat(20)}`;
const USDC = '0x00000000000000000000000000000000000000a1';
const WETH = '0x00000000000000000000000000000000000000e1';
const token = (kind: number, reserve: number) => `0x00000000000000000000000000000000000${kind}${reserve}00`;

const market: LendingMarketTarget = {
  chain: 'ethereum',
  protocol: 'aave',
  version: 'V3',
  baseAsset: 'USDC',
  marketName: 'Ethereum Market',
  design: 'aave-v3',
  pool: POOL,
  assets: [
    { address: USDC, symbol: 'USDC', decimals: 6 },
    { address: WETH, symbol: 'WETH', decimals: 18 },
  ],
};

/** LTV 80 %, threshold 82.5 %, bonus 5 %, decimals, active, borrowing enabled (Aave's bitmap). */
const configuration = (decimals: bigint) =>
  8000n | (8250n << 16n) | (10500n << 32n) | (decimals << 48n) | (1n << 56n) | (1n << 58n);

interface Account {
  /** Scaled aToken balance in USDC (reserve 0) and scaled WETH debt (reserve 1). */
  scaledUsdc: bigint;
  scaledWethDebt: bigint;
}

/** An Aave market's chain state and a multicall over it that counts per-account reads. */
class FakeAave {
  readonly accounts = new Map<string, Account>();
  income = [RAY, RAY];
  debtIndex = [RAY, RAY];
  prices = [100_000_000n, 300_000_000_000n];
  /** getUserConfiguration calls answered (one per account read) and multicall requests. */
  accountReads = 0;
  requests = 0;
  private readonly assets = [USDC, WETH];

  constructor(n: number) {
    for (let i = 0; i < n; i++) {
      this.accounts.set(`0x${(i + 1).toString(16).padStart(40, '0')}`, {
        scaledUsdc: BigInt(1_000 + i) * 10n ** 6n,
        scaledWethDebt: i % 3 === 0 ? BigInt(100 + i) * 10n ** 14n : 0n,
      });
    }
  }

  configurationOf(a: Account): bigint {
    return (a.scaledUsdc > 0n ? 1n << 1n : 0n) | (a.scaledWethDebt > 0n ? 1n << 2n : 0n);
  }

  private reserves() {
    return new Map(
      this.assets.map((asset, i) => [
        asset,
        {
          id: i,
          configuration: configuration(i === 0 ? 6n : 18n),
          price: this.prices[i],
          income: this.income[i],
          debtIndex: this.debtIndex[i],
        },
      ]),
    );
  }

  private call(c: { address: string; functionName: string; args?: readonly unknown[] }): unknown {
    const r = this.assets.indexOf(String(c.args?.[0] ?? ''));
    const user = this.accounts.get(String(c.args?.[0] ?? ''));
    const of = (address: string) => [0, 1].find((i) => [1, 2, 3].some((k) => token(k, i) === address)) ?? -1;
    switch (c.functionName) {
      case 'getReservesList':
        return this.assets;
      case 'ADDRESSES_PROVIDER':
        return PROVIDER;
      case 'getPriceOracle':
        return ORACLE;
      case 'getReserveData':
        return {
          configuration: { data: configuration(r === 0 ? 6n : 18n) },
          currentLiquidityRate: 3n * 10n ** 25n,
          currentVariableBorrowRate: 5n * 10n ** 25n,
          id: r,
          aTokenAddress: token(1, r),
          stableDebtTokenAddress: token(2, r),
          variableDebtTokenAddress: token(3, r),
          interestRateStrategyAddress: token(4, r),
          isolationModeTotalDebt: 0n,
        };
      case 'getAssetPrice':
        return this.prices[r];
      case 'symbol':
        return 'X';
      case 'BASE_CURRENCY_UNIT':
        return 10n ** 8n;
      case 'totalSupply':
        return 10n ** 24n;
      case 'OPTIMAL_USAGE_RATIO':
      case 'getBaseVariableBorrowRate':
      case 'getVariableRateSlope1':
      case 'getVariableRateSlope2':
        return 10n ** 26n;
      case 'getReserveNormalizedIncome':
        return this.income[r];
      case 'getReserveNormalizedVariableDebt':
        return this.debtIndex[r];
      case 'RESERVE_TREASURY_ADDRESS':
        return TREASURY;
      case 'getUserConfiguration':
        this.accountReads++;
        return { data: user ? this.configurationOf(user) : 0n };
      case 'getUserEMode':
        return 0n;
      case 'getUserAccountData': {
        if (!user) return [0n, 0n, 0n, 0n, 0n, (1n << 256n) - 1n];
        const d = aaveAccountData(
          {
            account: String(c.args![0]),
            configuration: this.configurationOf(user),
            eMode: 0,
            scaledSupplied: { [USDC]: user.scaledUsdc.toString() },
            scaledBorrowed: { [WETH]: user.scaledWethDebt.toString() },
          },
          this.reserves(),
          new Map(),
        );
        return [d.collateralBase, d.debtBase, 0n, 0n, 0n, d.healthFactor];
      }
      case 'scaledBalanceOf':
      case 'balanceOf': {
        const holder = this.accounts.get(String(c.args![0]));
        const reserve = of(c.address);
        const kind = [1, 2, 3].find((k) => token(k, reserve) === c.address);
        if (!holder || kind === 2) return 0n;
        const scaled =
          kind === 1 ? (reserve === 0 ? holder.scaledUsdc : 0n) : reserve === 1 ? holder.scaledWethDebt : 0n;
        if (c.functionName === 'scaledBalanceOf') return scaled;
        return rayMul(scaled, kind === 1 ? this.income[reserve]! : this.debtIndex[reserve]!);
      }
      default:
        throw new Error(`fake Aave: unexpected ${c.functionName}`);
    }
  }

  readonly source = {
    multicall: async (args: { contracts: readonly { address: string; functionName: string; args?: unknown[] }[] }) => {
      this.requests++;
      if (args.contracts.length > STATE_CALL_BATCH) throw new Error('more calls than a batch');
      return args.contracts.map((c) => ({ status: 'success', result: this.call(c) }));
    },
  } as unknown as EvmSource;

  /** The event rows that named every account (a Supply of USDC; a Borrow of WETH for the borrowers). */
  rows(): ParticipationRow[] {
    return [...this.accounts].flatMap(([account, a]) => [
      { kind: 'supply', market_id: '', account, actor: account, asset: USDC },
      ...(a.scaledWethDebt > 0n ? [{ kind: 'borrow', market_id: '', account, actor: account, asset: WETH }] : []),
    ]);
  }
}

const byAccount = (s: MarketSnapshot) => new Map(s.positions.map((p) => [p.account, p]));

describe.each([1_000, 10_000])('a lending snapshot after one block, on an Aave market of %i accounts', (n) => {
  it('reads only the k accounts events touched (+ market state); the daily full read reads all N', async () => {
    const chain = new FakeAave(n);
    const history = chain.rows();
    const full0 = await readAaveSnapshot(
      chain.source,
      market,
      { participants: participantsOf(history) },
      {
        number: 10,
        timestamp: 1_000,
      },
    );
    expect(chain.accountReads).toBe(n);
    expect(Object.keys(full0.carry!)).toHaveLength(n);

    // One block: interest accrues to everyone (indices up), WETH's price moves, k accounts supply / repay / transfer.
    chain.income = [(RAY * 1_0001n) / 10_000n, (RAY * 1_0002n) / 10_000n];
    chain.debtIndex = [(RAY * 1_0003n) / 10_000n, (RAY * 1_0005n) / 10_000n];
    chain.prices = [99_990_000n, 240_000_000_000n];
    const keys = [...chain.accounts.keys()];
    const [supplier, repayer, sender, receiver] = [keys[5]!, keys[3]!, keys[7]!, keys[8]!];
    chain.accounts.get(supplier)!.scaledUsdc += 5n * 10n ** 6n;
    chain.accounts.get(repayer)!.scaledWethDebt = 0n;
    chain.accounts.get(sender)!.scaledUsdc -= 10n ** 6n;
    chain.accounts.get(receiver)!.scaledUsdc += 10n ** 6n;
    const newcomer = `0x${'ab'.repeat(20)}`;
    chain.accounts.set(newcomer, { scaledUsdc: 7n * 10n ** 6n, scaledWethDebt: 0n });
    const since: ParticipationRow[] = [
      { kind: 'supply', market_id: '', account: supplier, actor: supplier, asset: USDC },
      { kind: 'repay', market_id: '', account: repayer, actor: repayer, asset: WETH },
      { kind: 'transfer', market_id: '', account: receiver, actor: sender, asset: USDC },
      { kind: 'supply', market_id: '', account: newcomer, actor: newcomer, asset: USDC },
    ];
    const k = 5;

    chain.accountReads = 0;
    const requestsBefore = chain.requests;
    const incremental = await readAaveSnapshot(chain.source, market, incrementalAccounts(full0.carry!, since), {
      number: 11,
      timestamp: 1_012,
    });
    expect(chain.accountReads).toBe(k);
    // Market state: 5 requests (list and provider, oracle, reserves and prices, totals and curves, indices and
    // treasuries; no E-mode category in use); accounts: the k in one batch.
    expect(chain.requests - requestsBefore).toBe(6);

    // The daily reconciliation: a full read of the same block reads all N + 1, and publishes the same figures.
    chain.accountReads = 0;
    const full1 = await readAaveSnapshot(
      chain.source,
      market,
      { participants: participantsOf([...history, ...since]) },
      { number: 11, timestamp: 1_012 },
    );
    expect(chain.accountReads).toBe(n + 1);
    expect(incremental.positions).toEqual(full1.positions);
    expect(incremental.carry).toEqual(full1.carry);

    // The carried accounts moved with interest and price without a read.
    const before = byAccount(full0);
    const after = byAccount(incremental);
    const borrower = keys[0]!;
    expect(after.get(borrower)!.borrowed[WETH]).not.toBe(before.get(borrower)!.borrowed[WETH]);
    expect(after.get(borrower)!.healthFactor!).toBeGreaterThan(before.get(borrower)!.healthFactor!);
    expect(after.has(newcomer)).toBe(true);
    expect(after.get(repayer)!.borrowed).toEqual({});
  });
});

describe('aaveAccountData', () => {
  it('derives getUserAccountData as Aave V3.0 does: floor per reserve, average threshold, half-up percentMul/wadDiv', () => {
    const reserves = new Map([
      [USDC, { id: 0, configuration: configuration(6n), price: 100_000_000n, income: RAY, debtIndex: RAY }],
      [WETH, { id: 1, configuration: configuration(18n), price: 200_000_000_000n, income: RAY, debtIndex: RAY }],
    ]);
    // 1,000 USDC of collateral (82.5 %), 0.25 WETH of debt at 2,000: HF = 825 / 500 = 1.65.
    const d = aaveAccountData(
      {
        account: '0x1',
        configuration: 0b110n,
        eMode: 0,
        scaledSupplied: { [USDC]: '1000000000' },
        scaledBorrowed: { [WETH]: (25n * 10n ** 16n).toString() },
      },
      reserves,
      new Map(),
    );
    expect(d).toEqual({ collateralBase: 100_000_000_000n, debtBase: 50_000_000_000n, healthFactor: 165n * 10n ** 16n });
    // Without any flag: nothing, and the maximal health factor.
    expect(
      aaveAccountData(
        { account: '0x1', configuration: 0n, eMode: 0, scaledSupplied: {}, scaledBorrowed: {} },
        reserves,
        new Map(),
      ).healthFactor,
    ).toBe((1n << 256n) - 1n);
    // An E-mode category with its own threshold (95 %) and price applies to the assets of the category only.
    const inCategory = new Map([
      ...reserves,
      [WETH, { ...reserves.get(WETH)!, configuration: configuration(18n) | (1n << 168n) }],
    ]);
    const e = aaveAccountData(
      {
        account: '0x1',
        configuration: 0b1000n | 0b10n,
        eMode: 1,
        scaledSupplied: { [USDC]: '1000000000', [WETH]: (10n ** 18n).toString() },
        scaledBorrowed: {},
      },
      inCategory,
      new Map([[1, { liquidationThreshold: 9500, price: 100_000_000_000n }]]),
    );
    // 1,000 USDC at 82.5 % and 1 WETH priced by the category at 1,000 and 95 %.
    expect(e.collateralBase).toBe(200_000_000_000n);
    expect(e.debtBase).toBe(0n);
    expect(() =>
      aaveAccountData(
        { account: '0x1', configuration: 0b10n, eMode: 2, scaledSupplied: {}, scaledBorrowed: {} },
        reserves,
        new Map(),
      ),
    ).toThrow(/E-mode category 2/);
  });
});
