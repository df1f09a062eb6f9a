import {
  type Address,
  createPublicClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  parseEventLogs,
  parseUnits,
} from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../../test/support/anvil.js';
import { type Agent, agentPrivateKey, DEPLOYER_PRIVATE_KEY, signerAgent } from '../../chain/agent.js';
import type { Anvil } from '../../chain/anvil.js';
import { createdAddress, erc20Abi, mintableErc20Abi, tokenArtifacts } from '../../chain/artifacts.js';
import { ChainSession } from '../../chain/session.js';
import {
  aaveArtifacts,
  aaveDataProviderAbi,
  aaveErrorName,
  aavePoolAbi,
  libraryOrder,
  linkBytecode,
} from './artifacts.js';
import { deployAaveMarket, queueAaveMarket } from './deploy.js';
import {
  AAVE_V3_ETHEREUM_PARAMS,
  type AaveDeployment,
  type AaveMarket,
  type AaveReserveSpec,
  VARIABLE_RATE_MODE,
} from './params.js';
import { describeRevertData, explainRevert } from './revert.js';

// ---- pure parts ----------------------------------------------------------------------------------------------------

describe('aave artifacts', () => {
  it('links every library before the libraries and contracts that call it', () => {
    const a = aaveArtifacts();
    const order = libraryOrder(a.libraries);
    expect(new Set(order)).toEqual(
      new Set([
        'BorrowLogic',
        'BridgeLogic',
        'ConfiguratorLogic',
        'EModeLogic',
        'FlashLoanLogic',
        'LiquidationLogic',
        'PoolLogic',
        'SupplyLogic',
      ]),
    );
    expect(order.indexOf('BorrowLogic')).toBeLessThan(order.indexOf('FlashLoanLogic'));
    expect(Object.keys(a.pool.links)).toHaveLength(7);
    expect(Object.keys(a.poolConfigurator.links)).toEqual(['ConfiguratorLogic']);
  });

  it('names the numeric revert codes from the package’s Errors.sol', () => {
    expect(aaveErrorName('36')).toBe('COLLATERAL_CANNOT_COVER_NEW_BORROW');
    expect(aaveErrorName('45')).toBe('HEALTH_FACTOR_NOT_BELOW_THRESHOLD');
    expect(aaveErrorName('999')).toBeUndefined();
    // Error("36")
    const data: Hex =
      '0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000023336000000000000000000000000000000000000000000000000000000000000';
    expect(describeRevertData(data)).toBe('36 COLLATERAL_CANNOT_COVER_NEW_BORROW');
  });
});

describe('market plans', () => {
  const spec = (overrides: Partial<AaveReserveSpec> = {}): AaveReserveSpec => ({
    ...AAVE_V3_ETHEREUM_PARAMS.WETH,
    symbol: 'WETH',
    token: '0x00000000000000000000000000000000000000aa',
    decimals: 18,
    priceSource: '0x00000000000000000000000000000000000000bb',
    ...overrides,
  });
  // Nothing reaches a node: the plan is checked before the first transaction is queued.
  const queue = (protocol: string, reserves: AaveReserveSpec[]) =>
    queueAaveMarket(new ChainSession('http://127.0.0.1:9', 31337), signerAgent(DEPLOYER_PRIVATE_KEY, 0), {
      protocol,
      reserves,
    });

  it('refuses what the registry does not list and what the configurator would reject with a bare code', () => {
    expect(() => queue('uniswap', [spec()])).toThrow(/no aave-v3 market of uniswap/);
    expect(() => queue('aave', [spec({ symbol: 'PEPE' })])).toThrow(/PEPE: not a listed asset/);
    expect(() => queue('aave', [spec({ ltvBps: 9000 })])).toThrow(/LTV above the liquidation threshold/);
    expect(() => queue('aave', [spec({ liquidationBonusBps: 12_500 })])).toThrow(/threshold × bonus/);
    expect(() => queue('aave', [spec(), spec()])).toThrow(/listed twice/);
  });

  it('knows every address before the block is mined', () => {
    const session = new ChainSession('http://127.0.0.1:9', 31337);
    const deployer = signerAgent(DEPLOYER_PRIVATE_KEY, 7);
    const market = queueAaveMarket(session, deployer, { protocol: 'aave', reserves: [spec()] });
    expect(market.transactions).toBe(session.queued);
    expect(deployer.state.nonce).toBe(7 + market.transactions);
    // The provider is the first contract after the eight libraries; the Pool proxy is the provider's first CREATE.
    expect(market.addressesProvider).toBe(createdAddress(deployer.address, 7 + 8));
    expect(market.pool).toBe(createdAddress(market.addressesProvider, 1));
    expect(market.reserves[0]!.aToken).toBe(createdAddress(market.poolConfigurator, 1));
  });

  it('links bytecode only when every library is known', () => {
    const { pool } = aaveArtifacts();
    expect(() => linkBytecode(pool, {})).toThrow(/library \w+Logic is not deployed/);
    const libraries = Object.fromEntries(
      Object.keys(pool.links).map((name, i) => [name, `0x${(i + 1).toString(16).padStart(40, '0')}` as Address]),
    );
    const linked = linkBytecode(pool, libraries);
    expect(linked).not.toContain('__$');
    expect(linked.length).toBe(pool.bytecode.length);
  });
});

// ---- on a chain ----------------------------------------------------------------------------------------------------

const GENESIS = 1_700_000_000;
const DAY = 86_400;
const WAD = 10n ** 18n;
const RAY = 10n ** 27n;

/** Test prices (USD, 8 decimals as Chainlink): the sandbox's starting prices. */
const PRICES = { USDC: 1, DAI: 1, WETH: 3000, WBTC: 60_000 } as const;
const DECIMALS = { USDC: 6, DAI: 18, WETH: 18, WBTC: 8 } as const;
type Asset = keyof typeof PRICES;
const SYMBOLS = Object.keys(PRICES) as Asset[];
/** WETH falls 3000 → 2800 (−6.7 %): dave's health factor drops to 0.98, inside the 50 % close-factor band (> 0.95). */
const SHOCKED_WETH = 2800;

const amount = (symbol: Asset, value: number | string) => parseUnits(String(value), DECIMALS[symbol]);
const percentMul = (a: bigint, bps: bigint) => (a * bps + 5000n) / 10_000n;
const wadDiv = (a: bigint, b: bigint) => (a * WAD + b / 2n) / b;
const rayMul = (a: bigint, b: bigint) => (a * b + RAY / 2n) / RAY;
const rayDiv = (a: bigint, b: bigint) => (a * RAY + b / 2n) / b;

const anvils = useAnvils();

describe('Aave V3 markets on anvil', () => {
  let anvil: Anvil;
  let session: ChainSession;
  let clock = GENESIS + 60;
  const tokens = {} as Record<Asset, Address>;
  const feeds = {} as Record<Asset, Address>;
  let aave: AaveDeployment;
  let spark: AaveDeployment;
  const timings: Record<string, number> = {};

  const client = () => createPublicClient({ transport: http(anvil.rpcUrl, { batch: true }) });

  /** Mines the queued transactions in one block 12 s (or `seconds`) later; any revert fails with its Aave code. */
  async function mine(seconds = 12): Promise<number> {
    clock += seconds;
    const outcome = await session.mine(clock);
    if (outcome.revertedUnexpected > 0) {
      const why = await Promise.all(outcome.unexpected.map((u) => explainRevert(anvil.rpcUrl, u.hash)));
      throw new Error(`reverted: ${why.join(', ')}`);
    }
    return outcome.transactions;
  }

  const send = (agent: Agent, to: Address, data: Hex, gas = 1_500_000n) =>
    session.send(agent, { to, data, gas, kind: 'setup' });

  /** The revert reason of a call that must fail (no transaction: eth_call). */
  async function revertOf(from: Address, to: Address, data: Hex): Promise<string | undefined> {
    const [response] = await session.rpc.batch([{ method: 'eth_call', params: [{ from, to, data }, 'latest'] }]);
    const error = response?.error as { data?: Hex } | undefined;
    return describeRevertData(error?.data);
  }

  async function userReserve(market: AaveMarket, symbol: Asset, user: Address) {
    const [aTokenBalance, , variableDebt, , scaledVariableDebt, , , , collateral] = await client().readContract({
      address: market.dataProvider,
      abi: aaveDataProviderAbi,
      functionName: 'getUserReserveData',
      args: [tokens[symbol], user],
    });
    return { aTokenBalance, variableDebt, scaledVariableDebt, collateral };
  }

  async function reserveData(market: AaveMarket, symbol: Asset) {
    const r = await client().readContract({
      address: market.dataProvider,
      abi: aaveDataProviderAbi,
      functionName: 'getReserveData',
      args: [tokens[symbol]],
    });
    return {
      accruedToTreasuryScaled: r[1],
      totalAToken: r[2],
      totalVariableDebt: r[4],
      liquidityRate: r[5],
      variableBorrowRate: r[6],
      liquidityIndex: r[9],
      variableBorrowIndex: r[10],
    };
  }

  async function accountData(market: AaveMarket, user: Address) {
    const [totalCollateralBase, totalDebtBase, availableBorrowsBase, liquidationThreshold, ltv, healthFactor] =
      await client().readContract({
        address: market.pool,
        abi: aavePoolAbi,
        functionName: 'getUserAccountData',
        args: [user],
      });
    return { totalCollateralBase, totalDebtBase, availableBorrowsBase, liquidationThreshold, ltv, healthFactor };
  }

  async function price(symbol: Asset): Promise<bigint> {
    const raw = await session.rpc.request<Hex>('eth_getStorageAt', [feeds[symbol], '0x0', 'latest']);
    return BigInt(raw);
  }

  /**
   * The pool's account figures recomputed from the data provider's balances and the feeds' prices, the way
   * GenericLogic sums them (each asset floored to the base currency; the liquidation threshold weighted by value).
   */
  async function expectAccountAgrees(market: AaveMarket, user: Address) {
    let collateral = 0n;
    let debt = 0n;
    let weightedThreshold = 0n;
    for (const symbol of SYMBOLS) {
      const u = await userReserve(market, symbol, user);
      const p = await price(symbol);
      const unit = 10n ** BigInt(DECIMALS[symbol]);
      if (u.collateral && u.aTokenBalance > 0n) {
        const value = (u.aTokenBalance * p) / unit;
        collateral += value;
        weightedThreshold += value * BigInt(AAVE_V3_ETHEREUM_PARAMS[symbol].liquidationThresholdBps);
      }
      debt += (u.variableDebt * p) / unit;
    }
    const account = await accountData(market, user);
    expect(account.totalCollateralBase).toBe(collateral);
    expect(account.totalDebtBase).toBe(debt);
    const threshold = collateral === 0n ? 0n : weightedThreshold / collateral;
    expect(account.liquidationThreshold).toBe(threshold);
    expect(account.healthFactor).toBe(debt === 0n ? maxUint256 : wadDiv(percentMul(collateral, threshold), debt));
    return account;
  }

  function specs(): AaveReserveSpec[] {
    return SYMBOLS.map((symbol) => ({
      ...AAVE_V3_ETHEREUM_PARAMS[symbol],
      symbol,
      token: tokens[symbol],
      decimals: DECIMALS[symbol],
      priceSource: feeds[symbol],
    }));
  }

  // The cast: suppliers, borrowers and a liquidator, each signing its own transactions.
  let alice: Agent;
  let bob: Agent;
  let carol: Agent;
  let dave: Agent;
  let eve: Agent;
  let liquidator: Agent;

  beforeAll(async () => {
    anvil = await anvils.start({ genesisTimestamp: GENESIS });
    session = new ChainSession(anvil.rpcUrl, anvil.chainId);
    await session.prepareNode();
    // Tokens (MintableERC20, as the sandbox's) and one mock Chainlink feed per token, shared by both markets as
    // mainnet's feeds are.
    const deployer = signerAgent(DEPLOYER_PRIVATE_KEY, 0);
    const a = tokenArtifacts();
    const mock = aaveArtifacts().mockAggregator;
    for (const symbol of SYMBOLS) {
      tokens[symbol] = createdAddress(deployer.address, deployer.state.nonce);
      session.send(deployer, {
        to: null,
        data: encodeDeployData({
          abi: a.mintableErc20.abi,
          bytecode: a.mintableErc20.bytecode,
          args: [symbol, symbol, DECIMALS[symbol]],
        }),
        gas: 3_000_000n,
        kind: 'deploy',
      });
      feeds[symbol] = createdAddress(deployer.address, deployer.state.nonce);
      session.send(deployer, {
        to: null,
        data: encodeDeployData({ abi: mock.abi, bytecode: mock.bytecode, args: [BigInt(PRICES[symbol]) * 10n ** 8n] }),
        gas: 1_000_000n,
        kind: 'deploy',
      });
    }
    await mine();

    let started = performance.now();
    clock += 12;
    aave = await deployAaveMarket(anvil.rpcUrl, { protocol: 'aave', reserves: specs(), timestamp: clock });
    timings.aave = performance.now() - started;
    started = performance.now();
    clock += 12;
    spark = await deployAaveMarket(anvil.rpcUrl, { protocol: 'spark', reserves: specs(), timestamp: clock });
    timings.spark = performance.now() - started;

    const users = [1, 2, 3, 4, 5, 6].map((i) => signerAgent(agentPrivateKey(4242, i), 0, 'trader'));
    [alice, bob, carol, dave, eve, liquidator] = users as [Agent, Agent, Agent, Agent, Agent, Agent];
    await session.rpc.batchResults(
      users.map((u) => ({ method: 'anvil_setBalance', params: [u.address, `0x${WAD.toString(16)}`] })),
    );
  }, 60_000);

  it('deploys two independent markets from the same bytecode, in one block each', () => {
    console.log(
      `aave: ${aave.transactions} tx, ${aave.gasUsed} gas, ${timings.aave!.toFixed(0)} ms; ` +
        `spark: ${spark.transactions} tx, ${spark.gasUsed} gas, ${timings.spark!.toFixed(0)} ms`,
    );
    const m = aave.market;
    const s = spark.market;
    expect([m.protocol, m.version, m.baseAsset]).toEqual(['aave', 'V3', 'USDC']);
    expect([s.protocol, s.version, s.baseAsset]).toEqual(['spark', 'V1', 'DAI']);
    expect(s.startBlock).toBe(m.startBlock + 1);
    const addresses = (x: AaveMarket) => [
      x.addressesProvider,
      x.pool,
      x.poolConfigurator,
      x.aclManager,
      x.oracle,
      x.dataProvider,
      x.treasury,
      ...x.reserves.flatMap((r) => [r.aToken, r.variableDebtToken, r.stableDebtToken, r.interestRateStrategy]),
    ];
    const all = [...addresses(m), ...addresses(s)].map((a) => a.toLowerCase());
    expect(new Set(all).size).toBe(all.length);
    expect(m.reserves.map((r) => r.token)).toEqual(s.reserves.map((r) => r.token));
    // 60 transactions each: 8 libraries; provider, ACL (3 calls), Pool and PoolConfigurator with their proxies,
    // oracle, data provider (20); 3 token implementations; 4 rate strategies (the four curves differ); and per
    // reserve one initReserves and 7 configuration calls (collateral, borrowing, flash loans, reserve factor,
    // protocol fee, two caps).
    expect(aave.transactions).toBe(60);
    expect(spark.transactions).toBe(60);
    expect(JSON.parse(JSON.stringify(m))).toEqual(m);
    // The implementations behind the proxies (checked against their EIP-1967 slots by readAaveMarket) and the eight
    // libraries, each market its own.
    expect(Object.keys(m.implementations!.libraries).sort()).toEqual(libraryOrder(aaveArtifacts().libraries).sort());
    const impls = (x: AaveMarket) => [
      x.implementations!.pool,
      x.implementations!.poolConfigurator,
      x.implementations!.aToken,
      ...Object.values(x.implementations!.libraries),
    ];
    const both = [...impls(m), ...impls(s), ...all].map((a) => a.toLowerCase());
    expect(new Set(both).size).toBe(both.length);
  });

  it('supplies, borrows, repays and withdraws from several accounts; the data provider and pool agree', async () => {
    const m = aave.market;
    const s = spark.market;
    const approve = (agent: Agent, symbol: Asset, spender: Address) =>
      send(
        agent,
        tokens[symbol],
        encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] }),
        100_000n,
      );
    const mint = (agent: Agent, symbol: Asset, value: number) =>
      send(
        agent,
        tokens[symbol],
        encodeFunctionData({ abi: mintableErc20Abi, functionName: 'mint', args: [amount(symbol, value)] }),
        150_000n,
      );
    const supply = (agent: Agent, market: AaveMarket, symbol: Asset, value: number) =>
      send(
        agent,
        market.pool,
        encodeFunctionData({
          abi: aavePoolAbi,
          functionName: 'supply',
          args: [tokens[symbol], amount(symbol, value), agent.address, 0],
        }),
      );
    const borrow = (agent: Agent, market: AaveMarket, symbol: Asset, value: number) =>
      send(
        agent,
        market.pool,
        encodeFunctionData({
          abi: aavePoolAbi,
          functionName: 'borrow',
          args: [tokens[symbol], amount(symbol, value), VARIABLE_RATE_MODE, 0, agent.address],
        }),
      );

    mint(alice, 'WETH', 10);
    approve(alice, 'WETH', m.pool);
    mint(bob, 'USDC', 200_000);
    mint(bob, 'DAI', 80_000);
    approve(bob, 'USDC', m.pool);
    approve(bob, 'DAI', m.pool);
    approve(bob, 'DAI', s.pool);
    mint(carol, 'WBTC', 1);
    approve(carol, 'WBTC', m.pool);
    approve(carol, 'WETH', m.pool);
    mint(dave, 'WETH', 2);
    approve(dave, 'WETH', m.pool);
    mint(eve, 'WBTC', 1);
    approve(eve, 'WBTC', s.pool);
    approve(eve, 'DAI', s.pool);
    mint(liquidator, 'DAI', 10_000);
    approve(liquidator, 'DAI', m.pool);
    await mine();

    // Supplies (no debt yet: indexes are 1 ray, so balances are exactly what went in).
    supply(alice, m, 'WETH', 10);
    supply(bob, m, 'USDC', 100_000);
    supply(bob, m, 'DAI', 50_000);
    supply(carol, m, 'WBTC', 1);
    supply(dave, m, 'WETH', 2);
    supply(bob, s, 'DAI', 30_000);
    supply(eve, s, 'WBTC', 1);
    await mine();
    expect((await userReserve(m, 'WETH', alice.address)).aTokenBalance).toBe(amount('WETH', 10));
    expect((await userReserve(m, 'DAI', bob.address)).aTokenBalance).toBe(amount('DAI', 50_000));
    expect((await userReserve(s, 'DAI', bob.address)).aTokenBalance).toBe(amount('DAI', 30_000));
    expect((await reserveData(m, 'WETH')).totalAToken).toBe(amount('WETH', 12));
    expect((await reserveData(m, 'DAI')).totalAToken).toBe(amount('DAI', 50_000));
    // The markets are independent: the same token, different books.
    expect((await reserveData(s, 'DAI')).totalAToken).toBe(amount('DAI', 30_000));
    expect((await reserveData(s, 'WETH')).totalAToken).toBe(0n);
    const first = await expectAccountAgrees(m, alice.address);
    expect(first.totalCollateralBase).toBe(30_000n * 10n ** 8n);
    expect(first.availableBorrowsBase).toBe(24_000n * 10n ** 8n);
    expect(first.ltv).toBe(8000n);

    // Borrowing above the LTV fails with Aave's bare numeric code.
    const tooMuch = encodeFunctionData({
      abi: aavePoolAbi,
      functionName: 'borrow',
      args: [tokens.USDC, amount('USDC', 24_001), VARIABLE_RATE_MODE, 0, alice.address],
    });
    expect(await revertOf(alice.address, m.pool, tooMuch)).toBe('36 COLLATERAL_CANNOT_COVER_NEW_BORROW');

    borrow(alice, m, 'USDC', 15_000);
    borrow(carol, m, 'WETH', 6);
    borrow(dave, m, 'DAI', 4_700);
    borrow(eve, s, 'DAI', 20_000);
    await mine();
    const wallet = (symbol: Asset, who: Address) =>
      client().readContract({ address: tokens[symbol], abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    expect(await wallet('USDC', alice.address)).toBe(amount('USDC', 15_000));
    expect(await wallet('WETH', carol.address)).toBe(amount('WETH', 6));
    const daveDebt = (await userReserve(m, 'DAI', dave.address)).variableDebt;
    expect(daveDebt - amount('DAI', 4_700)).toBeGreaterThanOrEqual(0n);
    expect(daveDebt - amount('DAI', 4_700)).toBeLessThanOrEqual(1n);
    for (const u of [alice, bob, carol, dave]) await expectAccountAgrees(m, u.address);
    await expectAccountAgrees(s, eve.address);

    // The WETH strategy is the one configured: 6 of the 12 WETH supplied are borrowed, a 50 % utilisation below
    // the 80 % kink, so the variable rate is 1 % + 3.8 % × 50/80 = 3.375 %, and suppliers earn it × 50 % × (1 − 15 %
    // reserve factor). Rounded as DefaultReserveInterestRateStrategy rounds.
    const weth = await reserveData(m, 'WETH');
    const p = AAVE_V3_ETHEREUM_PARAMS.WETH;
    const available = amount('WETH', 12 - 6);
    const usage = rayDiv(weth.totalVariableDebt, available + weth.totalVariableDebt);
    const variableRate = p.baseVariableBorrowRate + rayDiv(rayMul(p.variableRateSlope1, usage), p.optimalUsageRatio);
    expect(usage).toBe(RAY / 2n);
    expect(weth.variableBorrowRate).toBe(variableRate);
    expect(weth.variableBorrowRate).toBe(33_750_000_000_000_000_000_000_000n);
    expect(weth.liquidityRate).toBe(percentMul(rayMul(variableRate, usage), BigInt(10_000 - p.reserveFactorBps)));

    // Thirty days later: interest has accrued; carol repays part of her WETH, bob withdraws USDC, eve repays DAI.
    const carolScaledDebt = (await userReserve(m, 'WETH', carol.address)).scaledVariableDebt;
    send(
      carol,
      m.pool,
      encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'repay',
        args: [tokens.WETH, amount('WETH', 2), VARIABLE_RATE_MODE, carol.address],
      }),
    );
    send(
      bob,
      m.pool,
      encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'withdraw',
        args: [tokens.USDC, amount('USDC', 20_000), bob.address],
      }),
    );
    send(
      eve,
      s.pool,
      encodeFunctionData({
        abi: aavePoolAbi,
        functionName: 'repay',
        args: [tokens.DAI, amount('DAI', 5_000), VARIABLE_RATE_MODE, eve.address],
      }),
    );
    await mine(30 * DAY);
    const wethAfter = await reserveData(m, 'WETH');
    // Compound interest at 3.375 %/year for 30 days: the debt index grew by e^(0.03375 × 30/365) ≈ 1.00278.
    const growth = Number(wethAfter.variableBorrowIndex) / Number(weth.variableBorrowIndex);
    expect(growth).toBeCloseTo(Math.exp((0.03375 * 30) / 365), 6);
    expect(wethAfter.liquidityIndex).toBeGreaterThan(weth.liquidityIndex);
    expect(wethAfter.accruedToTreasuryScaled).toBeGreaterThan(0n);
    const carolAfter = await userReserve(m, 'WETH', carol.address);
    const carolExpected = rayMul(carolScaledDebt, wethAfter.variableBorrowIndex) - amount('WETH', 2);
    expect(carolAfter.variableDebt - carolExpected).toBeGreaterThanOrEqual(-2n);
    expect(carolAfter.variableDebt - carolExpected).toBeLessThanOrEqual(2n);
    expect(await wallet('USDC', bob.address)).toBe(amount('USDC', 120_000));
    expect((await userReserve(m, 'WETH', alice.address)).aTokenBalance).toBeGreaterThan(amount('WETH', 10));
    expect((await userReserve(s, 'DAI', eve.address)).variableDebt).toBeGreaterThan(amount('DAI', 15_000));
    for (const u of [alice, bob, carol, dave]) await expectAccountAgrees(m, u.address);
    await expectAccountAgrees(s, eve.address);
  });

  it('liquidates an account that a price shock pushed below a health factor of 1', async () => {
    const m = aave.market;
    const daveBefore = await expectAccountAgrees(m, dave.address);
    expect(daveBefore.healthFactor).toBeGreaterThan(WAD);
    // A healthy account cannot be liquidated.
    const liquidate = encodeFunctionData({
      abi: aavePoolAbi,
      functionName: 'liquidationCall',
      args: [tokens.WETH, tokens.DAI, dave.address, maxUint256, false],
    });
    expect(await revertOf(liquidator.address, m.pool, liquidate)).toBe('45 HEALTH_FACTOR_NOT_BELOW_THRESHOLD');

    // The shock: the mock feed has no setter, so its one storage slot (the answer) is written directly. The Aave
    // oracle reads the feed on every call, so the new price applies at once, in both markets.
    await session.rpc.request('anvil_setStorageAt', [
      feeds.WETH,
      '0x0',
      `0x${(BigInt(SHOCKED_WETH) * 10n ** 8n).toString(16).padStart(64, '0')}`,
    ]);
    const shocked = await expectAccountAgrees(m, dave.address);
    expect(shocked.healthFactor).toBeLessThan(WAD);
    expect(shocked.healthFactor).toBeGreaterThan((WAD * 95n) / 100n);
    expect((await accountData(m, alice.address)).healthFactor).toBeGreaterThan(WAD);

    const liquidatorDai = await client().readContract({
      address: tokens.DAI,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [liquidator.address],
    });
    const treasuryBefore = (await userReserve(m, 'WETH', m.treasury)).aTokenBalance;
    send(liquidator, m.pool, liquidate, 2_000_000n);
    await mine();

    const logs = await client().getLogs({ address: m.pool, fromBlock: 'latest', toBlock: 'latest' });
    const [event] = parseEventLogs({ abi: aavePoolAbi, logs, eventName: 'LiquidationCall' });
    expect(event).toBeDefined();
    const { debtToCover, liquidatedCollateralAmount, user, liquidator: by, receiveAToken } = event!.args;
    expect([user, by, receiveAToken]).toEqual([dave.address, liquidator.address, false]);
    // Health factor between 0.95 and 1: the close factor is 50 %, so half the debt is repaid and half remains.
    const remaining = (await userReserve(m, 'DAI', dave.address)).variableDebt;
    expect(remaining - debtToCover).toBeGreaterThanOrEqual(-1n);
    expect(remaining - debtToCover).toBeLessThanOrEqual(1n);
    // The liquidator paid exactly the debt covered and received exactly the collateral the event reports…
    const paid =
      liquidatorDai -
      (await client().readContract({
        address: tokens.DAI,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [liquidator.address],
      }));
    expect(paid).toBe(debtToCover);
    expect(
      await client().readContract({
        address: tokens.WETH,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [liquidator.address],
      }),
    ).toBe(liquidatedCollateralAmount);
    // …worth the debt plus the 5 % bonus at the shocked price, less the protocol's 10 % of that bonus, which went
    // to the treasury as aWETH.
    const expectedCollateral = (Number(debtToCover) / SHOCKED_WETH) * (1 + 0.05 * (1 - 0.1));
    expect(Number(liquidatedCollateralAmount) / expectedCollateral).toBeCloseTo(1, 9);
    const fee = (await userReserve(m, 'WETH', m.treasury)).aTokenBalance - treasuryBefore;
    expect(Number(fee) / ((Number(debtToCover) / SHOCKED_WETH) * 0.05 * 0.1)).toBeCloseTo(1, 6);
    const daveAfter = await expectAccountAgrees(m, dave.address);
    expect(daveAfter.healthFactor).toBeGreaterThan(shocked.healthFactor);
  });

  it('emits the events ingestion reads, with the amounts the accounts moved', async () => {
    const read = async (market: AaveMarket) => {
      const logs = await client().getLogs({ address: market.pool, fromBlock: BigInt(market.startBlock) });
      return parseEventLogs({ abi: aavePoolAbi, logs });
    };
    const count = (events: Awaited<ReturnType<typeof read>>) => {
      const counts: Record<string, number> = {};
      for (const e of events) counts[e.eventName] = (counts[e.eventName] ?? 0) + 1;
      return counts;
    };
    const aaveEvents = await read(aave.market);
    const sparkEvents = await read(spark.market);
    expect(count(aaveEvents)).toMatchObject({ Supply: 5, Borrow: 3, Repay: 1, Withdraw: 1, LiquidationCall: 1 });
    expect(count(sparkEvents)).toMatchObject({ Supply: 2, Borrow: 1, Repay: 1 });
    expect(count(sparkEvents).LiquidationCall).toBeUndefined();
    // Every state-changing action updates its reserve's rates and indexes (the liquidation: both reserves).
    expect(count(aaveEvents).ReserveDataUpdated).toBe(5 + 3 + 1 + 1 + 2);
    expect(count(sparkEvents).ReserveDataUpdated).toBe(2 + 1 + 1);

    const supplies = aaveEvents.flatMap((e) =>
      e.eventName === 'Supply' ? [[e.args.onBehalfOf, e.args.reserve, e.args.amount] as const] : [],
    );
    expect(supplies).toContainEqual([alice.address, tokens.WETH, amount('WETH', 10)]);
    expect(supplies).toContainEqual([bob.address, tokens.USDC, amount('USDC', 100_000)]);
    const borrows = aaveEvents.flatMap((e) =>
      e.eventName === 'Borrow' ? [[e.args.onBehalfOf, e.args.amount, e.args.interestRateMode] as const] : [],
    );
    expect(borrows).toContainEqual([dave.address, amount('DAI', 4_700), 2]);
    const withdraw = aaveEvents.find((e) => e.eventName === 'Withdraw');
    expect(withdraw?.eventName === 'Withdraw' && withdraw.args.amount).toBe(amount('USDC', 20_000));
    const repay = aaveEvents.find((e) => e.eventName === 'Repay');
    expect(repay?.eventName === 'Repay' && [repay.args.user, repay.args.amount]).toEqual([
      carol.address,
      amount('WETH', 2),
    ]);

    // The last ReserveDataUpdated of a reserve is its current state, as the data provider reports it.
    const lastWeth = aaveEvents.findLast((e) => e.eventName === 'ReserveDataUpdated' && e.args.reserve === tokens.WETH);
    const weth = await reserveData(aave.market, 'WETH');
    expect(lastWeth?.eventName === 'ReserveDataUpdated' && lastWeth.args.liquidityIndex).toBe(weth.liquidityIndex);
    expect(lastWeth?.eventName === 'ReserveDataUpdated' && lastWeth.args.variableBorrowRate).toBe(
      weth.variableBorrowRate,
    );
  });
});
