/**
 * Liquity v1 in the sandbox, from contracts of our own (contracts/*.sol, MIT): the rules of Liquity v1 (troves with
 * native ETH collateral, 110 % MCR, 150 % CCR and recovery mode, the Stability Pool with redistribution, redemptions,
 * the borrowing and redemption fees) behind mainnet's events and views, priced by the sandbox's own ETH/USD feed.
 *
 * Deployed in the genesis block after the lending markets: the core contracts wired to each other, then the
 * deployer's own trove, whose LUSD seeds a LUSD/USDC Uniswap V2 pair (the pool the peg is read from and redemptions
 * are arbitraged on). Animated by the actors of actors.ts.
 */
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  maxUint256,
  parseAbi,
} from 'viem';
import type { Agent } from '../../chain/agent.js';
import { createdAddress, erc20Abi, mintableErc20Abi } from '../../chain/artifacts.js';
import type { RpcClient } from '../../chain/rpc.js';
import { type ChainSession, GAS } from '../../chain/session.js';
import type { ManifestDex, ManifestLiquity, ManifestToken } from '../../world/manifest.js';
import { sortTokens, v2PairAddress, v2RouterAbi } from '../uniswap/artifacts.js';
import activePoolArtifact from './contracts/ActivePool.json' with { type: 'json' };
import borrowerOperationsArtifact from './contracts/BorrowerOperations.json' with { type: 'json' };
import collSurplusPoolArtifact from './contracts/CollSurplusPool.json' with { type: 'json' };
import defaultPoolArtifact from './contracts/DefaultPool.json' with { type: 'json' };
import gasPoolArtifact from './contracts/GasPool.json' with { type: 'json' };
import hintHelpersArtifact from './contracts/HintHelpers.json' with { type: 'json' };
import readerArtifact from './contracts/LiquitySandboxReader.json' with { type: 'json' };
import lusdArtifact from './contracts/LUSDToken.json' with { type: 'json' };
import priceFeedArtifact from './contracts/PriceFeed.json' with { type: 'json' };
import sortedTrovesArtifact from './contracts/SortedTroves.json' with { type: 'json' };
import stabilityPoolArtifact from './contracts/StabilityPool.json' with { type: 'json' };
import troveManagerArtifact from './contracts/TroveManager.json' with { type: 'json' };

interface Artifact {
  readonly abi: Abi;
  readonly bytecode: Hex;
}
const art = (a: { abi: unknown; bytecode: string }): Artifact => ({ abi: a.abi as Abi, bytecode: a.bytecode as Hex });

/** The compiled contracts (tools/compile-contracts.mjs), in deployment order. */
export const LIQUITY_ARTIFACTS = {
  priceFeed: art(priceFeedArtifact),
  sortedTroves: art(sortedTrovesArtifact),
  troveManager: art(troveManagerArtifact),
  activePool: art(activePoolArtifact),
  stabilityPool: art(stabilityPoolArtifact),
  gasPool: art(gasPoolArtifact),
  collSurplusPool: art(collSurplusPoolArtifact),
  defaultPool: art(defaultPoolArtifact),
  borrowerOperations: art(borrowerOperationsArtifact),
  lusdToken: art(lusdArtifact),
  hintHelpers: art(hintHelpersArtifact),
  /** Not Liquity's: the sandbox actors' one-call reader of Liquity's views. */
  reader: art(readerArtifact),
} as const;

/** Mainnet's signatures of what the sandbox and its tests call (a reader written for mainnet uses the same). */
export const troveManagerAbi = parseAbi([
  'function stabilityPool() view returns (address)',
  'function activePool() view returns (address)',
  'function defaultPool() view returns (address)',
  'function lusdToken() view returns (address)',
  'function sortedTroves() view returns (address)',
  'function priceFeed() view returns (address)',
  'function borrowerOperationsAddress() view returns (address)',
  'function getEntireSystemColl() view returns (uint256)',
  'function getEntireSystemDebt() view returns (uint256)',
  'function getTCR(uint256 _price) view returns (uint256)',
  'function checkRecoveryMode(uint256 _price) view returns (bool)',
  'function Troves(address) view returns (uint256 debt, uint256 coll, uint256 stake, uint8 status, uint128 arrayIndex)',
  'function getTroveOwnersCount() view returns (uint256)',
  'function getTroveFromTroveOwnersArray(uint256 _index) view returns (address)',
  'function getCurrentICR(address _borrower, uint256 _price) view returns (uint256)',
  'function getNominalICR(address _borrower) view returns (uint256)',
  'function getEntireDebtAndColl(address _borrower) view returns (uint256 debt, uint256 coll, uint256 pendingLUSDDebtReward, uint256 pendingETHReward)',
  'function baseRate() view returns (uint256)',
  'function lastFeeOperationTime() view returns (uint256)',
  'function L_ETH() view returns (uint256)',
  'function L_LUSDDebt() view returns (uint256)',
  'function totalStakes() view returns (uint256)',
  'function getBorrowingRateWithDecay() view returns (uint256)',
  'function getRedemptionRateWithDecay() view returns (uint256)',
  'function liquidate(address _borrower)',
  'function liquidateTroves(uint256 _n)',
  'function batchLiquidateTroves(address[] _troveArray)',
  'function redeemCollateral(uint256 _LUSDAmount, address _firstRedemptionHint, address _upperPartialRedemptionHint, address _lowerPartialRedemptionHint, uint256 _partialRedemptionHintNICR, uint256 _maxIterations, uint256 _maxFee)',
  'event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 _stake, uint8 _operation)',
  'event TroveLiquidated(address indexed _borrower, uint256 _debt, uint256 _coll, uint8 _operation)',
  'event Liquidation(uint256 _liquidatedDebt, uint256 _liquidatedColl, uint256 _collGasCompensation, uint256 _LUSDGasCompensation)',
  'event Redemption(uint256 _attemptedLUSDAmount, uint256 _actualLUSDAmount, uint256 _ETHSent, uint256 _ETHFee)',
  'event BaseRateUpdated(uint256 _baseRate)',
  'event LTermsUpdated(uint256 _L_ETH, uint256 _L_LUSDDebt)',
]);

export const borrowerOperationsAbi = parseAbi([
  'function openTrove(uint256 _maxFeePercentage, uint256 _LUSDAmount, address _upperHint, address _lowerHint) payable',
  'function addColl(address _upperHint, address _lowerHint) payable',
  'function withdrawColl(uint256 _amount, address _upperHint, address _lowerHint)',
  'function withdrawLUSD(uint256 _maxFeePercentage, uint256 _amount, address _upperHint, address _lowerHint)',
  'function repayLUSD(uint256 _amount, address _upperHint, address _lowerHint)',
  'function adjustTrove(uint256 _maxFeePercentage, uint256 _collWithdrawal, uint256 _LUSDChange, bool _isDebtIncrease, address _upperHint, address _lowerHint) payable',
  'function closeTrove()',
  'function claimCollateral()',
  'event TroveCreated(address indexed _borrower, uint256 arrayIndex)',
  'event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 stake, uint8 operation)',
  'event LUSDBorrowingFeePaid(address indexed _borrower, uint256 _LUSDFee)',
]);

export const stabilityPoolAbi = parseAbi([
  'function provideToSP(uint256 _amount, address _frontEndTag)',
  'function withdrawFromSP(uint256 _amount)',
  'function getTotalLUSDDeposits() view returns (uint256)',
  'function getETH() view returns (uint256)',
  'function getCompoundedLUSDDeposit(address _depositor) view returns (uint256)',
  'function getDepositorETHGain(address _depositor) view returns (uint256)',
  'event StabilityPoolLUSDBalanceUpdated(uint256 _newBalance)',
  'event StabilityPoolETHBalanceUpdated(uint256 _newBalance)',
]);

export const liquityPoolAbi = parseAbi([
  'function getETH() view returns (uint256)',
  'function getLUSDDebt() view returns (uint256)',
]);

export const liquityPriceFeedAbi = parseAbi([
  'function lastGoodPrice() view returns (uint256)',
  'function fetchPrice() returns (uint256)',
  'event LastGoodPriceUpdated(uint256 _lastGoodPrice)',
]);

export const sortedTrovesAbi = parseAbi([
  'function getFirst() view returns (address)',
  'function getLast() view returns (address)',
  'function getNext(address _id) view returns (address)',
  'function getPrev(address _id) view returns (address)',
  'function getSize() view returns (uint256)',
]);

export const hintHelpersAbi = parseAbi([
  'function getRedemptionHints(uint256 _LUSDamount, uint256 _price, uint256 _maxIterations) view returns (address firstRedemptionHint, uint256 partialRedemptionHintNICR, uint256 truncatedLUSDamount)',
]);

export const readerAbi = parseAbi([
  'struct System { uint256 lastGoodPrice; uint256 systemColl; uint256 systemDebt; uint256 spDeposits; uint256 borrowingRate; uint256 redemptionRate; uint256 reserve0; uint256 reserve1; }',
  'function read(address troveManager, address stabilityPool, address priceFeed, address pair, address[] troves, address[] depositors) view returns (System s, uint256[] debts, uint256[] colls, uint256[] deposits)',
]);

export const v2PairReservesAbi = parseAbi([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)',
]);

export const WAD = 10n ** 18n;
/** Mainnet's constants (LiquityBase.sol). */
export const LIQUITY = {
  MCR: 1_100_000_000_000_000_000n,
  CCR: 1_500_000_000_000_000_000n,
  GAS_COMPENSATION: 200n * WAD,
  MIN_NET_DEBT: 1800n * WAD,
  BORROWING_FEE_FLOOR: 5_000_000_000_000_000n,
  REDEMPTION_FEE_FLOOR: 5_000_000_000_000_000n,
  MAX_BORROWING_FEE: 50_000_000_000_000_000n,
} as const;

/**
 * What the genesis block sets up, at scale 1: the deployer's trove (collateral ratio 250 %) borrows the LUSD side of
 * the LUSD/USDC pair, which is seeded 1:1 with this much of each.
 */
export const LIQUITY_PLAN = {
  protocol: 'liquity',
  /** LUSD (and USDC) seeded in the pair, at scale 1. */
  poolSideUsd: 2e6,
  deployerIcr: 2.5,
  /** SortedTroves' capacity (mainnet: 2^256 − 1). */
  maxTroves: 1_000_000n,
} as const;

const GAS_LIQUITY = {
  deploy: 6_000_000n,
  wire: 500_000n,
  openTrove: 1_500_000n,
  addLiquidity: 3_500_000n,
} as const;

export type QueuedLiquity = Omit<ManifestLiquity, 'startBlock'>;

/** The core contracts' addresses (mainnet's names). */
export type LiquityCore = Pick<
  ManifestLiquity,
  | 'troveManager'
  | 'borrowerOperations'
  | 'stabilityPool'
  | 'activePool'
  | 'defaultPool'
  | 'collSurplusPool'
  | 'gasPool'
  | 'sortedTroves'
  | 'priceFeed'
  | 'hintHelpers'
  | 'lusd'
  | 'feeRecipient'
  | 'ethUsdFeed'
>;

/** Queues the deployment of the core contracts and their wiring (the PriceFeed reads `ethUsdFeed`, live). */
export function queueLiquityCore(session: ChainSession, deployer: Agent, ethUsdFeed: Address): LiquityCore {
  const a = LIQUITY_ARTIFACTS;
  const deploy = (artifact: Artifact, args: readonly unknown[] = []): Address => {
    const address = createdAddress(deployer.address, deployer.state.nonce);
    const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    session.send(deployer, { to: null, data, gas: GAS_LIQUITY.deploy, kind: 'deploy' });
    return address;
  };
  const wire = (to: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
    session.send(deployer, {
      to,
      data: encodeFunctionData({ abi, functionName, args }),
      gas: GAS_LIQUITY.wire,
      kind: 'setup',
    });

  const priceFeed = deploy(a.priceFeed, [ethUsdFeed]);
  const sortedTroves = deploy(a.sortedTroves);
  const troveManager = deploy(a.troveManager);
  const activePool = deploy(a.activePool);
  const stabilityPool = deploy(a.stabilityPool);
  const gasPool = deploy(a.gasPool);
  const collSurplusPool = deploy(a.collSurplusPool);
  const defaultPool = deploy(a.defaultPool);
  const borrowerOperations = deploy(a.borrowerOperations);
  const lusd = deploy(a.lusdToken);
  const hintHelpers = deploy(a.hintHelpers, [troveManager, sortedTroves]);
  const feeRecipient = deployer.address;

  wire(sortedTroves, a.sortedTroves.abi, 'setParams', [LIQUITY_PLAN.maxTroves, troveManager, borrowerOperations]);
  wire(troveManager, a.troveManager.abi, 'setAddresses', [
    borrowerOperations,
    activePool,
    defaultPool,
    stabilityPool,
    gasPool,
    collSurplusPool,
    priceFeed,
    lusd,
    sortedTroves,
    feeRecipient,
  ]);
  wire(borrowerOperations, a.borrowerOperations.abi, 'setAddresses', [
    troveManager,
    activePool,
    defaultPool,
    stabilityPool,
    gasPool,
    collSurplusPool,
    priceFeed,
    sortedTroves,
    lusd,
    feeRecipient,
  ]);
  wire(lusd, a.lusdToken.abi, 'setAddresses', [troveManager, stabilityPool, borrowerOperations]);
  wire(stabilityPool, a.stabilityPool.abi, 'setAddresses', [
    borrowerOperations,
    troveManager,
    activePool,
    lusd,
    sortedTroves,
    priceFeed,
  ]);
  wire(activePool, a.activePool.abi, 'setAddresses', [borrowerOperations, troveManager, stabilityPool, defaultPool]);
  wire(defaultPool, a.defaultPool.abi, 'setAddresses', [troveManager, activePool]);
  wire(collSurplusPool, a.collSurplusPool.abi, 'setAddresses', [borrowerOperations, troveManager, activePool]);
  return {
    troveManager,
    borrowerOperations,
    stabilityPool,
    activePool,
    defaultPool,
    collSurplusPool,
    gasPool,
    sortedTroves,
    priceFeed,
    hintHelpers,
    lusd,
    feeRecipient,
    ethUsdFeed,
  };
}

/**
 * Queues Liquity on the genesis block: the core contracts, the deployer's trove and the LUSD/USDC pair on `dex`
 * (a Uniswap V2 deployment). `ethUsdFeed` is the ETH/USD feed proxy the PriceFeed reads, `ethUsdPrice` its first
 * answer. Returns the addresses and the native ETH the deployer needs for its trove's collateral.
 */
export function queueLiquity(
  session: ChainSession,
  deployer: Agent,
  opts: {
    ethUsdFeed: Address;
    ethUsdPrice: number;
    usdc: ManifestToken;
    dex: ManifestDex;
    scale: number;
    deadline: bigint;
  },
): { queued: QueuedLiquity; ethNeeded: bigint } {
  const core = queueLiquityCore(session, deployer, opts.ethUsdFeed);
  const { lusd, borrowerOperations } = core;
  const reader = createdAddress(deployer.address, deployer.state.nonce);
  session.send(deployer, {
    to: null,
    data: LIQUITY_ARTIFACTS.reader.bytecode,
    gas: GAS_LIQUITY.deploy,
    kind: 'deploy',
  });
  // The deployer's trove: its LUSD is the pair's LUSD side (the fee comes on top of the debt, not off the LUSD).
  const side = BigInt(Math.round(LIQUITY_PLAN.poolSideUsd * Math.max(opts.scale, 0.05)));
  const lusdAmount = side * WAD;
  const debtUsd = Number(side) * 1.005 + 200;
  const coll = BigInt(Math.ceil((debtUsd * LIQUITY_PLAN.deployerIcr) / opts.ethUsdPrice)) * WAD;
  session.send(deployer, {
    to: borrowerOperations,
    data: encodeFunctionData({
      abi: borrowerOperationsAbi,
      functionName: 'openTrove',
      args: [WAD, lusdAmount, deployer.address, deployer.address],
    }),
    value: coll,
    gas: GAS_LIQUITY.openTrove,
    kind: 'setup',
  });

  const usdcAmount = side * 10n ** BigInt(opts.usdc.decimals);
  session.send(deployer, {
    to: opts.usdc.address,
    data: encodeFunctionData({ abi: mintableErc20Abi, functionName: 'mint', args: [usdcAmount] }),
    gas: GAS.mint,
    kind: 'fund',
  });
  for (const token of [lusd, opts.usdc.address]) {
    session.send(deployer, {
      to: token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [opts.dex.router, maxUint256] }),
      gas: GAS.approve,
      kind: 'approve',
    });
  }
  session.send(deployer, {
    to: opts.dex.router,
    data: encodeFunctionData({
      abi: v2RouterAbi,
      functionName: 'addLiquidity',
      args: [lusd, opts.usdc.address, lusdAmount, usdcAmount, 0n, 0n, deployer.address, opts.deadline],
    }),
    gas: GAS_LIQUITY.addLiquidity,
    kind: 'setup',
  });
  const [token0, token1] = sortTokens(lusd, opts.usdc.address);
  return {
    queued: {
      protocol: 'liquity',
      chain: 'ethereum',
      ...core,
      reader,
      pool: {
        address: v2PairAddress(opts.dex.factory, lusd, opts.usdc.address),
        factory: opts.dex.factory,
        router: opts.dex.router,
        token0,
        token1,
        usdc: opts.usdc.address,
        usdcDecimals: opts.usdc.decimals,
      },
    },
    ethNeeded: coll,
  };
}

/** Checks the mined deployment: TroveManager's getters name the contracts deployed, a price, the deployer's trove. */
export async function readLiquity(rpc: RpcClient, queued: QueuedLiquity, startBlock: number): Promise<ManifestLiquity> {
  const getters = [
    ['stabilityPool', queued.stabilityPool],
    ['activePool', queued.activePool],
    ['defaultPool', queued.defaultPool],
    ['lusdToken', queued.lusd],
    ['sortedTroves', queued.sortedTroves],
    ['priceFeed', queued.priceFeed],
    ['borrowerOperationsAddress', queued.borrowerOperations],
  ] as const;
  const call = (to: Address, data: Hex) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
  const results = await rpc.batchResults<Hex>([
    ...getters.map(([name]) =>
      call(queued.troveManager, encodeFunctionData({ abi: troveManagerAbi, functionName: name })),
    ),
    call(queued.priceFeed, encodeFunctionData({ abi: liquityPriceFeedAbi, functionName: 'lastGoodPrice' })),
    call(queued.troveManager, encodeFunctionData({ abi: troveManagerAbi, functionName: 'getTroveOwnersCount' })),
    call(queued.pool.address, encodeFunctionData({ abi: v2PairReservesAbi, functionName: 'getReserves' })),
  ]);
  const problems: string[] = [];
  getters.forEach(([name, expected], i) => {
    const got = decodeFunctionResult({ abi: troveManagerAbi, functionName: name, data: results[i]! }) as string;
    if (got.toLowerCase() !== expected.toLowerCase())
      problems.push(`TroveManager.${name}() is ${got}, not ${expected}`);
  });
  const n = getters.length;
  if (!(BigInt(results[n]!) > 0n)) problems.push('the PriceFeed has no price');
  if (BigInt(results[n + 1]!) !== 1n) problems.push('the deployer’s trove is not open');
  if (!results[n + 2] || results[n + 2] === '0x') problems.push('no LUSD/USDC pair');
  if (problems.length) throw new Error(`liquity sandbox: ${problems.join('; ')}`);
  return { ...queued, startBlock };
}
