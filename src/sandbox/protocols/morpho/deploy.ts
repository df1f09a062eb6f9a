/**
 * Morpho Blue in the sandbox: the real protocol bytecode, compiled offline from `@morpho-org/morpho-blue@1.0.0`
 * with its own settings (tools/compile-contracts.mjs → contracts/Morpho.json), one singleton with isolated markets
 * lending USDC against WETH, wstETH and WBTC. Each market has an oracle of our own (contracts/FeedPriceOracle.sol:
 * the collateral's feed over USDC's, 1e36-scaled) and the same interest rate model of our own
 * (contracts/FixedCurveIrm.sol: AdaptiveCurveIrm's curve without the adaptation, which ships in a repository of its
 * own, not on npm).
 *
 * Deployed in the genesis block after Aave; animated by the actors of actors.ts.
 */
import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  keccak256,
  parseAbi,
} from 'viem';
import { registry } from '../../../registry/index.js';
import type { Agent } from '../../chain/agent.js';
import { createdAddress } from '../../chain/artifacts.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestMorpho, ManifestMorphoMarket, ManifestToken } from '../../world/manifest.js';
import feedOracleArtifact from './contracts/FeedPriceOracle.json' with { type: 'json' };
import irmArtifact from './contracts/FixedCurveIrm.json' with { type: 'json' };
import morphoArtifact from './contracts/Morpho.json' with { type: 'json' };

export const MORPHO_BLUE = { abi: morphoArtifact.abi as Abi, bytecode: morphoArtifact.bytecode as Hex };
export const FIXED_CURVE_IRM = { abi: irmArtifact.abi as Abi, bytecode: irmArtifact.bytecode as Hex };
export const FEED_PRICE_ORACLE = { abi: feedOracleArtifact.abi as Abi, bytecode: feedOracleArtifact.bytecode as Hex };

const MARKET_PARAMS =
  'struct MarketParams { address loanToken; address collateralToken; address oracle; address irm; uint256 lltv; }';

export const morphoAbi = parseAbi([
  MARKET_PARAMS,
  'function owner() view returns (address)',
  'function enableIrm(address irm)',
  'function enableLltv(uint256 lltv)',
  'function createMarket(MarketParams marketParams)',
  'function supply(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data) returns (uint256, uint256)',
  'function withdraw(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver) returns (uint256, uint256)',
  'function borrow(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, address receiver) returns (uint256, uint256)',
  'function repay(MarketParams marketParams, uint256 assets, uint256 shares, address onBehalf, bytes data) returns (uint256, uint256)',
  'function supplyCollateral(MarketParams marketParams, uint256 assets, address onBehalf, bytes data)',
  'function withdrawCollateral(MarketParams marketParams, uint256 assets, address onBehalf, address receiver)',
  'function liquidate(MarketParams marketParams, address borrower, uint256 seizedAssets, uint256 repaidShares, bytes data) returns (uint256, uint256)',
  'function position(bytes32 id, address user) view returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)',
  'function market(bytes32 id) view returns (uint128 totalSupplyAssets, uint128 totalSupplyShares, uint128 totalBorrowAssets, uint128 totalBorrowShares, uint128 lastUpdate, uint128 fee)',
  'function idToMarketParams(bytes32 id) view returns (address loanToken, address collateralToken, address oracle, address irm, uint256 lltv)',
  'function isIrmEnabled(address irm) view returns (bool)',
  'event Liquidate(bytes32 indexed id, address indexed caller, address indexed borrower, uint256 repaidAssets, uint256 repaidShares, uint256 seizedAssets, uint256 badDebtAssets, uint256 badDebtShares)',
]);

export const morphoOracleAbi = parseAbi(['function price() view returns (uint256)']);

export const WAD = 10n ** 18n;
export const ORACLE_PRICE_SCALE = 10n ** 36n;

/**
 * The markets: USDC lent against each collateral, with mainnet's LLTVs for these pairs (86 % for WETH and wstETH,
 * 77 % for WBTC, as two of Morpho's enabled LLTVs); the collateral must be a listed asset of the registry's market.
 */
export const MORPHO_PLAN = {
  protocol: 'morpho',
  loan: 'USDC',
  markets: [
    { collateral: 'WETH', lltv: 860_000_000_000_000_000n },
    { collateral: 'wstETH', lltv: 860_000_000_000_000_000n },
    { collateral: 'WBTC', lltv: 770_000_000_000_000_000n },
  ],
  /** Borrow rate at 90 % utilisation: 4 % a year (AdaptiveCurveIrm's initial rate at target), per second. */
  rateAtTargetPerSecond: (4n * WAD) / 100n / (365n * 86400n),
} as const;

const GAS_MORPHO = {
  deploy: 8_000_000n,
  setup: 500_000n,
} as const;

export interface MarketParams {
  readonly loanToken: Address;
  readonly collateralToken: Address;
  readonly oracle: Address;
  readonly irm: Address;
  readonly lltv: bigint;
}

/** A market's id: keccak256 of its ABI-encoded parameters (MarketParamsLib.id). */
export function morphoMarketId(p: MarketParams): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
      [p.loanToken, p.collateralToken, p.oracle, p.irm, p.lltv],
    ),
  );
}

export type QueuedMorpho = Omit<ManifestMorpho, 'startBlock'>;

/** Queues Morpho Blue, its IRM, one oracle per market and the markets (the deployer owns Morpho). */
export function queueMorpho(
  session: ChainSession,
  deployer: Agent,
  tokens: readonly ManifestToken[],
  priceSources: ReadonlyMap<string, Address>,
): QueuedMorpho | undefined {
  const listing = registry
    .lendingMarkets()
    .find(
      (r) =>
        r.protocol.id === MORPHO_PLAN.protocol && r.market.chain === 'ethereum' && r.market.design === 'morpho-blue',
    );
  const loan = tokens.find((t) => t.symbol === MORPHO_PLAN.loan);
  const loanFeed = priceSources.get(MORPHO_PLAN.loan);
  if (!listing || !loan || !loanFeed || listing.market.baseAsset !== MORPHO_PLAN.loan) return undefined;
  const listed = new Set(listing.market.assets.map((a) => a.symbol));
  const deploy = (data: Hex): Address => {
    const address = createdAddress(deployer.address, deployer.state.nonce);
    session.send(deployer, { to: null, data, gas: GAS_MORPHO.deploy, kind: 'deploy' });
    return address;
  };
  const setup = (to: Address, data: Hex) => session.send(deployer, { to, data, gas: GAS_MORPHO.setup, kind: 'setup' });

  const morpho = deploy(
    encodeDeployData({ abi: MORPHO_BLUE.abi, bytecode: MORPHO_BLUE.bytecode, args: [deployer.address] }),
  );
  const irm = deploy(
    encodeDeployData({
      abi: FIXED_CURVE_IRM.abi,
      bytecode: FIXED_CURVE_IRM.bytecode,
      args: [MORPHO_PLAN.rateAtTargetPerSecond],
    }),
  );
  setup(morpho, encodeFunctionData({ abi: morphoAbi, functionName: 'enableIrm', args: [irm] }));
  const lltvs = new Set<bigint>();
  const markets: ManifestMorphoMarket[] = [];
  for (const m of MORPHO_PLAN.markets) {
    const collateral = tokens.find((t) => t.symbol === m.collateral);
    const feed = priceSources.get(m.collateral);
    if (!collateral || !feed || !listed.has(m.collateral)) continue;
    if (!lltvs.has(m.lltv)) {
      lltvs.add(m.lltv);
      setup(morpho, encodeFunctionData({ abi: morphoAbi, functionName: 'enableLltv', args: [m.lltv] }));
    }
    const oracle = deploy(
      encodeDeployData({
        abi: FEED_PRICE_ORACLE.abi,
        bytecode: FEED_PRICE_ORACLE.bytecode,
        args: [feed, loanFeed, collateral.decimals, loan.decimals],
      }),
    );
    const params: MarketParams = {
      loanToken: loan.address,
      collateralToken: collateral.address,
      oracle,
      irm,
      lltv: m.lltv,
    };
    setup(morpho, encodeFunctionData({ abi: morphoAbi, functionName: 'createMarket', args: [params] }));
    markets.push({
      id: morphoMarketId(params),
      loanToken: loan.address,
      collateralToken: collateral.address,
      collateralSymbol: collateral.symbol,
      oracle,
      irm,
      lltv: m.lltv.toString(),
    });
  }
  return {
    protocol: 'morpho',
    chain: 'ethereum',
    version: listing.market.version,
    baseAsset: listing.market.baseAsset,
    design: 'morpho-blue',
    morpho,
    markets,
  };
}

/** Checks the mined Morpho against its plan (owner, IRM, every market's parameters and a live oracle price). */
export async function readMorpho(
  rpc: ChainSession['rpc'],
  queued: QueuedMorpho,
  startBlock: number,
): Promise<ManifestMorpho> {
  const call = (to: Address, data: Hex) => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
  const calls = [
    call(queued.morpho, encodeFunctionData({ abi: morphoAbi, functionName: 'owner' })),
    ...queued.markets.flatMap((m) => [
      call(queued.morpho, encodeFunctionData({ abi: morphoAbi, functionName: 'idToMarketParams', args: [m.id] })),
      call(m.oracle, encodeFunctionData({ abi: morphoOracleAbi, functionName: 'price' })),
    ]),
  ];
  const results = await rpc.batchResults<Hex>(calls);
  const problems: string[] = [];
  if (results[0] === '0x') problems.push('no Morpho code');
  queued.markets.forEach((m, i) => {
    const [loanToken, collateralToken, oracle, irm, lltv] = decodeFunctionResult({
      abi: morphoAbi,
      functionName: 'idToMarketParams',
      data: results[1 + 2 * i]!,
    });
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    if (
      !same(loanToken, m.loanToken) ||
      !same(collateralToken, m.collateralToken) ||
      !same(oracle, m.oracle) ||
      !same(irm, m.irm) ||
      lltv.toString() !== m.lltv
    ) {
      problems.push(`market ${m.collateralSymbol} (${m.id}) is not created as planned`);
    }
    if (!(BigInt(results[2 + 2 * i]!) > 0n)) problems.push(`market ${m.collateralSymbol}: the oracle has no price`);
  });
  if (problems.length) throw new Error(`morpho sandbox: ${problems.join('; ')}`);
  return { ...queued, startBlock };
}
