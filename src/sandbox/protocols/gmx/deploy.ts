/**
 * GMX v2 on the Arbitrum sandbox chain: contracts of our own with GMX's event ABI and DataStore keys
 * (contracts/*.sol; GMX's bytecode is BUSL and not used), deployed in the chain's genesis block by the deployer, who
 * is also the protocol's keeper (it sets the oracle's prices each block and liquidates, as GMX's own keepers do):
 *
 *   DataStore, EventEmitter, Oracle, MarketEvents, MarketEngine, MarketFactory; the controllers wired; the fee
 *   receiver's shares; the genesis prices; the markets (GMX_MARKETS) and their seed liquidity.
 *
 * The market tokens are CREATE2 addresses of the factory (GMX's salt), known before the block is mined.
 */
import {
  type Abi,
  type Address,
  concat,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
  parseAbi,
} from 'viem';
import type { Agent } from '../../chain/agent.js';
import { createdAddress, erc20Abi, mintableErc20Abi, weth9Abi } from '../../chain/artifacts.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestToken } from '../../world/manifest.js';
import dataStoreArtifact from './contracts/DataStore.json' with { type: 'json' };
import eventEmitterArtifact from './contracts/EventEmitter.json' with { type: 'json' };
import marketEngineArtifact from './contracts/MarketEngine.json' with { type: 'json' };
import marketEventsArtifact from './contracts/MarketEvents.json' with { type: 'json' };
import marketFactoryArtifact from './contracts/MarketFactory.json' with { type: 'json' };
import marketTokenArtifact from './contracts/MarketToken.json' with { type: 'json' };
import oracleArtifact from './contracts/Oracle.json' with { type: 'json' };
import { type GmxSection, type GmxToken, gmxPrice, syntheticAddress } from './section.js';

const artifact = (a: { abi: unknown; bytecode: string }) => ({ abi: a.abi as Abi, bytecode: a.bytecode as Hex });
export const GMX_ARTIFACTS = {
  DataStore: artifact(dataStoreArtifact),
  EventEmitter: artifact(eventEmitterArtifact),
  Oracle: artifact(oracleArtifact),
  MarketEvents: artifact(marketEventsArtifact),
  MarketEngine: artifact(marketEngineArtifact),
  MarketFactory: artifact(marketFactoryArtifact),
  MarketToken: artifact(marketTokenArtifact),
} as const;

/** 30-decimal factors (GMX's FLOAT_PRECISION). */
const FLOAT = 10n ** 30n;
const usd = (dollars: number): bigint => BigInt(Math.round(dollars)) * FLOAT;

/**
 * The markets, in creation order: the two ETH markets share the index (one backed by WETH and USDC, one by WETH
 * alone: GMX's single-token market), and BTC/USD is a synthetic index (no token contract on the chain: GMX's
 * pseudo-address, priced at the world's WBTC price) backed by WETH and USDC. Configuration: the order of GMX's
 * Arbitrum markets (funding 2e-8 per second at full imbalance, borrowing 1e-8 per second at full utilisation, a
 * 0.06 % position fee, a 0.2 % liquidation fee, 1 % minimum collateral); seed liquidity and caps in USD.
 */
export const GMX_MARKETS = [
  { index: 'WETH', long: 'WETH', short: 'USDC', seedUsd: 20_000_000, maxOpenInterestUsd: 8_000_000 },
  { index: 'WETH', long: 'WETH', short: 'WETH', seedUsd: 10_000_000, maxOpenInterestUsd: 4_000_000 },
  { index: 'BTC', long: 'WETH', short: 'USDC', seedUsd: 8_000_000, maxOpenInterestUsd: 3_000_000 },
] as const;

/** The synthetic index tokens: symbol, the world token whose price they take, and their decimals (GMX's BTC: 8). */
export const GMX_SYNTHETICS = [{ symbol: 'BTC', priceSymbol: 'WBTC', decimals: 8 }] as const;

export const GMX_CONFIG = {
  fundingFactor: 2n * 10n ** 22n,
  borrowingFactor: 10n ** 22n,
  positionFeeFactor: 6n * 10n ** 26n,
  liquidationFeeFactor: 2n * 10n ** 27n,
  minCollateralFactor: 10n ** 28n,
  /** The fee receiver's shares of position, borrowing and liquidation fees (GMX: 37 %). */
  receiverFactor: 37n * 10n ** 28n,
  minCollateralUsd: FLOAT,
} as const;

export const gmxAbi = parseAbi([
  'struct MarketConfig { uint256 fundingFactor; uint256 borrowingFactor; uint256 maxOpenInterest; uint256 positionFeeFactor; uint256 liquidationFeeFactor; uint256 minCollateralFactor; }',
  'function addController(address controller)',
  'function setEngine(address engine)',
  'function setGlobals(uint256 position, uint256 borrowing, uint256 liquidation, uint256 minCollateralUsd)',
  'function createMarket(address indexToken, address longToken, address shortToken, MarketConfig c) returns (address)',
  'function setPrices(address[] tokens, uint256[] mins, uint256[] maxs)',
  'function deposit(address market, uint256 longAmount, uint256 shortAmount) returns (uint256)',
  'function increasePosition(address market, address collateralToken, bool isLong, uint256 collateralAmount, uint256 sizeDeltaUsd)',
  'function decreasePosition(address market, address collateralToken, bool isLong, uint256 sizeDeltaUsd)',
  'function liquidate(bytes32 key) returns (bool)',
  'function positionKey(address account, address market, address collateralToken, bool isLong) pure returns (bytes32)',
  'function positionStates(bytes32[] keys) view returns (uint256[] sizes, uint256[] collaterals, bool[] liquidatable)',
  'function openInterest(address market, bool isLong) view returns (uint256)',
  'function getUint(bytes32 key) view returns (uint256)',
  'function getInt(bytes32 key) view returns (int256)',
  'function getAddressCount(bytes32 setKey) view returns (uint256)',
  'function getAddressValuesAt(bytes32 setKey, uint256 start, uint256 end) view returns (address[])',
  'function getBytes32Count(bytes32 setKey) view returns (uint256)',
  'function getBytes32ValuesAt(bytes32 setKey, uint256 start, uint256 end) view returns (bytes32[])',
]);

const GAS_GMX = { deploy: 8_000_000n, setup: 300_000n, market: 3_000_000n, deposit: 600_000n, fund: 120_000n } as const;

/** The market token's address: CREATE2 of the factory with GMX's salt. */
export function marketTokenAddress(factory: Address, engine: Address, index: Address, long: Address, short: Address) {
  const salt = keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'address' }, { type: 'address' }, { type: 'address' }],
      ['GMX_MARKET', index, long, short],
    ),
  );
  const init = concat([GMX_ARTIFACTS.MarketToken.bytecode, encodeAbiParameters([{ type: 'address' }], [engine])]);
  return getContractAddress({ opcode: 'CREATE2', from: factory, salt, bytecode: init });
}

/** The tokens the oracle prices: the world's collateral tokens and the synthetic index tokens. */
export function gmxTokens(tokens: readonly ManifestToken[]): GmxToken[] {
  const out: GmxToken[] = [];
  const symbols = [...new Set(GMX_MARKETS.flatMap((m) => [m.index, m.long, m.short]))];
  for (const symbol of symbols) {
    const synthetic = GMX_SYNTHETICS.find((s) => s.symbol === symbol);
    const world = tokens.find((t) => t.symbol === (synthetic?.priceSymbol ?? symbol));
    if (!world) continue;
    const decimals = synthetic?.decimals ?? world.decimals;
    out.push({
      symbol,
      address: synthetic ? syntheticAddress(symbol) : world.address,
      decimals,
      oracleDecimals: 30 - decimals,
      priceSymbol: world.symbol,
      synthetic: synthetic !== undefined,
    });
  }
  return out;
}

/** Queues GMX v2 on the genesis block; returns its manifest section but for the start block. */
export function queueGmx(
  session: ChainSession,
  deployer: Agent,
  tokens: readonly ManifestToken[],
  weth: Address,
  scale: number,
  needsEth: (amount: () => bigint) => void,
): Omit<GmxSection, 'startBlock'> | undefined {
  const gmxTokenList = gmxTokens(tokens);
  const bySymbol = new Map(gmxTokenList.map((t) => [t.symbol, t]));
  if (GMX_MARKETS.some((m) => !bySymbol.has(m.index) || !bySymbol.has(m.long) || !bySymbol.has(m.short))) {
    return undefined;
  }
  const deploy = (name: keyof typeof GMX_ARTIFACTS, args: readonly unknown[]): Address => {
    const address = createdAddress(deployer.address, deployer.state.nonce);
    const a = GMX_ARTIFACTS[name];
    session.send(deployer, {
      to: null,
      data: encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args }),
      gas: GAS_GMX.deploy,
      kind: 'deploy',
    });
    return address;
  };
  const call = (to: Address, data: Hex, gas: bigint = GAS_GMX.setup, value?: bigint) =>
    session.send(deployer, { to, data, gas, kind: 'setup', ...(value !== undefined ? { value } : {}) });

  const dataStore = deploy('DataStore', []);
  const eventEmitter = deploy('EventEmitter', []);
  const oracle = deploy('Oracle', [eventEmitter]);
  const marketEvents = deploy('MarketEvents', [eventEmitter]);
  const marketEngine = deploy('MarketEngine', [dataStore, eventEmitter, oracle, marketEvents, deployer.address]);
  const marketFactory = deploy('MarketFactory', [dataStore, eventEmitter, oracle, marketEngine]);
  for (const c of [marketEngine, marketFactory]) {
    call(dataStore, encodeFunctionData({ abi: gmxAbi, functionName: 'addController', args: [c] }));
  }
  for (const c of [oracle, marketEvents, marketEngine, marketFactory]) {
    call(eventEmitter, encodeFunctionData({ abi: gmxAbi, functionName: 'addController', args: [c] }));
  }
  call(marketEvents, encodeFunctionData({ abi: gmxAbi, functionName: 'setEngine', args: [marketEngine] }));
  const r = GMX_CONFIG.receiverFactor;
  call(
    marketFactory,
    encodeFunctionData({ abi: gmxAbi, functionName: 'setGlobals', args: [r, r, r, GMX_CONFIG.minCollateralUsd] }),
  );
  // The genesis prices: the world's initial prices.
  const initial = (t: GmxToken) => tokens.find((w) => w.symbol === t.priceSymbol)!.initialPriceUsd;
  const priced = gmxTokenList.map((t) => ({ t, ...gmxPrice(initial(t), t.decimals) }));
  call(
    oracle,
    encodeFunctionData({
      abi: gmxAbi,
      functionName: 'setPrices',
      args: [priced.map((p) => p.t.address), priced.map((p) => p.min), priced.map((p) => p.max)],
    }),
    GAS_GMX.market,
  );

  const markets: GmxSection['markets'][number][] = [];
  let wethNeeded = 0n;
  const minted = new Map<Address, bigint>();
  for (const m of GMX_MARKETS) {
    const [index, long, short] = [bySymbol.get(m.index)!, bySymbol.get(m.long)!, bySymbol.get(m.short)!];
    const config = {
      fundingFactor: GMX_CONFIG.fundingFactor,
      borrowingFactor: GMX_CONFIG.borrowingFactor,
      maxOpenInterest: usd(m.maxOpenInterestUsd * scale),
      positionFeeFactor: GMX_CONFIG.positionFeeFactor,
      liquidationFeeFactor: GMX_CONFIG.liquidationFeeFactor,
      minCollateralFactor: GMX_CONFIG.minCollateralFactor,
    };
    call(
      marketFactory,
      encodeFunctionData({
        abi: gmxAbi,
        functionName: 'createMarket',
        args: [index.address, long.address, short.address, config],
      }),
      GAS_GMX.market,
    );
    const marketToken = marketTokenAddress(marketFactory, marketEngine, index.address, long.address, short.address);
    // Seed liquidity: half in each token (all in the one token of a single-token market).
    const amountOf = (t: GmxToken, dollars: number) =>
      BigInt(Math.round((dollars * scale) / initial(t))) * 10n ** BigInt(t.decimals);
    const same = long.address === short.address;
    const longAmount = amountOf(long, same ? m.seedUsd : m.seedUsd / 2);
    const shortAmount = same ? 0n : amountOf(short, m.seedUsd / 2);
    for (const [t, amount] of [
      [long, longAmount],
      [short, shortAmount],
    ] as const) {
      if (amount === 0n) continue;
      if (t.address.toLowerCase() === weth.toLowerCase()) wethNeeded += amount;
      else minted.set(t.address, (minted.get(t.address) ?? 0n) + amount);
    }
    markets.push({
      marketToken,
      name: `${m.index}/USD [${m.long}-${m.short}]`,
      indexToken: index.address,
      longToken: long.address,
      shortToken: short.address,
      indexSymbol: index.symbol,
      longSymbol: long.symbol,
      shortSymbol: short.symbol,
      synthetic: index.synthetic,
      seed: { longAmount: longAmount.toString(), shortAmount: shortAmount.toString() },
    });
  }
  // The deployer's seed tokens: wrapped ETH and minted faucet tokens, approved to the factory, then the deposits.
  needsEth(() => wethNeeded);
  call(weth, encodeFunctionData({ abi: weth9Abi, functionName: 'deposit' }), GAS_GMX.fund, wethNeeded);
  call(weth, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [marketFactory, maxUint256] }));
  for (const [token, amount] of minted) {
    call(token, encodeFunctionData({ abi: mintableErc20Abi, functionName: 'mint', args: [amount] }), GAS_GMX.fund);
    call(token, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [marketFactory, maxUint256] }));
  }
  for (const m of markets) {
    call(
      marketFactory,
      encodeFunctionData({
        abi: gmxAbi,
        functionName: 'deposit',
        args: [m.marketToken, BigInt(m.seed.longAmount), BigInt(m.seed.shortAmount)],
      }),
      GAS_GMX.deposit,
    );
  }
  return {
    dataStore,
    eventEmitter,
    oracle,
    marketEvents,
    marketEngine,
    marketFactory,
    keeper: deployer.address,
    feeReceiver: deployer.address,
    tokens: gmxTokenList,
    markets,
  };
}
