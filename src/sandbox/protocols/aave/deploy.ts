/**
 * Aave V3 markets in the sandbox, deployed from `@aave/core-v3@1.19.3`'s npm artifacts (never recompiled): the
 * addresses provider, ACL manager, Pool and PoolConfigurator behind their proxies, AaveOracle on Chainlink-style
 * price sources, AaveProtocolDataProvider, and one reserve (aToken, stable and variable debt token, interest rate
 * strategy) per listed asset, configured like Aave's own Ethereum market.
 *
 * The same bytecode deployed twice gives two independent markets: `aave` and its fork `spark`, each with its own
 * libraries, proxies and tokens (as on mainnet, where SparkLend deployed its own copy of the code).
 *
 * Two entry points, for two callers:
 * - `queueAaveMarket` queues every transaction on a `ChainSession` without mining, with every address known in
 *   advance (CREATE from the deployer's nonces, and from the provider's and the configurator's nonces for the
 *   proxies they create), so the world's deployment can put a market in its genesis block next to the DEXes;
 * - `deployAaveMarket` does it alone: one block, then `readAaveMarket` checks the chain against the plan.
 *
 * The markets' parameters are in params.ts; the world's two markets are queued by markets.ts.
 */
import {
  type Address,
  createPublicClient,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  keccak256,
  stringToHex,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { registry } from '../../../registry/index.js';
import { type Agent, DEPLOYER_PRIVATE_KEY, signerAgent } from '../../chain/agent.js';
import { createdAddress } from '../../chain/artifacts.js';
import { RpcClient } from '../../chain/rpc.js';
import { ChainSession } from '../../chain/session.js';
import {
  aaveArtifacts,
  aaveDataProviderAbi,
  aaveOracleAbi,
  aavePoolAbi,
  aclManagerAbi,
  addressesProviderAbi,
  latestAnswerAbi,
  libraryOrder,
  linkBytecode,
  poolConfiguratorAbi,
} from './artifacts.js';
import {
  AAVE_BASE_CURRENCY_UNIT,
  type AaveDeployment,
  type AaveMarket,
  type AaveMarketOptions,
  type AaveReserve,
  type AaveReserveSpec,
  type QueuedAaveMarket,
} from './params.js';
import { explainRevert } from './revert.js';

/**
 * Names of the reserve tokens. Aave's are mainnet's (`aEthUSDC`, `variableDebtEthUSDC`); SparkLend's aTokens are
 * `spDAI` etc. Other forks get their registry name.
 */
const TOKEN_NAMING: Readonly<Record<string, { name: string; aTokenPrefix: string; debtTag: string }>> = {
  aave: { name: 'Aave Ethereum', aTokenPrefix: 'aEth', debtTag: 'Eth' },
  spark: { name: 'Spark', aTokenPrefix: 'sp', debtTag: 'Sp' },
};

/**
 * Gas limits (generous: unused gas costs nothing on the sandbox's zero-base-fee node, and explicit limits skip
 * estimation). Measured: the Pool and PoolConfigurator implementations, near the 24 kB code limit, take 4.7 M and
 * 5.2 M; libraries up to 4.9 M; `initReserves` of one reserve (three proxies created and initialised) 2.4 M;
 * configuration calls ~70 k. A whole market uses ~62 M gas, far above mainnet's block limit, which is why the
 * sandbox's node has a 10 G gas limit (`chain/anvil.ts`, `ChainSession.prepareNode`).
 */
const AAVE_GAS = {
  deploy: 9_000_000n,
  initReserve: 4_000_000n,
  /** Provider setters that create and initialise a proxy. */
  proxy: 1_500_000n,
  setup: 300_000n,
} as const;

/** Configurator bounds (ReserveConfiguration.sol): caps are 36-bit fields, factors and fees 16-bit. */
const MAX_CAP = 68_719_476_735n;
const PERCENTAGE_FACTOR = 10_000;

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

/** The registry's `aave-v3` market of a protocol on Ethereum (the sandbox's chain). */
function registryMarket(protocol: string) {
  const ref = registry
    .lendingMarkets()
    .find((r) => r.protocol.id === protocol && r.market.chain === 'ethereum' && r.market.design === 'aave-v3');
  if (!ref) throw new Error(`aave sandbox: the registry lists no aave-v3 market of ${protocol} on ethereum`);
  return ref;
}

/** Fails early, with a readable message, on what the configurator would reject with a bare numeric code. */
function checkSpec(protocol: string, listed: ReadonlySet<string>, r: AaveReserveSpec): void {
  const fail = (why: string) => {
    throw new Error(`aave sandbox: ${protocol} reserve ${r.symbol}: ${why}`);
  };
  if (!listed.has(r.symbol)) fail('not a listed asset of the market in the registry');
  if (!Number.isInteger(r.decimals) || r.decimals < 0 || r.decimals > 255) fail('bad decimals');
  if (r.ltvBps > r.liquidationThresholdBps) fail('LTV above the liquidation threshold');
  if (r.liquidationThresholdBps > 0) {
    if (r.liquidationBonusBps <= PERCENTAGE_FACTOR) fail('a collateral needs a liquidation bonus above 10000');
    if (r.liquidationThresholdBps * r.liquidationBonusBps > PERCENTAGE_FACTOR * PERCENTAGE_FACTOR) {
      fail('threshold × bonus above 100 %: a liquidation could seize more than the collateral');
    }
  } else if (r.liquidationBonusBps !== 0) fail('a non-collateral reserve has no liquidation bonus');
  if (r.reserveFactorBps > PERCENTAGE_FACTOR || r.liquidationProtocolFeeBps > PERCENTAGE_FACTOR) {
    fail('reserve factor and protocol fee are at most 10000');
  }
  if (r.supplyCap < 0n || r.supplyCap > MAX_CAP || r.borrowCap < 0n || r.borrowCap > MAX_CAP) fail('cap out of range');
  const ray = 10n ** 27n;
  if (r.optimalUsageRatio <= 0n || r.optimalUsageRatio > ray) fail('optimal usage ratio outside (0, 1] ray');
}

// ---------------------------------------------------------------------------------------------------------------
// Deployment
// ---------------------------------------------------------------------------------------------------------------

/**
 * Queues a whole market on `session`, sent by `deployer` (who becomes ACL admin and pool admin), and returns its
 * addresses. Nothing is mined: the caller mines the block, then may check it with `readAaveMarket`.
 *
 * Order matters, because each step reads what the previous ones set on the provider: ACL admin before the
 * ACLManager's constructor (it reads the admin), the ACL manager before any configurator call (roles), the Pool
 * before the PoolConfigurator (its initializer reads the pool) and before the token implementations (their
 * constructors read the pool's provider).
 */
export function queueAaveMarket(session: ChainSession, deployer: Agent, opts: AaveMarketOptions): QueuedAaveMarket {
  const { protocol, market: listing } = registryMarket(opts.protocol);
  const listed = new Set(listing.assets.map((t) => t.symbol));
  const seen = new Set<string>();
  for (const r of opts.reserves) {
    checkSpec(protocol.id, listed, r);
    if (seen.has(r.token.toLowerCase())) throw new Error(`aave sandbox: ${r.symbol} listed twice`);
    seen.add(r.token.toLowerCase());
  }
  const a = aaveArtifacts();
  const first = deployer.state.nonce;
  const treasury =
    opts.treasury ??
    getAddress(`0x${keccak256(stringToHex(`protoscore/sandbox/aave-treasury/${protocol.id}`)).slice(26)}`);

  const send = (to: Address, data: Hex, gas: bigint = AAVE_GAS.setup) =>
    session.send(deployer, { to, data, gas, kind: 'setup' });
  const deploy = (data: Hex): Address => {
    const address = createdAddress(deployer.address, deployer.state.nonce);
    session.send(deployer, { to: null, data, gas: AAVE_GAS.deploy, kind: 'deploy' });
    return address;
  };

  // Libraries first, each linked to those it calls.
  const libraries: Record<string, Address> = {};
  for (const name of libraryOrder(a.libraries)) {
    libraries[name] = deploy(linkBytecode(a.libraries.get(name)!, libraries));
  }

  const addressesProvider = deploy(
    encodeDeployData({
      abi: a.addressesProvider.abi,
      bytecode: a.addressesProvider.bytecode,
      args: [listing.marketName, deployer.address],
    }),
  );
  send(
    addressesProvider,
    encodeFunctionData({ abi: addressesProviderAbi, functionName: 'setACLAdmin', args: [deployer.address] }),
  );
  const aclManager = deploy(
    encodeDeployData({ abi: a.aclManager.abi, bytecode: a.aclManager.bytecode, args: [addressesProvider] }),
  );
  send(
    addressesProvider,
    encodeFunctionData({ abi: addressesProviderAbi, functionName: 'setACLManager', args: [aclManager] }),
  );
  send(aclManager, encodeFunctionData({ abi: aclManagerAbi, functionName: 'addPoolAdmin', args: [deployer.address] }));

  // The provider creates the proxies (CREATE from its own nonce, which starts at 1 as for every contract).
  const poolImpl = deploy(
    encodeDeployData({ abi: a.pool.abi, bytecode: linkBytecode(a.pool, libraries), args: [addressesProvider] }),
  );
  send(
    addressesProvider,
    encodeFunctionData({ abi: addressesProviderAbi, functionName: 'setPoolImpl', args: [poolImpl] }),
    AAVE_GAS.proxy,
  );
  const pool = createdAddress(addressesProvider, 1);
  const configuratorImpl = deploy(linkBytecode(a.poolConfigurator, libraries));
  send(
    addressesProvider,
    encodeFunctionData({
      abi: addressesProviderAbi,
      functionName: 'setPoolConfiguratorImpl',
      args: [configuratorImpl],
    }),
    AAVE_GAS.proxy,
  );
  const poolConfigurator = createdAddress(addressesProvider, 2);

  const oracle = deploy(
    encodeDeployData({
      abi: a.aaveOracle.abi,
      bytecode: a.aaveOracle.bytecode,
      // No fallback oracle (a source answering ≤ 0 then reverts, as it should in a test world); USD as base.
      args: [
        addressesProvider,
        opts.reserves.map((r) => r.token),
        opts.reserves.map((r) => r.priceSource),
        zeroAddress,
        zeroAddress,
        AAVE_BASE_CURRENCY_UNIT,
      ],
    }),
  );
  send(
    addressesProvider,
    encodeFunctionData({ abi: addressesProviderAbi, functionName: 'setPriceOracle', args: [oracle] }),
  );
  const dataProvider = deploy(
    encodeDeployData({ abi: a.dataProvider.abi, bytecode: a.dataProvider.bytecode, args: [addressesProvider] }),
  );
  send(
    addressesProvider,
    encodeFunctionData({ abi: addressesProviderAbi, functionName: 'setPoolDataProvider', args: [dataProvider] }),
  );

  // Token implementations, shared by the market's reserves behind one proxy each.
  const aTokenImpl = deploy(encodeDeployData({ abi: a.aToken.abi, bytecode: a.aToken.bytecode, args: [pool] }));
  const stableDebtImpl = deploy(
    encodeDeployData({ abi: a.stableDebtToken.abi, bytecode: a.stableDebtToken.bytecode, args: [pool] }),
  );
  const variableDebtImpl = deploy(
    encodeDeployData({ abi: a.variableDebtToken.abi, bytecode: a.variableDebtToken.bytecode, args: [pool] }),
  );

  // One strategy per distinct rate curve, shared like mainnet's (WBTC, LINK and AAVE shared one in 2023).
  const strategies = new Map<string, Address>();
  const strategyOf = (r: AaveReserveSpec): Address => {
    const key = [r.optimalUsageRatio, r.baseVariableBorrowRate, r.variableRateSlope1, r.variableRateSlope2].join();
    let address = strategies.get(key);
    if (!address) {
      address = deploy(
        encodeDeployData({
          abi: a.rateStrategy.abi,
          bytecode: a.rateStrategy.bytecode,
          // Stable-rate borrowing is disabled on every reserve, so the five stable parameters never apply.
          args: [
            addressesProvider,
            r.optimalUsageRatio,
            r.baseVariableBorrowRate,
            r.variableRateSlope1,
            r.variableRateSlope2,
            0n,
            0n,
            0n,
            0n,
            0n,
          ],
        }),
      );
      strategies.set(key, address);
    }
    return address;
  };

  const naming = TOKEN_NAMING[protocol.id] ?? { name: protocol.name, aTokenPrefix: 'a', debtTag: protocol.name };
  const reserves: AaveReserve[] = [];
  opts.reserves.forEach((r, i) => {
    const interestRateStrategy = strategyOf(r);
    // One reserve per call keeps each transaction's gas bounded. The configurator proxy creates the aToken, stable
    // and variable debt token proxies in that order (CREATE from its nonce, 1 at its creation).
    send(
      poolConfigurator,
      encodeFunctionData({
        abi: poolConfiguratorAbi,
        functionName: 'initReserves',
        args: [
          [
            {
              aTokenImpl,
              stableDebtTokenImpl: stableDebtImpl,
              variableDebtTokenImpl: variableDebtImpl,
              underlyingAssetDecimals: r.decimals,
              interestRateStrategyAddress: interestRateStrategy,
              underlyingAsset: r.token,
              treasury,
              // No incentives controller: the tokens skip the rewards hook when it is zero.
              incentivesController: zeroAddress,
              aTokenName: `${naming.name} ${r.symbol}`,
              aTokenSymbol: `${naming.aTokenPrefix}${r.symbol}`,
              variableDebtTokenName: `${naming.name} Variable Debt ${r.symbol}`,
              variableDebtTokenSymbol: `variableDebt${naming.debtTag}${r.symbol}`,
              stableDebtTokenName: `${naming.name} Stable Debt ${r.symbol}`,
              stableDebtTokenSymbol: `stableDebt${naming.debtTag}${r.symbol}`,
              params: '0x',
            },
          ],
        ],
      }),
      AAVE_GAS.initReserve,
    );
    reserves.push({
      symbol: r.symbol,
      decimals: r.decimals,
      token: r.token,
      aToken: createdAddress(poolConfigurator, 1 + 3 * i),
      stableDebtToken: createdAddress(poolConfigurator, 2 + 3 * i),
      variableDebtToken: createdAddress(poolConfigurator, 3 + 3 * i),
      interestRateStrategy,
      priceSource: r.priceSource,
    });
  });

  const configure = (data: Hex) => send(poolConfigurator, data);
  for (const r of opts.reserves) {
    configure(
      encodeFunctionData({
        abi: poolConfiguratorAbi,
        functionName: 'configureReserveAsCollateral',
        args: [r.token, BigInt(r.ltvBps), BigInt(r.liquidationThresholdBps), BigInt(r.liquidationBonusBps)],
      }),
    );
    if (r.borrowingEnabled) {
      configure(
        encodeFunctionData({ abi: poolConfiguratorAbi, functionName: 'setReserveBorrowing', args: [r.token, true] }),
      );
    }
    if (r.flashLoanEnabled) {
      configure(
        encodeFunctionData({ abi: poolConfiguratorAbi, functionName: 'setReserveFlashLoaning', args: [r.token, true] }),
      );
    }
    configure(
      encodeFunctionData({
        abi: poolConfiguratorAbi,
        functionName: 'setReserveFactor',
        args: [r.token, BigInt(r.reserveFactorBps)],
      }),
    );
    configure(
      encodeFunctionData({
        abi: poolConfiguratorAbi,
        functionName: 'setLiquidationProtocolFee',
        args: [r.token, BigInt(r.liquidationProtocolFeeBps)],
      }),
    );
    if (r.supplyCap > 0n) {
      configure(
        encodeFunctionData({ abi: poolConfiguratorAbi, functionName: 'setSupplyCap', args: [r.token, r.supplyCap] }),
      );
    }
    if (r.borrowCap > 0n) {
      configure(
        encodeFunctionData({ abi: poolConfiguratorAbi, functionName: 'setBorrowCap', args: [r.token, r.borrowCap] }),
      );
    }
  }

  for (const e of opts.eModes ?? []) {
    configure(
      encodeFunctionData({
        abi: poolConfiguratorAbi,
        functionName: 'setEModeCategory',
        args: [e.id, e.ltvBps, e.liquidationThresholdBps, e.liquidationBonusBps, zeroAddress, e.label],
      }),
    );
    for (const symbol of e.assets) {
      const r = opts.reserves.find((x) => x.symbol === symbol);
      if (!r) throw new Error(`aave sandbox: E-mode ${e.label}: ${symbol} is not a reserve of ${protocol.id}`);
      configure(
        encodeFunctionData({ abi: poolConfiguratorAbi, functionName: 'setAssetEModeCategory', args: [r.token, e.id] }),
      );
    }
  }

  return {
    protocol: protocol.id,
    chain: 'ethereum',
    version: listing.version,
    baseAsset: listing.baseAsset,
    marketId: listing.marketName,
    design: 'aave-v3',
    deployer: deployer.address,
    treasury,
    addressesProvider,
    aclManager,
    pool,
    poolConfigurator,
    oracle,
    dataProvider,
    reserves,
    implementations: {
      pool: poolImpl,
      poolConfigurator: configuratorImpl,
      aToken: aTokenImpl,
      stableDebtToken: stableDebtImpl,
      variableDebtToken: variableDebtImpl,
      libraries: { ...libraries },
    },
    transactions: deployer.state.nonce - first,
  };
}

/** `bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1)`: where Aave's proxies keep their implementation. */
const EIP1967_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

/**
 * Checks a mined market against its plan (every address and every parameter, through the contracts' own getters)
 * and returns it. Throws with the list of differences: a wrong prediction means the bytecode or the deployment
 * order is not what this module assumes.
 */
export async function readAaveMarket(
  rpcUrl: string,
  queued: QueuedAaveMarket,
  specs: readonly AaveReserveSpec[],
  startBlock: number,
): Promise<AaveMarket> {
  const client = createPublicClient({ transport: http(rpcUrl, { batch: true }) });
  const provider = { address: queued.addressesProvider, abi: addressesProviderAbi } as const;
  const [pool, configurator, oracle, acl, dataProvider, marketId, isAdmin, reservesList] = await Promise.all([
    client.readContract({ ...provider, functionName: 'getPool' }),
    client.readContract({ ...provider, functionName: 'getPoolConfigurator' }),
    client.readContract({ ...provider, functionName: 'getPriceOracle' }),
    client.readContract({ ...provider, functionName: 'getACLManager' }),
    client.readContract({ ...provider, functionName: 'getPoolDataProvider' }),
    client.readContract({ ...provider, functionName: 'getMarketId' }),
    client.readContract({
      address: queued.aclManager,
      abi: aclManagerAbi,
      functionName: 'isPoolAdmin',
      args: [queued.deployer],
    }),
    client.readContract({ address: queued.pool, abi: aavePoolAbi, functionName: 'getReservesList' }),
  ]);
  const problems: string[] = [];
  const expect = (what: string, actual: unknown, expected: unknown) => {
    const norm = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : String(v));
    if (norm(actual) !== norm(expected)) problems.push(`${what}: ${String(actual)}, expected ${String(expected)}`);
  };
  expect('pool', pool, queued.pool);
  expect('pool configurator', configurator, queued.poolConfigurator);
  expect('price oracle', oracle, queued.oracle);
  expect('ACL manager', acl, queued.aclManager);
  expect('data provider', dataProvider, queued.dataProvider);
  expect('market id', marketId, queued.marketId);
  expect('deployer is pool admin', isAdmin, true);
  expect('reserves', reservesList.join(), queued.reserves.map((r) => r.token).join());

  // The implementations behind the proxies, from their EIP-1967 slots (Aave's proxies keep them there).
  const impl = queued.implementations;
  if (impl) {
    const first = queued.reserves[0];
    const proxies: [string, Address | undefined, Address][] = [
      ['pool implementation', queued.pool, impl.pool],
      ['configurator implementation', queued.poolConfigurator, impl.poolConfigurator],
      ['aToken implementation', first?.aToken, impl.aToken],
      ['stable debt implementation', first?.stableDebtToken, impl.stableDebtToken],
      ['variable debt implementation', first?.variableDebtToken, impl.variableDebtToken],
    ];
    const slots = await Promise.all(
      proxies.map(([, proxy]) =>
        proxy ? client.getStorageAt({ address: proxy, slot: EIP1967_IMPLEMENTATION_SLOT }) : undefined,
      ),
    );
    proxies.forEach(([what, proxy, expected], i) => {
      if (proxy) expect(what, `0x${(slots[i] ?? '').slice(-40)}`, expected);
    });
  }

  const dp = { address: queued.dataProvider, abi: aaveDataProviderAbi } as const;
  await Promise.all(
    queued.reserves.map(async (reserve, i) => {
      const spec = specs[i]!;
      const [tokens, config, caps, fee, flash, strategy, price, answer] = await Promise.all([
        client.readContract({ ...dp, functionName: 'getReserveTokensAddresses', args: [reserve.token] }),
        client.readContract({ ...dp, functionName: 'getReserveConfigurationData', args: [reserve.token] }),
        client.readContract({ ...dp, functionName: 'getReserveCaps', args: [reserve.token] }),
        client.readContract({ ...dp, functionName: 'getLiquidationProtocolFee', args: [reserve.token] }),
        client.readContract({ ...dp, functionName: 'getFlashLoanEnabled', args: [reserve.token] }),
        client.readContract({ ...dp, functionName: 'getInterestRateStrategyAddress', args: [reserve.token] }),
        client.readContract({
          address: queued.oracle,
          abi: aaveOracleAbi,
          functionName: 'getAssetPrice',
          args: [reserve.token],
        }),
        client.readContract({ address: reserve.priceSource, abi: latestAnswerAbi, functionName: 'latestAnswer' }),
      ]);
      const s = reserve.symbol;
      expect(`${s} aToken`, tokens[0], reserve.aToken);
      expect(`${s} stable debt token`, tokens[1], reserve.stableDebtToken);
      expect(`${s} variable debt token`, tokens[2], reserve.variableDebtToken);
      expect(`${s} strategy`, strategy, reserve.interestRateStrategy);
      const [decimals, ltv, threshold, bonus, reserveFactor, , borrowing, stable, active, frozen] = config;
      expect(`${s} decimals`, decimals, spec.decimals);
      expect(`${s} LTV`, ltv, spec.ltvBps);
      expect(`${s} liquidation threshold`, threshold, spec.liquidationThresholdBps);
      expect(`${s} liquidation bonus`, bonus, spec.liquidationBonusBps);
      expect(`${s} reserve factor`, reserveFactor, spec.reserveFactorBps);
      expect(`${s} borrowing`, borrowing, spec.borrowingEnabled);
      expect(`${s} stable borrowing`, stable, false);
      expect(`${s} active and not frozen`, active && !frozen, true);
      expect(`${s} borrow cap`, caps[0], spec.borrowCap);
      expect(`${s} supply cap`, caps[1], spec.supplyCap);
      expect(`${s} liquidation protocol fee`, fee, spec.liquidationProtocolFeeBps);
      expect(`${s} flash loans`, flash, spec.flashLoanEnabled);
      if (answer <= 0n) problems.push(`${s} price source answers ${answer}`);
      expect(`${s} oracle price`, price, answer);
    }),
  );
  if (problems.length > 0) {
    throw new Error(`aave sandbox: the ${queued.protocol} market differs from its plan: ${problems.join('; ')}`);
  }
  const { transactions: _queuedCount, ...market } = queued;
  return { ...market, startBlock };
}

/**
 * Deploys one market in one block (at `timestamp`, default one second after the head) on the node at `rpcUrl`,
 * sent by `deployerKey` (default anvil's account 0, the world's deployer), checks it and returns it.
 *
 * Like the world's deployment, this leaves the node in manual mining (`ChainSession.prepareNode`).
 */
export async function deployAaveMarket(
  rpcUrl: string,
  opts: AaveMarketOptions & { readonly deployerKey?: Hex; readonly timestamp?: number },
): Promise<AaveDeployment> {
  const rpc = new RpcClient(rpcUrl);
  const key = opts.deployerKey ?? DEPLOYER_PRIVATE_KEY;
  const deployerAddress = privateKeyToAccount(key).address;
  const [chainId, head, nonce] = await rpc.batchResults<Hex | { timestamp: Hex }>([
    { method: 'eth_chainId', params: [] },
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
    { method: 'eth_getTransactionCount', params: [deployerAddress, 'latest'] },
  ]);
  const session = new ChainSession(rpcUrl, Number(chainId as Hex));
  await session.prepareNode();
  const deployer = signerAgent(key, Number(nonce as Hex));
  const queued = queueAaveMarket(session, deployer, opts);
  const timestamp = opts.timestamp ?? Number((head as { timestamp: Hex }).timestamp) + 1;
  const outcome = await session.mine(timestamp);
  if (outcome.revertedUnexpected > 0) {
    const reasons = await Promise.all(outcome.unexpected.map((u) => explainRevert(rpcUrl, u.hash)));
    throw new Error(
      `aave sandbox: ${outcome.revertedUnexpected} of ${outcome.transactions} ${opts.protocol} deployment transactions reverted: ${outcome.unexpected.map((u, i) => `${u.kind} ${u.hash} (${reasons[i]})`).join(', ')}`,
    );
  }
  const block = await rpc.request<{ number: Hex; gasUsed: Hex }>('eth_getBlockByNumber', ['latest', false]);
  const market = await readAaveMarket(rpcUrl, queued, opts.reserves, Number(block.number));
  return { market, transactions: outcome.transactions, gasUsed: BigInt(block.gasUsed) };
}
