/**
 * Aave V3 from `@aave/core-v3@1.19.3`'s Hardhat artifacts: the real, audited bytecode, never recompiled, with the
 * library linking `chain/artifacts.ts` deliberately refuses, and the ABIs of the calls and events the sandbox uses.
 *
 * Linking: `Pool` calls seven external libraries and `PoolConfigurator` one, through 20-byte placeholders
 * (`__$<hash>$__`) at the byte offsets the artifact's `linkReferences` lists. A library may itself link others
 * (`FlashLoanLogic` links `BorrowLogic`), so libraries are deployed in dependency order (`libraryOrder`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Abi, type Address, type Hex, parseAbi } from 'viem';
import type { Artifact } from '../../chain/artifacts.js';

const require = createRequire(import.meta.url);

const PACKAGE = '@aave/core-v3';

/** An artifact whose bytecode may hold library placeholders, with the libraries it needs (by name). */
export interface LinkableArtifact extends Artifact {
  /** Library name → byte offsets of its 20-byte placeholders in the creation bytecode. */
  readonly links: Readonly<Record<string, readonly number[]>>;
  /** Library name → its source path in the package (`contracts/…/X.sol`), to find its own artifact. */
  readonly librarySources: Readonly<Record<string, string>>;
}

interface RawHardhatArtifact {
  readonly contractName: string;
  readonly abi: Abi;
  readonly bytecode: string;
  readonly linkReferences?: Record<string, Record<string, { start: number; length: number }[]>>;
}

function loadArtifact(sourcePath: string, contractName: string): LinkableArtifact {
  const path = `${PACKAGE}/artifacts/${sourcePath}/${contractName}.json`;
  const raw = require(path) as RawHardhatArtifact;
  if (raw.bytecode.length <= 2) throw new Error(`${path}: the artifact has no bytecode (abstract contract)`);
  const links: Record<string, number[]> = {};
  const librarySources: Record<string, string> = {};
  for (const [source, libraries] of Object.entries(raw.linkReferences ?? {})) {
    for (const [name, refs] of Object.entries(libraries)) {
      for (const ref of refs) {
        if (ref.length !== 20) throw new Error(`${path}: a ${ref.length}-byte link reference to ${name}`);
      }
      links[name] = refs.map((r) => r.start);
      librarySources[name] = source;
    }
  }
  return { contractName, abi: raw.abi, bytecode: raw.bytecode as Hex, links, librarySources };
}

/**
 * The creation bytecode with every library placeholder replaced by the library's address. Throws when a library
 * is missing, and when a patched span did not hold a placeholder (the offsets and the bytecode disagree).
 */
export function linkBytecode(artifact: LinkableArtifact, libraries: Readonly<Record<string, Address>>): Hex {
  let code = artifact.bytecode.slice(2);
  for (const [name, offsets] of Object.entries(artifact.links)) {
    const address = libraries[name];
    if (!address) throw new Error(`${artifact.contractName}: library ${name} is not deployed`);
    for (const offset of offsets) {
      const at = offset * 2;
      if (!code.startsWith('__$', at)) {
        throw new Error(`${artifact.contractName}: no placeholder for ${name} at byte ${offset}`);
      }
      code = code.slice(0, at) + address.slice(2).toLowerCase() + code.slice(at + 40);
    }
  }
  if (code.includes('__$')) throw new Error(`${artifact.contractName}: unlinked placeholders remain`);
  return `0x${code}`;
}

let cache: ReturnType<typeof loadAll> | undefined;

function loadAll() {
  const pool = loadArtifact('contracts/protocol/pool/Pool.sol', 'Pool');
  const poolConfigurator = loadArtifact('contracts/protocol/pool/PoolConfigurator.sol', 'PoolConfigurator');
  // Every library the two linked contracts need, and the libraries those need, found through the link references.
  const libraries = new Map<string, LinkableArtifact>();
  const pending: LinkableArtifact[] = [pool, poolConfigurator];
  for (let next = pending.pop(); next; next = pending.pop()) {
    for (const [name, source] of Object.entries(next.librarySources)) {
      if (libraries.has(name)) continue;
      const library = loadArtifact(source, name);
      libraries.set(name, library);
      pending.push(library);
    }
  }
  return {
    pool,
    poolConfigurator,
    libraries,
    addressesProvider: loadArtifact(
      'contracts/protocol/configuration/PoolAddressesProvider.sol',
      'PoolAddressesProvider',
    ),
    aclManager: loadArtifact('contracts/protocol/configuration/ACLManager.sol', 'ACLManager'),
    aaveOracle: loadArtifact('contracts/misc/AaveOracle.sol', 'AaveOracle'),
    dataProvider: loadArtifact('contracts/misc/AaveProtocolDataProvider.sol', 'AaveProtocolDataProvider'),
    aToken: loadArtifact('contracts/protocol/tokenization/AToken.sol', 'AToken'),
    stableDebtToken: loadArtifact('contracts/protocol/tokenization/StableDebtToken.sol', 'StableDebtToken'),
    variableDebtToken: loadArtifact('contracts/protocol/tokenization/VariableDebtToken.sol', 'VariableDebtToken'),
    rateStrategy: loadArtifact(
      'contracts/protocol/pool/DefaultReserveInterestRateStrategy.sol',
      'DefaultReserveInterestRateStrategy',
    ),
    /**
     * Tests only: a Chainlink-style price source whose answer is fixed at construction (8 decimals, no setter; a
     * test moves it with `anvil_setStorageAt` on slot 0). The scenario passes its own feeds instead.
     */
    mockAggregator: loadArtifact('contracts/mocks/oracle/CLAggregators/MockAggregator.sol', 'MockAggregator'),
  };
}

/** The Aave V3 artifacts, read from `node_modules` once. */
export function aaveArtifacts(): ReturnType<typeof loadAll> {
  cache ??= loadAll();
  return cache;
}

/**
 * Library names in an order where every library comes after the libraries it links (a topological order of the
 * link references), so each one can be linked from addresses already known.
 */
export function libraryOrder(libraries: ReadonlyMap<string, LinkableArtifact>): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`aave artifacts: a library link cycle through ${name}`);
    state.set(name, 'visiting');
    const artifact = libraries.get(name);
    if (!artifact) throw new Error(`aave artifacts: unknown library ${name}`);
    for (const dep of Object.keys(artifact.links)) visit(dep);
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of [...libraries.keys()].sort()) visit(name);
  return order;
}

let errorNames: Map<string, string> | undefined;

/**
 * The name of an Aave revert code (`'36'` → `COLLATERAL_CANNOT_COVER_NEW_BORROW`). Aave reverts with bare numeric
 * strings to save bytecode; the names live only in the package's `Errors.sol`, which is read here so that the map
 * is the package's own.
 */
export function aaveErrorName(code: string): string | undefined {
  if (!errorNames) {
    const source = readFileSync(require.resolve(`${PACKAGE}/contracts/protocol/libraries/helpers/Errors.sol`), 'utf8');
    errorNames = new Map();
    for (const m of source.matchAll(/string public constant (\w+) = '(\d+)';/g)) errorNames.set(m[2]!, m[1]!);
  }
  return errorNames.get(code);
}

// ---- ABIs of the calls the sandbox makes (written out so that viem types the arguments) ---------------------------

export const addressesProviderAbi = parseAbi([
  'function setACLAdmin(address newAclAdmin)',
  'function setACLManager(address newAclManager)',
  'function setPoolImpl(address newPoolImpl)',
  'function setPoolConfiguratorImpl(address newPoolConfiguratorImpl)',
  'function setPriceOracle(address newPriceOracle)',
  'function setPoolDataProvider(address newDataProvider)',
  'function getPool() view returns (address)',
  'function getPoolConfigurator() view returns (address)',
  'function getPriceOracle() view returns (address)',
  'function getACLManager() view returns (address)',
  'function getACLAdmin() view returns (address)',
  'function getPoolDataProvider() view returns (address)',
  'function getMarketId() view returns (string)',
]);

export const aclManagerAbi = parseAbi([
  'function addPoolAdmin(address admin)',
  'function addRiskAdmin(address admin)',
  'function addEmergencyAdmin(address admin)',
  'function isPoolAdmin(address admin) view returns (bool)',
]);

export const poolConfiguratorAbi = parseAbi([
  'struct InitReserveInput { address aTokenImpl; address stableDebtTokenImpl; address variableDebtTokenImpl; uint8 underlyingAssetDecimals; address interestRateStrategyAddress; address underlyingAsset; address treasury; address incentivesController; string aTokenName; string aTokenSymbol; string variableDebtTokenName; string variableDebtTokenSymbol; string stableDebtTokenName; string stableDebtTokenSymbol; bytes params; }',
  'function initReserves(InitReserveInput[] input)',
  'function configureReserveAsCollateral(address asset, uint256 ltv, uint256 liquidationThreshold, uint256 liquidationBonus)',
  'function setReserveBorrowing(address asset, bool enabled)',
  'function setReserveFlashLoaning(address asset, bool enabled)',
  'function setReserveFactor(address asset, uint256 newReserveFactor)',
  'function setSupplyCap(address asset, uint256 newSupplyCap)',
  'function setBorrowCap(address asset, uint256 newBorrowCap)',
  'function setLiquidationProtocolFee(address asset, uint256 newFee)',
  'function setEModeCategory(uint8 categoryId, uint16 ltv, uint16 liquidationThreshold, uint16 liquidationBonus, address oracle, string label)',
  'function setAssetEModeCategory(address asset, uint8 newCategoryId)',
]);

export const aavePoolAbi = parseAbi([
  'function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)',
  'function withdraw(address asset, uint256 amount, address to) returns (uint256)',
  'function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)',
  'function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf) returns (uint256)',
  'function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, bool receiveAToken)',
  'function getUserAccountData(address user) view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)',
  'function getReservesList() view returns (address[])',
  'function ADDRESSES_PROVIDER() view returns (address)',
  'function setUserEMode(uint8 categoryId)',
  'function getUserEMode(address user) view returns (uint256)',
  'event Supply(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode)',
  'event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount)',
  'event Borrow(address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint8 interestRateMode, uint256 borrowRate, uint16 indexed referralCode)',
  'event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens)',
  'event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)',
  'event ReserveDataUpdated(address indexed reserve, uint256 liquidityRate, uint256 stableBorrowRate, uint256 variableBorrowRate, uint256 liquidityIndex, uint256 variableBorrowIndex)',
  'event ReserveUsedAsCollateralEnabled(address indexed reserve, address indexed user)',
  'event ReserveUsedAsCollateralDisabled(address indexed reserve, address indexed user)',
]);

export const aaveDataProviderAbi = parseAbi([
  'function getReserveTokensAddresses(address asset) view returns (address aTokenAddress, address stableDebtTokenAddress, address variableDebtTokenAddress)',
  'function getReserveConfigurationData(address asset) view returns (uint256 decimals, uint256 ltv, uint256 liquidationThreshold, uint256 liquidationBonus, uint256 reserveFactor, bool usageAsCollateralEnabled, bool borrowingEnabled, bool stableBorrowRateEnabled, bool isActive, bool isFrozen)',
  'function getReserveCaps(address asset) view returns (uint256 borrowCap, uint256 supplyCap)',
  'function getLiquidationProtocolFee(address asset) view returns (uint256)',
  'function getFlashLoanEnabled(address asset) view returns (bool)',
  'function getInterestRateStrategyAddress(address asset) view returns (address)',
  'function getReserveData(address asset) view returns (uint256 unbacked, uint256 accruedToTreasuryScaled, uint256 totalAToken, uint256 totalStableDebt, uint256 totalVariableDebt, uint256 liquidityRate, uint256 variableBorrowRate, uint256 stableBorrowRate, uint256 averageStableBorrowRate, uint256 liquidityIndex, uint256 variableBorrowIndex, uint40 lastUpdateTimestamp)',
  'function getUserReserveData(address asset, address user) view returns (uint256 currentATokenBalance, uint256 currentStableDebt, uint256 currentVariableDebt, uint256 principalStableDebt, uint256 scaledVariableDebt, uint256 stableBorrowRate, uint256 liquidityRate, uint40 stableRateLastUpdated, bool usageAsCollateralEnabled)',
]);

export const aaveOracleAbi = parseAbi([
  'function getAssetPrice(address asset) view returns (uint256)',
  'function getSourceOfAsset(address asset) view returns (address)',
  'function BASE_CURRENCY_UNIT() view returns (uint256)',
]);

/** The one call the market needs from a price source (Chainlink's `AggregatorInterface`). */
export const latestAnswerAbi = parseAbi(['function latestAnswer() view returns (int256)']);
