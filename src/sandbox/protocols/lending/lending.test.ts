import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createPublicClient, erc20Abi, http, type PublicClient, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LendingTestWorld, lendingWorld } from '../../../../test/support/lending-world.js';
import { depegDiscount } from '../../world/plan.js';
import type { ScenarioState } from '../../world/state.js';
import { aavePoolAbi } from '../aave/artifacts.js';
import { AAVE_ETH_EMODE } from '../aave/params.js';
import { feedAggregatorAbi } from '../feeds/feeds.js';
import { morphoAbi, morphoMarketId, morphoOracleAbi } from '../morpho/deploy.js';
import { stakedTokenAbi } from '../staking/staked-token.js';
import { readPoolPrices } from '../uniswap/dex.js';

const MORPHO_EVENTS = {
  Supply: parseAbiItem(
    'event Supply(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets, uint256 shares)',
  ),
  Borrow: parseAbiItem(
    'event Borrow(bytes32 indexed id, address caller, address indexed onBehalf, address indexed receiver, uint256 assets, uint256 shares)',
  ),
  SupplyCollateral: parseAbiItem(
    'event SupplyCollateral(bytes32 indexed id, address indexed caller, address indexed onBehalf, uint256 assets)',
  ),
  Liquidate: parseAbiItem(
    'event Liquidate(bytes32 indexed id, address indexed caller, address indexed borrower, uint256 repaidAssets, uint256 repaidShares, uint256 seizedAssets, uint256 badDebtAssets, uint256 badDebtShares)',
  ),
} as const;

const USER_CONFIGURATION = [
  parseAbiItem('function getUserConfiguration(address user) view returns ((uint256 data))'),
] as const;
const LIQUIDATION_CALL = parseAbiItem(
  'event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)',
);
const SUPPLY = parseAbiItem(
  'event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)',
);
const BORROW = parseAbiItem(
  'event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)',
);

/** The test world of the e2e tests (test/support/lending-world.ts: 5 days, scale 0.3, seed 7), read from the chain. */
describe('lending and liquid staking in the sandbox world', () => {
  let w: LendingTestWorld;
  let client: PublicClient;
  let state: ScenarioState;
  let head: bigint;

  beforeAll(async () => {
    w = await lendingWorld();
    client = createPublicClient({ transport: http(w.rpcUrl) }) as PublicClient;
    head = await client.getBlockNumber();
    const saved = JSON.parse(readFileSync(path.join(w.world.dir, 'world.json'), 'utf8')) as { state: ScenarioState };
    state = saved.state;
  }, 180_000);

  afterAll(async () => {
    await w?.close();
  });

  const symbolOf = (address: string) =>
    w.manifest.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase())?.symbol;
  /** The block whose timestamp is `hours` after genesis (hourly blocks: block 1 is genesis). */
  const blockAt = (hours: number) => BigInt(1 + hours);

  it('deploys aave (V3, USDC) and spark (V1, DAI) with the planned reserves, priced by our feeds', () => {
    expect(w.aave.map((m) => [m.protocol, m.version, m.baseAsset])).toEqual([
      ['aave', 'V3', 'USDC'],
      ['spark', 'V1', 'DAI'],
    ]);
    expect(w.aaveMarket('aave').reserves.map((r) => r.symbol)).toEqual([
      'USDC',
      'USDT',
      'DAI',
      'WETH',
      'WBTC',
      'wstETH',
      'LINK',
    ]);
    expect(w.aaveMarket('spark').reserves.map((r) => r.symbol)).toEqual(['DAI', 'USDC', 'WETH', 'wstETH', 'WBTC']);
    // The markets read each feed through its proxy, as mainnet markets do.
    const feedOf = new Map(w.feeds.map((f) => [f.token, f.proxy]));
    for (const m of w.aave) {
      expect(m.startBlock).toBe(1);
      for (const r of m.reserves) expect(r.priceSource, `${m.protocol} ${r.symbol}`).toBe(feedOf.get(r.symbol));
    }
  });

  it('every reserve has suppliers, and borrowers borrow the stablecoins and WETH', async () => {
    for (const m of w.aave) {
      const supplies = await client.getLogs({ address: m.pool, event: SUPPLY, fromBlock: 0n, toBlock: head });
      const borrows = await client.getLogs({ address: m.pool, event: BORROW, fromBlock: 0n, toBlock: head });
      for (const r of m.reserves) {
        const suppliers = new Set(
          supplies.filter((l) => l.args.reserve === r.token).map((l) => l.args.onBehalfOf!.toLowerCase()),
        );
        expect(suppliers.size, `${m.protocol} ${r.symbol} suppliers`).toBeGreaterThanOrEqual(2);
        const aSupply = await client.readContract({ address: r.aToken, abi: erc20Abi, functionName: 'totalSupply' });
        expect(aSupply, `${m.protocol} ${r.symbol} supplied`).toBeGreaterThan(0n);
      }
      for (const symbol of ['USDC', 'DAI', 'WETH']) {
        const r = m.reserves.find((x) => x.symbol === symbol)!;
        const borrowers = new Set(
          borrows.filter((l) => l.args.reserve === r.token).map((l) => l.args.onBehalfOf!.toLowerCase()),
        );
        expect(borrowers.size, `${m.protocol} ${symbol} borrowers`).toBeGreaterThanOrEqual(1);
        const debt = await client.readContract({
          address: r.variableDebtToken,
          abi: erc20Abi,
          functionName: 'totalSupply',
        });
        expect(debt, `${m.protocol} ${symbol} debt`).toBeGreaterThan(0n);
      }
    }
  });

  it('holds borrowers of every kind and loopers in E-mode with wstETH collateral and WETH debt', async () => {
    const positions = state.lending!.positions;
    for (const kind of ['safe', 'leveraged', 'near', 'looper'] as const) {
      for (const protocol of ['aave', 'spark']) {
        expect(
          positions.filter((p) => p.kind === kind && p.protocol === protocol).length,
          `${protocol} ${kind}`,
        ).toBeGreaterThan(0);
      }
    }
    const m = w.aaveMarket('aave');
    const lst = m.reserves.find((r) => r.symbol === 'wstETH')!;
    const weth = m.reserves.find((r) => r.symbol === 'WETH')!;
    const looper = positions.find((p) => p.kind === 'looper' && p.protocol === 'aave')!;
    const user = state.agents[looper.owner]!.address;
    // Before the depeg the loop is at its target: leverage of several times the stake.
    const at = { blockNumber: blockAt(60) };
    const [collateral, debt, eMode, account] = await Promise.all([
      client.readContract({ address: lst.aToken, abi: erc20Abi, functionName: 'balanceOf', args: [user], ...at }),
      client.readContract({
        address: weth.variableDebtToken,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [user],
        ...at,
      }),
      client.readContract({ address: m.pool, abi: aavePoolAbi, functionName: 'getUserEMode', args: [user], ...at }),
      client.readContract({
        address: m.pool,
        abi: aavePoolAbi,
        functionName: 'getUserAccountData',
        args: [user],
        ...at,
      }),
    ]);
    expect(eMode).toBe(BigInt(AAVE_ETH_EMODE.id));
    expect(debt).toBeGreaterThan(0n);
    const [collateralUsd, debtUsd, , , , hf] = account;
    expect(Number(collateralUsd) / Number(collateralUsd - debtUsd)).toBeGreaterThan(5);
    expect(Number(hf) / 1e18).toBeGreaterThan(1);
    expect(Number(hf) / 1e18).toBeLessThan(1.2);
    expect(collateral).toBeGreaterThan(0n);
  });

  it('some Aave borrowers hold two collateral assets, both flagged as collateral by the pool', async () => {
    const two = state.lending!.positions.filter((p) => p.secondCollateral !== undefined);
    expect(two.length).toBeGreaterThanOrEqual(2);
    expect(new Set(two.map((p) => p.protocol))).toEqual(new Set(['aave', 'spark']));
    let seen = 0;
    for (const p of two) {
      const m = w.aaveMarket(p.protocol);
      const user = state.agents[p.owner]!.address;
      const balances = await Promise.all(
        [p.collateral, p.secondCollateral!].map((symbol) =>
          client.readContract({
            address: m.reserves.find((r) => r.symbol === symbol)!.aToken,
            abi: erc20Abi,
            functionName: 'balanceOf',
            args: [user],
            blockNumber: head,
          }),
        ),
      );
      if (!balances.every((b) => b > 0n)) continue; // closed (repaid in full) or liquidated by now
      seen++;
      // Both reserves are flagged as the account's collateral (UserConfiguration: bit 2i + 1 for reserve i).
      const config = await client.readContract({
        address: m.pool,
        abi: USER_CONFIGURATION,
        functionName: 'getUserConfiguration',
        args: [user],
        blockNumber: head,
      });
      const list = (await client.readContract({
        address: m.pool,
        abi: aavePoolAbi,
        functionName: 'getReservesList',
        blockNumber: head,
      })) as readonly string[];
      for (const symbol of [p.collateral, p.secondCollateral!]) {
        const token = w.manifest.tokens.find((t) => t.symbol === symbol)!.address.toLowerCase();
        const i = list.findIndex((a) => a.toLowerCase() === token);
        expect((config.data >> BigInt(2 * i + 1)) & 1n, `${p.protocol} ${symbol}`).toBe(1n);
      }
    }
    expect(seen).toBeGreaterThanOrEqual(1);
  });

  it('liquidates: the ETH crash takes volatile collateral, the depeg takes loopers', async () => {
    const all = (
      await Promise.all(
        w.aave.map(async (m) =>
          (
            await client.getLogs({ address: m.pool, event: LIQUIDATION_CALL, fromBlock: 0n, toBlock: head })
          ).map((l) => ({
            protocol: m.protocol,
            hour: Number(l.blockNumber) - 1,
            collateral: symbolOf(l.args.collateralAsset!),
            debt: symbolOf(l.args.debtAsset!),
            liquidator: l.args.liquidator!.toLowerCase(),
          })),
        ),
      )
    ).flat();
    expect(all.filter((l) => l.protocol === 'aave').length).toBeGreaterThanOrEqual(1);
    expect(all.some((l) => l.collateral === 'wstETH' && l.debt === 'WETH' && l.hour >= 76 && l.hour <= 100)).toBe(true);
    expect(all.some((l) => l.collateral !== 'wstETH' && l.hour >= 30 && l.hour <= 40)).toBe(true);
    const liquidators = new Set(
      state.agents.filter((a) => a.role === 'liquidator').map((a) => a.address.toLowerCase()),
    );
    for (const l of all) expect(liquidators.has(l.liquidator)).toBe(true);
    expect(state.lending!.stats.liquidations).toBe(all.length);
    expect(state.stats.revertedUnexpected).toBe(0);
  });

  it('liquidators sell the collateral they seized on the DEX pools: what they sold plus what they still sell is what they got', async () => {
    const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
    const liquidators = state.agents.flatMap((a, i) =>
      a.role === 'liquidator' ? [{ i, id: a.address.toLowerCase() }] : [],
    );
    const pools = new Set(w.manifest.pools.map((p) => p.address.toLowerCase()));
    // Seized: what the lending contracts (an Aave aToken, Morpho) paid the liquidators; sold: what they paid the
    // DEX pools. Tokens that are never borrowed, so the liquidators hold no float of them.
    const payers = new Set([
      ...w.aave.flatMap((m) => m.reserves.map((r) => r.aToken.toLowerCase())),
      ...w.morpho.map((m) => m.morpho.toLowerCase()),
    ]);
    let sales = 0;
    for (const symbol of ['WBTC', 'wstETH', 'LINK']) {
      const token = w.manifest.tokens.find((t) => t.symbol === symbol)!.address;
      const transfers = await client.getLogs({ address: token, event: TRANSFER, fromBlock: 0n, toBlock: head });
      for (const liquidator of liquidators) {
        const sum = (pick: (from: string, to: string) => boolean) =>
          transfers
            .filter((l) => pick(l.args.from!.toLowerCase(), l.args.to!.toLowerCase()))
            .reduce((a, l) => a + l.args.value!, 0n);
        const seized = sum((from, to) => to === liquidator.id && payers.has(from));
        const sold = sum((from, to) => from === liquidator.id && pools.has(to));
        const queued = (state.seizedSales ?? [])
          .filter((x) => x.liquidator === liquidator.i && x.sell === symbol)
          .reduce((a, x) => a + BigInt(x.amount), 0n);
        expect(sold + queued, `${symbol} of liquidator ${liquidator.i}`).toBe(seized);
        if (sold > 0n) sales++;
      }
    }
    expect(sales).toBeGreaterThanOrEqual(1);
    expect(state.stats.revertedUnexpected).toBe(0);
  });

  it('Morpho Blue: isolated USDC markets against WETH, wstETH and WBTC, with lenders, borrowers and liquidations', async () => {
    expect(w.morpho).toHaveLength(1);
    const mo = w.morpho[0]!;
    expect(mo).toMatchObject({ protocol: 'morpho', version: 'V1', baseAsset: 'USDC', design: 'morpho-blue' });
    expect(mo.markets.map((m) => [m.collateralSymbol, m.lltv])).toEqual([
      ['WETH', '860000000000000000'],
      ['wstETH', '860000000000000000'],
      ['WBTC', '770000000000000000'],
    ]);
    const usdc = w.manifest.tokens.find((t) => t.symbol === 'USDC')!.address;
    const events = async (name: 'Supply' | 'Borrow' | 'Liquidate' | 'SupplyCollateral') =>
      client.getLogs({
        address: mo.morpho,
        event: MORPHO_EVENTS[name],
        fromBlock: 0n,
        toBlock: head,
      });
    const [supplies, borrows, collaterals, liquidations] = await Promise.all([
      events('Supply'),
      events('Borrow'),
      events('SupplyCollateral'),
      events('Liquidate'),
    ]);
    for (const m of mo.markets) {
      expect(m.loanToken).toBe(usdc);
      expect(morphoMarketId({ ...m, lltv: BigInt(m.lltv) })).toBe(m.id);
      const [loanToken, collateralToken, oracle, irm, lltv] = await client.readContract({
        address: mo.morpho,
        abi: morphoAbi,
        functionName: 'idToMarketParams',
        args: [m.id],
      });
      expect([loanToken, collateralToken, oracle, irm, lltv.toString()]).toEqual([
        m.loanToken,
        m.collateralToken,
        m.oracle,
        m.irm,
        m.lltv,
      ]);
      const of = (logs: readonly { args: { id?: `0x${string}` } }[]) => logs.filter((l) => l.args.id === m.id);
      expect(of(supplies).length, `${m.collateralSymbol} supplies`).toBeGreaterThanOrEqual(2);
      expect(of(borrows).length, `${m.collateralSymbol} borrows`).toBeGreaterThanOrEqual(1);
      expect(of(collaterals).length, `${m.collateralSymbol} collateral`).toBeGreaterThanOrEqual(1);
      const market = await client.readContract({
        address: mo.morpho,
        abi: morphoAbi,
        functionName: 'market',
        args: [m.id],
      });
      expect(market[2], `${m.collateralSymbol} borrowed`).toBeGreaterThan(0n);
      expect(market[2]).toBeLessThan(market[0]);
      // The oracle: the collateral's feed over USDC's, 1e36-scaled, adjusted for decimals.
      const price = await client.readContract({ address: m.oracle, abi: morphoOracleAbi, functionName: 'price' });
      const feed = (token: string) => w.feeds.find((f) => f.token === token)!.address;
      const answer = async (token: string) =>
        (
          await client.readContract({ address: feed(token), abi: feedAggregatorAbi, functionName: 'latestRoundData' })
        )[1];
      const decimals = w.manifest.tokens.find((t) => t.symbol === m.collateralSymbol)!.decimals;
      expect(price).toBe(
        ((await answer(m.collateralSymbol)) * 10n ** BigInt(36 + 6 - decimals)) / (await answer('USDC')),
      );
    }
    // The crash liquidates near-liquidation Morpho borrowers too.
    expect(liquidations.length).toBeGreaterThanOrEqual(1);
    expect(state.lending!.morpho!.stats.liquidations).toBe(liquidations.length);
  });

  it('wstETH: the exchange rate grows daily; the pool and the feed trade below it during the depeg', async () => {
    const lst = w.liquidStaking[0]!;
    expect(lst).toMatchObject({ protocol: 'lido', symbol: 'wstETH', decimals: 18, underlying: w.manifest.weth });
    expect(lst.pools).toHaveLength(1);
    const rate = (block: bigint) =>
      client.readContract({
        address: lst.token,
        abi: stakedTokenAbi,
        functionName: 'stEthPerToken',
        blockNumber: block,
      });
    const r0 = await rate(1n);
    expect(r0).toBe(1_180_000_000_000_000_000n);
    expect(await rate(blockAt(23))).toBe(r0);
    expect(await rate(blockAt(24))).toBe(r0 + (r0 * 350n) / (10_000n * 365n));
    expect(await rate(head)).toBeGreaterThan(await rate(blockAt(24)));

    const pool = w.manifest.pools.find((p) => p.address === lst.pools[0])!;
    expect(pool.fee).toBe(100);
    const weth = w.manifest.weth.toLowerCase();
    // wstETH per WETH in the pool, against the exchange rate: at par before, ~6 % below during the depeg.
    const discountAt = async (hours: number) => {
      const price = (await readPoolPrices(w.rpcUrl, w.manifest, Number(blockAt(hours)))).get(
        pool.address.toLowerCase(),
      )!;
      const wethPerLst = pool.token0.toLowerCase() === weth ? 1 / price : price;
      return 1 - wethPerLst / (Number(await rate(blockAt(hours))) / 1e18);
    };
    expect(Math.abs(await discountAt(50))).toBeLessThan(0.003);
    expect(await discountAt(84)).toBeCloseTo(depegDiscount(84), 2);
    expect(Math.abs(await discountAt(110))).toBeLessThan(0.003);

    // The wstETH-USD feed reports the market price: against ETH-USD it shows the depeg too.
    const eth = w.feeds.find((f) => f.pair === 'ETH-USD')!;
    const answerAt = async (feed: `0x${string}`, hours: number) =>
      Number(
        (
          await client.readContract({
            address: feed,
            abi: feedAggregatorAbi,
            functionName: 'latestRoundData',
            blockNumber: blockAt(hours),
          })
        )[1],
      );
    const ratio = (await answerAt(lst.priceFeed!, 84)) / (await answerAt(eth.address, 84));
    expect(ratio / (Number(await rate(blockAt(84))) / 1e18)).toBeCloseTo(1 - depegDiscount(84), 1);
  });
});
