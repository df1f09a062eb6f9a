/**
 * Our Liquity v1 contracts on anvil, rule by rule: the borrowing fee, the MCR and minimum debt, a liquidation offset
 * by the Stability Pool, a redistribution when the pool is empty, recovery mode (its restrictions and its capped
 * liquidation), redemptions from the riskiest trove up with their fee, and mainnet's event topics and views.
 */
import {
  type Abi,
  type Address,
  decodeEventLog,
  encodeFunctionData,
  type Hex,
  keccak256,
  toEventSelector,
  toHex,
} from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../../test/support/anvil.js';
import { Agent, agentPrivateKey, DEPLOYER_PRIVATE_KEY, newAgentState, signerAgent } from '../../chain/agent.js';
import { createdAddress, erc20Abi } from '../../chain/artifacts.js';
import type { RpcReceipt } from '../../chain/receipts.js';
import { RpcClient } from '../../chain/rpc.js';
import { ChainSession, GAS } from '../../chain/session.js';
import { FEED_ROUND_GAS, feedDeployData, feedProxyDeployData, transmitData } from '../feeds/feeds.js';
import {
  borrowerOperationsAbi,
  hintHelpersAbi,
  LIQUITY,
  LIQUITY_ARTIFACTS,
  type LiquityCore,
  liquityPoolAbi,
  liquityPriceFeedAbi,
  queueLiquityCore,
  sortedTrovesAbi,
  stabilityPoolAbi,
  troveManagerAbi,
  WAD,
} from './deploy.js';

const GENESIS = 1_700_000_000;
const anvils = useAnvils();
let rpc: RpcClient;
let session: ChainSession;
let deployer: Agent;
let now = GENESIS;
let nextKey = 0;

/** Mines the queued transactions in one block a minute later; every one must succeed. */
async function mine(): Promise<void> {
  now += 60;
  const outcome = await session.mine(now);
  expect(outcome.revertedUnexpected, JSON.stringify(outcome.unexpected)).toBe(0);
}

/** A fresh account with plenty of native ETH. */
async function user(): Promise<Agent> {
  const key = nextKey++;
  const agent = new Agent(newAgentState(99, key, 'borrower'), key, agentPrivateKey(99, key));
  await rpc.request('anvil_setBalance', [agent.address, toHex(10n ** 26n)]);
  return agent;
}

/** Sends one transaction in its own block and returns its receipt (it must succeed). */
async function send(
  agent: Agent,
  to: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[] = [],
  value?: bigint,
) {
  let receipt: RpcReceipt | undefined;
  session.send(agent, {
    to,
    data: encodeFunctionData({ abi, functionName, args }),
    gas: 5_000_000n,
    kind: 'setup',
    ...(value !== undefined ? { value } : {}),
    onMined: (_ok, r) => {
      receipt = r;
    },
  });
  await mine();
  return receipt!;
}

/** The revert reason of a call that must fail (checked with eth_call, nothing mined). */
async function revertOf(
  agent: Agent,
  to: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[] = [],
  value = 0n,
) {
  const data = encodeFunctionData({ abi, functionName, args });
  try {
    await rpc.request('eth_call', [{ from: agent.address, to, data, value: toHex(value) }, 'latest']);
  } catch (e) {
    return String((e as Error).message);
  }
  return 'no revert';
}

async function view<T>(to: Address, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<T> {
  const { decodeFunctionResult } = await import('viem');
  const data = await rpc.request<Hex>('eth_call', [
    { to, data: encodeFunctionData({ abi, functionName, args }) },
    'latest',
  ]);
  return decodeFunctionResult({ abi, functionName, data }) as T;
}

/** Events of `abi` in a receipt, decoded. */
function events(receipt: RpcReceipt, abi: Abi) {
  const out: { eventName: string; args: Record<string, unknown>; address: string }[] = [];
  for (const log of receipt.logs) {
    try {
      const e = decodeEventLog({ abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
      out.push({
        eventName: String(e.eventName),
        args: e.args as unknown as Record<string, unknown>,
        address: log.address,
      });
    } catch {
      // another contract's event
    }
  }
  return out;
}

interface System extends LiquityCore {
  aggregator: Address;
  setPrice(usd: bigint): Promise<void>;
}

/** A fresh Liquity on the shared node, priced by a feed of its own at `usd` per ETH. */
async function deploySystem(usd: bigint): Promise<System> {
  const aggregator = createdAddress(deployer.address, deployer.state.nonce);
  session.send(deployer, { to: null, data: feedDeployData('ETH-USD'), gas: GAS.deploy, kind: 'deploy' });
  const proxy = createdAddress(deployer.address, deployer.state.nonce);
  session.send(deployer, { to: null, data: feedProxyDeployData(aggregator), gas: GAS.deploy, kind: 'deploy' });
  const setPriceNow = (p: bigint) =>
    session.send(deployer, { to: aggregator, data: transmitData(p * 10n ** 8n), gas: FEED_ROUND_GAS, kind: 'oracle' });
  setPriceNow(usd);
  const core = queueLiquityCore(session, deployer, proxy);
  await mine();
  return {
    ...core,
    aggregator,
    async setPrice(p: bigint) {
      setPriceNow(p);
      await mine();
    },
  };
}

const bo = borrowerOperationsAbi;
const tm = troveManagerAbi;
const sp = stabilityPoolAbi;

/** Opens a trove for `lusd` LUSD at collateral ratio `icr` (percent) at `price`, with the 0.5 % fee of a zero base rate. */
async function openAt(s: System, who: Agent, lusd: bigint, icrPct: bigint, price: bigint) {
  const debt = lusd + (lusd * 5n) / 1000n + LIQUITY.GAS_COMPENSATION;
  const coll = (debt * icrPct) / 100n / price;
  return send(who, s.borrowerOperations, bo, 'openTrove', [WAD, lusd, who.address, who.address], coll);
}

async function trove(s: System, who: Agent) {
  return view<readonly [bigint, bigint, bigint, number, bigint]>(s.troveManager, tm, 'Troves', [who.address]);
}

beforeAll(async () => {
  const anvil = await anvils.start({ genesisTimestamp: GENESIS });
  rpc = new RpcClient(anvil.rpcUrl);
  session = new ChainSession(anvil.rpcUrl, Number(await rpc.request<Hex>('eth_chainId')));
  await session.prepareNode();
  deployer = signerAgent(
    DEPLOYER_PRIVATE_KEY,
    Number(await rpc.request<Hex>('eth_getTransactionCount', ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest'])),
  );
}, 60_000);

describe('Liquity v1 from our own contracts', () => {
  it('emits mainnet’s events: the topics are the keccak of mainnet’s signatures', () => {
    const signatures: Record<string, string[]> = {
      troveManager: [
        'TroveUpdated(address,uint256,uint256,uint256,uint8)',
        'TroveLiquidated(address,uint256,uint256,uint8)',
        'Liquidation(uint256,uint256,uint256,uint256)',
        'Redemption(uint256,uint256,uint256,uint256)',
        'BaseRateUpdated(uint256)',
        'LastFeeOpTimeUpdated(uint256)',
        'TotalStakesUpdated(uint256)',
        'SystemSnapshotsUpdated(uint256,uint256)',
        'LTermsUpdated(uint256,uint256)',
        'TroveSnapshotsUpdated(uint256,uint256)',
        'TroveIndexUpdated(address,uint256)',
      ],
      borrowerOperations: [
        'TroveCreated(address,uint256)',
        'TroveUpdated(address,uint256,uint256,uint256,uint8)',
        'LUSDBorrowingFeePaid(address,uint256)',
      ],
      stabilityPool: [
        'StabilityPoolLUSDBalanceUpdated(uint256)',
        'StabilityPoolETHBalanceUpdated(uint256)',
        'UserDepositChanged(address,uint256)',
        'ETHGainWithdrawn(address,uint256,uint256)',
        'P_Updated(uint256)',
        'S_Updated(uint256,uint128,uint128)',
        'EpochUpdated(uint128)',
        'ScaleUpdated(uint128)',
        'DepositSnapshotUpdated(address,uint256,uint256,uint256)',
      ],
      priceFeed: ['LastGoodPriceUpdated(uint256)', 'PriceFeedStatusChanged(uint8)'],
      activePool: [
        'ActivePoolLUSDDebtUpdated(uint256)',
        'ActivePoolETHBalanceUpdated(uint256)',
        'EtherSent(address,uint256)',
      ],
      defaultPool: ['DefaultPoolLUSDDebtUpdated(uint256)', 'DefaultPoolETHBalanceUpdated(uint256)'],
      sortedTroves: ['NodeAdded(address,uint256)', 'NodeRemoved(address)'],
      lusdToken: ['Transfer(address,address,uint256)', 'Approval(address,address,uint256)'],
    };
    for (const [contract, sigs] of Object.entries(signatures)) {
      const abi = LIQUITY_ARTIFACTS[contract as keyof typeof LIQUITY_ARTIFACTS].abi;
      const topics = new Set(abi.filter((x) => x.type === 'event').map((x) => toEventSelector(x)));
      for (const sig of sigs) expect(topics.has(keccak256(toHex(sig))), `${contract}: ${sig}`).toBe(true);
    }
    // Mainnet's topics as indexers list them (an independent record of the real contracts' events).
    expect(keccak256(toHex('TroveUpdated(address,uint256,uint256,uint256,uint8)'))).toBe(
      '0xc3770d654ed33aeea6bf11ac8ef05d02a6a04ed4686dd2f624d853bbec43cc8b',
    );
    expect(keccak256(toHex('TroveLiquidated(address,uint256,uint256,uint8)'))).toBe(
      '0xea67486ed7ebe3eea8ab3390efd4a3c8aae48be5bea27df104a8af786c408434',
    );
  });

  it('opens a trove with the borrowing fee and the 200 LUSD reserve; refuses ICR < MCR and debt under the minimum', async () => {
    const s = await deploySystem(2000n);
    const [a, b] = [await user(), await user()];
    // 10 ETH at 2000 USD, 5000 LUSD: fee 0.5 % = 25, debt 5225.
    const r = await send(a, s.borrowerOperations, bo, 'openTrove', [WAD, 5000n * WAD, a.address, a.address], 10n * WAD);
    const ev = events(r, LIQUITY_ARTIFACTS.borrowerOperations.abi);
    expect(ev.map((e) => e.eventName)).toEqual(['TroveCreated', 'TroveUpdated', 'LUSDBorrowingFeePaid']);
    expect(ev[1]!.args).toMatchObject({ _borrower: a.address, _debt: 5225n * WAD, _coll: 10n * WAD, operation: 0 });
    expect(ev[2]!.args._LUSDFee).toBe(25n * WAD);
    expect(await view(s.lusd, erc20Abi, 'balanceOf', [a.address])).toBe(5000n * WAD);
    expect(await view(s.lusd, erc20Abi, 'balanceOf', [s.gasPool])).toBe(200n * WAD);
    expect(await view(s.lusd, erc20Abi, 'balanceOf', [s.feeRecipient])).toBe(25n * WAD);
    const [debt, coll, stake, status, index] = await trove(s, a);
    expect([debt, coll, stake, status, index]).toEqual([5225n * WAD, 10n * WAD, 10n * WAD, 1, 0n]);
    expect(await view(s.troveManager, tm, 'getEntireSystemDebt')).toBe(5225n * WAD);
    expect(await view(s.troveManager, tm, 'getEntireSystemColl')).toBe(10n * WAD);
    expect(await view(s.activePool, liquityPoolAbi, 'getLUSDDebt')).toBe(5225n * WAD);
    expect(await view(s.troveManager, tm, 'getCurrentICR', [a.address, 2000n * WAD])).toBe(
      (20000n * WAD * WAD) / (5225n * WAD),
    );
    expect(await view(s.troveManager, tm, 'getTCR', [2000n * WAD])).toBe((20000n * WAD * WAD) / (5225n * WAD));
    expect(await view(s.troveManager, tm, 'getTroveOwnersCount')).toBe(1n);
    expect(await view(s.troveManager, tm, 'getTroveFromTroveOwnersArray', [0n])).toBe(a.address);
    expect(await view(s.priceFeed, liquityPriceFeedAbi, 'lastGoodPrice')).toBe(2000n * WAD);

    // 1.2 ETH = 2400 USD against 2000 + 10 + 200 = 2210: 108.6 % < 110 %.
    expect(
      await revertOf(
        b,
        s.borrowerOperations,
        bo,
        'openTrove',
        [WAD, 2000n * WAD, b.address, b.address],
        (12n * WAD) / 10n,
      ),
    ).toMatch(/ICR < MCR is not permitted/);
    expect(
      await revertOf(b, s.borrowerOperations, bo, 'openTrove', [WAD, 1000n * WAD, b.address, b.address], 10n * WAD),
    ).toMatch(/net debt must be greater than minimum/);
    // A fee cap under the floor is refused.
    expect(
      await revertOf(
        b,
        s.borrowerOperations,
        bo,
        'openTrove',
        [WAD / 1000n, 3000n * WAD, b.address, b.address],
        10n * WAD,
      ),
    ).toMatch(/between 0.5% and 100%/);
  }, 60_000);

  it('liquidates a trove under MCR against the Stability Pool: its debt burnt from deposits, its collateral to depositors', async () => {
    const s = await deploySystem(2000n);
    const [whale, risky, keeper] = [await user(), await user(), await user()];
    await openAt(s, whale, 100_000n * WAD, 300n, 2000n);
    await openAt(s, risky, 10_000n * WAD, 120n, 2000n);
    await send(whale, s.stabilityPool, sp, 'provideToSP', [
      50_000n * WAD,
      '0x0000000000000000000000000000000000000000',
    ]);
    const [riskyDebt, riskyColl] = await trove(s, risky);
    await s.setPrice(1800n); // risky: 108 %; the system stays above 150 %
    expect(await view(s.troveManager, tm, 'checkRecoveryMode', [1800n * WAD])).toBe(false);
    const r = await send(keeper, s.troveManager, tm, 'liquidateTroves', [10n]);
    const ev = events(r, LIQUITY_ARTIFACTS.troveManager.abi);
    const comp = riskyColl / 200n;
    expect(ev.find((e) => e.eventName === 'TroveLiquidated')!.args).toEqual({
      _borrower: risky.address,
      _debt: riskyDebt,
      _coll: riskyColl,
      _operation: 1,
    });
    expect(ev.find((e) => e.eventName === 'Liquidation')!.args).toEqual({
      _liquidatedDebt: riskyDebt,
      _liquidatedColl: riskyColl - comp,
      _collGasCompensation: comp,
      _LUSDGasCompensation: 200n * WAD,
    });
    expect(ev.some((e) => e.eventName === 'LTermsUpdated')).toBe(false);
    const spEvents = events(r, LIQUITY_ARTIFACTS.stabilityPool.abi);
    expect(spEvents.find((e) => e.eventName === 'StabilityPoolLUSDBalanceUpdated')!.args._newBalance).toBe(
      50_000n * WAD - riskyDebt,
    );
    expect(await view(s.stabilityPool, sp, 'getTotalLUSDDeposits')).toBe(50_000n * WAD - riskyDebt);
    expect(await view(s.stabilityPool, sp, 'getETH')).toBe(riskyColl - comp);
    const deposit = await view<bigint>(s.stabilityPool, sp, 'getCompoundedLUSDDeposit', [whale.address]);
    const gain = await view<bigint>(s.stabilityPool, sp, 'getDepositorETHGain', [whale.address]);
    expect(Number(50_000n * WAD - riskyDebt - deposit)).toBeLessThan(1e6);
    expect(Number(riskyColl - comp - gain)).toBeLessThan(1e6);
    expect(gain).toBeLessThanOrEqual(riskyColl - comp);
    expect(await view(s.lusd, erc20Abi, 'balanceOf', [keeper.address])).toBe(200n * WAD);
    expect((await trove(s, risky))[3]).toBe(3); // closedByLiquidation
    expect(await view(s.sortedTroves, sortedTrovesAbi, 'getSize')).toBe(1n);
    // Nothing else to liquidate: the call reverts.
    expect(await revertOf(keeper, s.troveManager, tm, 'liquidateTroves', [10n])).toMatch(/nothing to liquidate/);
  }, 60_000);

  it('redistributes to the active troves what an empty Stability Pool cannot absorb (DefaultPool, L_ETH, L_LUSDDebt)', async () => {
    const s = await deploySystem(2000n);
    const [a, b, risky, keeper] = [await user(), await user(), await user(), await user()];
    await openAt(s, a, 40_000n * WAD, 300n, 2000n);
    await openAt(s, b, 20_000n * WAD, 250n, 2000n);
    await openAt(s, risky, 10_000n * WAD, 115n, 2000n);
    const [riskyDebt, riskyColl] = await trove(s, risky);
    const systemDebt = await view<bigint>(s.troveManager, tm, 'getEntireSystemDebt');
    await s.setPrice(1850n);
    const r = await send(keeper, s.troveManager, tm, 'batchLiquidateTroves', [[risky.address, a.address]]);
    const ev = events(r, LIQUITY_ARTIFACTS.troveManager.abi);
    expect(ev.filter((e) => e.eventName === 'TroveLiquidated').map((e) => e.args._borrower)).toEqual([risky.address]);
    const comp = riskyColl / 200n;
    expect(await view(s.defaultPool, liquityPoolAbi, 'getLUSDDebt')).toBe(riskyDebt);
    expect(await view(s.defaultPool, liquityPoolAbi, 'getETH')).toBe(riskyColl - comp);
    const lEth = await view<bigint>(s.troveManager, tm, 'L_ETH');
    const lDebt = await view<bigint>(s.troveManager, tm, 'L_LUSDDebt');
    expect(ev.find((e) => e.eventName === 'LTermsUpdated')!.args).toEqual({ _L_ETH: lEth, _L_LUSDDebt: lDebt });
    // Each remaining trove owes its stake's share; together, what was redistributed (less rounding dust).
    const [ea, eb] = await Promise.all(
      [a, b].map((x) =>
        view<readonly [bigint, bigint, bigint, bigint]>(s.troveManager, tm, 'getEntireDebtAndColl', [x.address]),
      ),
    );
    const pendingDebt = ea![2] + eb![2];
    expect(pendingDebt).toBeLessThanOrEqual(riskyDebt);
    expect(Number(riskyDebt - pendingDebt)).toBeLessThan(1e4);
    // The system's debt did not change; it is the sum of the troves' entire debts (pending included).
    expect(await view(s.troveManager, tm, 'getEntireSystemDebt')).toBe(systemDebt);
    expect(Number(systemDebt - (ea![0] + eb![0]))).toBeLessThan(1e4);
    // The next operation on a trove applies its rewards (TroveUpdated with operation 0 from the TroveManager).
    const r2 = await send(a, s.borrowerOperations, bo, 'addColl', [a.address, a.address], WAD);
    const applied = events(r2, LIQUITY_ARTIFACTS.troveManager.abi).find((e) => e.eventName === 'TroveUpdated')!;
    expect(applied.args).toMatchObject({ _borrower: a.address, _debt: ea![0], _coll: ea![1], _operation: 0 });
  }, 60_000);

  it('recovery mode: TCR < 150 % forbids collateral withdrawal and liquidates a trove between MCR and TCR at 110 %', async () => {
    const s = await deploySystem(2000n);
    const [a, b, c, keeper] = [await user(), await user(), await user(), await user()];
    await openAt(s, a, 50_000n * WAD, 200n, 2000n);
    await openAt(s, b, 20_000n * WAD, 160n, 2000n);
    await openAt(s, c, 10_000n * WAD, 170n, 2000n);
    await send(a, s.stabilityPool, sp, 'provideToSP', [40_000n * WAD, '0x0000000000000000000000000000000000000000']);
    await s.setPrice(1500n); // TCR ≈ 1.37: recovery mode; b at 120 % is between MCR and TCR
    expect(await view(s.troveManager, tm, 'checkRecoveryMode', [1500n * WAD])).toBe(true);
    expect(await revertOf(a, s.borrowerOperations, bo, 'withdrawColl', [WAD, a.address, a.address])).toMatch(
      /Collateral withdrawal not permitted Recovery Mode/,
    );
    expect(await revertOf(a, s.borrowerOperations, bo, 'closeTrove')).toMatch(/not permitted during Recovery Mode/);
    const [bDebt, bColl] = await trove(s, b);
    const r = await send(keeper, s.troveManager, tm, 'liquidate', [b.address]);
    const ev = events(r, LIQUITY_ARTIFACTS.troveManager.abi);
    expect(ev.find((e) => e.eventName === 'TroveLiquidated')!.args).toMatchObject({
      _borrower: b.address,
      _operation: 2,
    });
    const collToOffset = (bDebt * LIQUITY.MCR) / (1500n * WAD);
    const comp = collToOffset / 200n;
    expect(ev.find((e) => e.eventName === 'Liquidation')!.args).toEqual({
      _liquidatedDebt: bDebt,
      _liquidatedColl: collToOffset - comp,
      _collGasCompensation: comp,
      _LUSDGasCompensation: 200n * WAD,
    });
    // The rest of the collateral waits for its owner in the CollSurplusPool.
    const claim = await send(b, s.borrowerOperations, bo, 'claimCollateral');
    expect(claim.status).toBe('0x1');
    expect(await view(s.collSurplusPool, liquityPoolAbi, 'getETH')).toBe(0n);
    expect(bColl - collToOffset).toBeGreaterThan(0n);
  }, 60_000);

  it('redeems from the lowest collateral ratio up, with the redemption fee from the base rate', async () => {
    const s = await deploySystem(2000n);
    const [hi, mid, lo, redeemer] = [await user(), await user(), await user(), await user()];
    await openAt(s, hi, 30_000n * WAD, 300n, 2000n);
    await openAt(s, mid, 20_000n * WAD, 200n, 2000n);
    await openAt(s, lo, 10_000n * WAD, 150n, 2000n);
    await openAt(s, redeemer, 30_000n * WAD, 400n, 2000n);
    expect(await view(s.sortedTroves, sortedTrovesAbi, 'getLast')).toBe(lo.address);
    expect(await view(s.sortedTroves, sortedTrovesAbi, 'getFirst')).toBe(redeemer.address);
    const [loDebt] = await trove(s, lo);
    const [midDebt, midColl] = await trove(s, mid);
    const supply = await view<bigint>(s.troveManager, tm, 'getEntireSystemDebt');
    // All of lo's net debt and 5000 more from mid.
    const amount = loDebt - LIQUITY.GAS_COMPENSATION + 5000n * WAD;
    const price = 2000n * WAD;
    const [first, hintNicr, truncated] = await view<readonly [Address, bigint, bigint]>(
      s.hintHelpers,
      hintHelpersAbi,
      'getRedemptionHints',
      [amount, price, 0n],
    );
    expect(first).toBe(lo.address);
    expect(truncated).toBe(amount);
    const r = await send(redeemer, s.troveManager, tm, 'redeemCollateral', [
      amount,
      first,
      first,
      first,
      hintNicr,
      0n,
      WAD,
    ]);
    const ev = events(r, LIQUITY_ARTIFACTS.troveManager.abi);
    const drawn = ((amount - 5000n * WAD) * WAD) / price + (5000n * WAD * WAD) / price;
    const baseRate = (drawn * price) / supply / 2n;
    const fee = ((LIQUITY.REDEMPTION_FEE_FLOOR + baseRate) * drawn) / WAD;
    expect(ev.find((e) => e.eventName === 'BaseRateUpdated')!.args._baseRate).toBe(baseRate);
    expect(ev.find((e) => e.eventName === 'Redemption')!.args).toEqual({
      _attemptedLUSDAmount: amount,
      _actualLUSDAmount: amount,
      _ETHSent: drawn,
      _ETHFee: fee,
    });
    const updates = ev.filter((e) => e.eventName === 'TroveUpdated').map((e) => e.args);
    expect(updates.map((u) => u._borrower)).toEqual([lo.address, mid.address]);
    expect(updates[0]).toMatchObject({ _debt: 0n, _coll: 0n, _operation: 3 });
    expect(updates[1]).toMatchObject({
      _debt: midDebt - 5000n * WAD,
      _coll: midColl - (5000n * WAD * WAD) / price,
      _operation: 3,
    });
    expect((await trove(s, lo))[3]).toBe(4); // closedByRedemption
    expect((await trove(s, hi))[0]).toBe(30_000n * WAD + 150n * WAD + 200n * WAD);
    expect(await view(s.troveManager, tm, 'baseRate')).toBe(baseRate);
    expect(await view(s.troveManager, tm, 'getEntireSystemDebt')).toBe(supply - amount - LIQUITY.GAS_COMPENSATION);
    // The base rate now adds to the borrowing fee (capped at 5 %), and decays with a 12-hour half-life.
    const rate = await view<bigint>(s.troveManager, tm, 'getBorrowingRateWithDecay');
    const uncapped = LIQUITY.BORROWING_FEE_FLOOR + baseRate;
    expect(rate).toBe(uncapped < LIQUITY.MAX_BORROWING_FEE ? uncapped : LIQUITY.MAX_BORROWING_FEE);
    now += 12 * 3600 - 60;
    await mine();
    const decayed = await view<bigint>(s.troveManager, tm, 'getRedemptionRateWithDecay');
    expect(Number(decayed - LIQUITY.REDEMPTION_FEE_FLOOR) / Number(baseRate)).toBeCloseTo(0.5, 3);
  }, 60_000);
});
