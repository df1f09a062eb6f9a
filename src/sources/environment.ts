import { ConfigError, RPC_URL_PREFIX } from '../config/index.js';
import { registry } from '../registry/index.js';
import { arbitrumTokens, ethereumTokens, optimismTokens } from '../registry/tokens.js';

/**
 * What the on-chain areas ingest from, decided once at start-up: which chains have an RPC endpoint, which DEX
 * deployments (factories and start blocks) and price feeds live on them, and which tokens anchor USD prices. In production it
 * comes from the registry and `RPC_URL_<CHAIN>`; with the sandbox it comes from the sandbox's manifest (the same
 * protocol ids and versions, with the addresses the sandbox deployed). Areas never know which one they got.
 */
export interface EvmChainEndpoint {
  /** Registry chain id, e.g. `ethereum`. */
  readonly id: string;
  readonly rpcUrl: string;
  /** Blocks below the head after which a block is treated as final. */
  readonly finalityDepth: number;
  /** Largest `eth_getLogs` block range to start with (the engine adapts it). */
  readonly maxBlockRange?: number;
  /** Per-request timeout in milliseconds (engine default 20 s). */
  readonly timeoutMs?: number;
}

export interface DexSourceDeployment {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  readonly exchangeName: string;
  readonly design: 'uniswap-v2' | 'uniswap-v3';
  /** Lowercase factory address. */
  readonly factory: `0x${string}`;
  readonly startBlock: number;
}

export interface PriceAnchor {
  readonly chain: string;
  /** Lowercase token address. */
  readonly address: string;
  readonly symbol: string;
  readonly peg: 'USD';
}

/**
 * A price feed to read. In production `address` is the registry's EACAggregatorProxy, which emits no events
 * itself: the oracle area's ingest resolves the aggregator behind it (`aggregator()`) and reads that one's logs.
 * The sandbox's feeds are aggregators themselves (no `aggregator()`), read directly.
 */
export interface OracleFeedSource {
  readonly chain: string;
  readonly oracle: 'chainlink';
  /** `BASE-QUOTE`, uppercase, as the registry names it. */
  readonly pair: string;
  /** Lowercase feed address (the proxy in production, the aggregator in the sandbox). */
  readonly address: `0x${string}`;
  readonly heartbeatSeconds: number;
  readonly deviationThresholdPct: number;
  /** Lowercase address of the token whose DEX price the feed is compared with (ETH-USD: WETH), if any. */
  readonly baseToken: string | null;
  /** First block to read; undefined: the oracle area starts a fixed look-back below the head (see its jobs). */
  readonly startBlock?: number;
}

export interface LendingAssetSource {
  /** Lowercase token address. */
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** One isolated Morpho Blue market (`MarketParams` and its id). */
export interface MorphoMarketSource {
  readonly id: `0x${string}`;
  readonly loanToken: string;
  readonly collateralToken: string;
  readonly oracle: string;
  readonly irm: string;
  /** WAD (1e18 = 100 %), decimal string. */
  readonly lltv: string;
}

/**
 * A lending market `(chain, protocol, version, base asset)` to ingest. Aave-design markets are read from their
 * Pool alone (reserves, tokens, oracle and configuration come from the chain); a Morpho Blue market view is the
 * singleton plus the isolated markets that lend the base asset against one of the listed collaterals.
 */
export interface LendingMarketSource {
  readonly chain: string;
  readonly protocol: string;
  readonly version: string;
  /** Uppercase symbol, as in the registry. */
  readonly baseAsset: string;
  readonly marketName: string;
  readonly design: 'aave-v3' | 'morpho-blue';
  /** Lowercase: the Aave Pool (proxy), the Morpho singleton. */
  readonly pool: `0x${string}`;
  /** Listed assets (Aave reserves; Morpho: the loan token and the collaterals). */
  readonly assets: readonly LendingAssetSource[];
  /**
   * Morpho: the isolated markets of this view. Undefined in production: found from the singleton's CreateMarket
   * logs (loan token = base asset, collateral among `assets`).
   */
  readonly morphoMarkets?: readonly MorphoMarketSource[];
  /** First block to read (the market's deployment); undefined: a fixed look-back (see the lending jobs). */
  readonly startBlock?: number;
}

/** A liquid staking token whose exposure is analysed, and where. */
export interface LiquidStakingSource {
  readonly chain: string;
  /** Registry protocol id (`lido`). */
  readonly protocol: string;
  readonly symbol: string;
  /** Lowercase token address. The exchange rate is `stEthPerToken()` (1e18 scale), wstETH's interface. */
  readonly token: string;
  readonly decimals: number;
  /** Lowercase address of the underlying on chain (WETH). */
  readonly underlying: string;
  /** Lending markets (of `EvmEnvironment.lending`) in which the token is analysed. */
  readonly lendingMarkets: readonly { protocol: string; version: string; baseAsset: string }[];
  /** DEX pools (lowercase) holding the token, by exchange. */
  readonly dexPools: readonly { protocol: string; version: string; pool: string }[];
}

export interface EvmEnvironment {
  readonly origin: 'sandbox' | 'config' | 'none';
  readonly chains: readonly EvmChainEndpoint[];
  readonly dex: readonly DexSourceDeployment[];
  readonly anchors: readonly PriceAnchor[];
  readonly oracleFeeds: readonly OracleFeedSource[];
  readonly lending: readonly LendingMarketSource[];
  readonly liquidStaking: readonly LiquidStakingSource[];
}

export const NO_EVM: EvmEnvironment = {
  origin: 'none',
  chains: [],
  dex: [],
  anchors: [],
  oracleFeeds: [],
  lending: [],
  liquidStaking: [],
};

/** Feed bases whose token has another symbol: Chainlink prices ETH and BTC, DEX pools hold WETH and WBTC. */
const TOKEN_OF_FEED_BASE: Readonly<Record<string, string>> = { ETH: 'WETH', BTC: 'WBTC' };

/** The token symbol whose USD price a `BASE-USD` feed reports, or undefined for other quotes. */
export function feedBaseSymbol(pair: string): string | undefined {
  const [base, quote] = pair.split('-');
  if (!base || quote !== 'USD') return undefined;
  return TOKEN_OF_FEED_BASE[base] ?? base;
}

/** Symbols of USD stablecoins used as price anchors (the registry's stablecoin entries are scored, not all anchors). */
const USD_ANCHOR_SYMBOLS = new Set(['USDC', 'USDT', 'DAI']);

const lower = <T extends string>(a: T) => a.toLowerCase() as Lowercase<T>;

/** Production: every registry chain with a configured RPC URL, and the registry's DEX deployments on those chains. */
export function environmentFromRegistry(rpcUrls: ReadonlyMap<string, string>): EvmEnvironment {
  const chains: EvmChainEndpoint[] = [];
  for (const [id, rpcUrl] of rpcUrls) {
    const chain = registry.chain(id);
    if (chain?.family !== 'evm') {
      const known = registry.chains.filter((c) => c.family === 'evm').map((c) => c.id);
      throw new ConfigError(
        `${RPC_URL_PREFIX}${id.toUpperCase().replaceAll('-', '_')}`,
        `no EVM chain ${JSON.stringify(id)} in the registry; known: ${known.join(', ')}`,
      );
    }
    chains.push({ id, rpcUrl, finalityDepth: chain.finalityDepth });
  }
  const served = new Set(chains.map((c) => c.id));
  const dex: DexSourceDeployment[] = [];
  for (const { protocol, deployment } of registry.dexDeployments()) {
    if (!served.has(deployment.chain) || !deployment.factory) continue;
    if (deployment.design !== 'uniswap-v2' && deployment.design !== 'uniswap-v3') continue;
    dex.push({
      chain: deployment.chain,
      protocol: protocol.id,
      version: deployment.version,
      exchangeName: deployment.exchangeName,
      design: deployment.design,
      factory: lower(deployment.factory),
      startBlock: deployment.startBlock ?? 0,
    });
  }
  const anchors: PriceAnchor[] = [ethereumTokens, arbitrumTokens, optimismTokens]
    .flatMap((set) => Object.values(set))
    .filter((t) => served.has(t.chain) && USD_ANCHOR_SYMBOLS.has(t.symbol))
    .map((t) => ({ chain: t.chain, address: t.address.toLowerCase(), symbol: t.symbol, peg: 'USD' }));
  const tokens = [ethereumTokens, arbitrumTokens, optimismTokens].flatMap((set) => Object.values(set));
  const oracleFeeds: OracleFeedSource[] = registry.oracles().flatMap((oracle) =>
    (oracle.oracle?.feeds ?? [])
      .filter((f) => served.has(f.chain) && oracle.id === 'chainlink')
      .map((f) => {
        const symbol = feedBaseSymbol(f.pair);
        const token = tokens.find((t) => t.chain === f.chain && t.symbol.toUpperCase() === symbol?.toUpperCase());
        return {
          chain: f.chain,
          oracle: 'chainlink' as const,
          pair: f.pair,
          address: lower(f.address),
          heartbeatSeconds: f.heartbeatSeconds,
          deviationThresholdPct: f.deviationThresholdPct,
          baseToken: token ? token.address.toLowerCase() : null,
        };
      }),
  );
  const lending: LendingMarketSource[] = registry
    .lendingMarkets()
    .filter(({ market }) => served.has(market.chain))
    .flatMap(({ protocol, market }): LendingMarketSource[] => {
      if (market.design !== 'aave-v3' && market.design !== 'morpho-blue') return [];
      return [
        {
          chain: market.chain,
          protocol: protocol.id,
          version: market.version,
          baseAsset: market.baseAsset,
          marketName: market.marketName,
          design: market.design,
          pool: lower(market.poolAddress),
          assets: market.assets.map((a) => ({
            address: a.address.toLowerCase(),
            symbol: a.symbol,
            decimals: a.decimals,
          })),
          ...(market.startBlock !== undefined ? { startBlock: market.startBlock } : {}),
        },
      ];
    });
  const liquidStaking: LiquidStakingSource[] = registry.liquidStakingProtocols().flatMap((p) => {
    const lst = p.liquidStaking!;
    if (!served.has(lst.token.chain)) return [];
    return [
      {
        chain: lst.token.chain,
        protocol: p.id,
        symbol: lst.token.symbol,
        token: lst.token.address.toLowerCase(),
        decimals: lst.token.decimals,
        underlying: lst.underlying.address.toLowerCase(),
        lendingMarkets: lst.lendingExposure
          .filter((m) =>
            lending.some(
              (l) =>
                l.chain === m.chain &&
                l.protocol === m.protocol &&
                l.version === m.version &&
                l.baseAsset === m.baseAsset,
            ),
          )
          .map((m) => ({ protocol: m.protocol, version: m.version, baseAsset: m.baseAsset })),
        dexPools: lst.dexExposure
          .filter((d) => d.chain === lst.token.chain)
          .flatMap((d) =>
            d.pools.map((pool) => ({ protocol: d.protocol, version: d.version, pool: pool.toLowerCase() })),
          ),
      },
    ];
  });
  return { origin: chains.length ? 'config' : 'none', chains, dex, anchors, oracleFeeds, lending, liquidStaking };
}

/** The subset of the sandbox's manifest this needs (src/sandbox/world/manifest.ts). */
interface SandboxManifest {
  readonly chain: string;
  readonly tokens: readonly { symbol: string; address: string; kind: string; decimals?: number }[];
  readonly dex: readonly {
    protocol: string;
    version: string;
    design: 'uniswap-v2' | 'uniswap-v3';
    factory: `0x${string}`;
    startBlock: number;
  }[];
  /** Absent in worlds saved before feeds existed. */
  readonly oracles?: readonly {
    oracle: 'chainlink';
    pair: string;
    token: string;
    address: `0x${string}`;
    heartbeatSeconds: number;
    deviationThresholdPct: number;
    startBlock: number;
  }[];
  readonly pools?: readonly { address: string; protocol: string; version: string }[];
  /** Absent in worlds saved before lending existed. */
  readonly lending?: {
    readonly aave: readonly {
      protocol: string;
      version: string;
      baseAsset: string;
      marketId: string;
      pool: `0x${string}`;
      reserves: readonly { symbol: string; decimals: number; token: string }[];
      startBlock: number;
    }[];
    readonly morpho: readonly {
      protocol: string;
      version: string;
      baseAsset: string;
      morpho: `0x${string}`;
      markets: readonly {
        id: `0x${string}`;
        loanToken: string;
        collateralToken: string;
        oracle: string;
        irm: string;
        lltv: string;
      }[];
      startBlock: number;
    }[];
  };
  readonly liquidStaking?: readonly {
    protocol: string;
    symbol: string;
    token: string;
    decimals: number;
    underlying: string;
    pools: readonly string[];
  }[];
}

/**
 * The sandbox: its chain stands in for the registry chain it simulates (the same protocol ids and versions, the
 * sandbox's own addresses), with the registry's finality depth, and its stablecoins as price anchors.
 */
export function environmentFromSandbox(manifest: SandboxManifest, rpcUrl: string): EvmEnvironment {
  const chain = registry.chain(manifest.chain);
  if (!chain) throw new Error(`the sandbox simulates ${manifest.chain}, which the registry does not know`);
  const exchangeName = (protocol: string, version: string) =>
    registry.dexDeployment(manifest.chain, protocol, version)?.deployment.exchangeName ??
    registry.protocol(protocol)?.name ??
    protocol;
  return {
    origin: 'sandbox',
    chains: [{ id: chain.id, rpcUrl, finalityDepth: chain.finalityDepth }],
    dex: manifest.dex.map((d) => ({
      chain: chain.id,
      protocol: d.protocol,
      version: d.version,
      exchangeName: exchangeName(d.protocol, d.version),
      design: d.design,
      factory: lower(d.factory),
      startBlock: d.startBlock,
    })),
    anchors: manifest.tokens
      .filter((t) => t.kind === 'stable')
      .map((t) => ({ chain: chain.id, address: t.address.toLowerCase(), symbol: t.symbol, peg: 'USD' as const })),
    oracleFeeds: (manifest.oracles ?? []).map((o) => ({
      chain: chain.id,
      oracle: o.oracle,
      pair: o.pair,
      address: lower(o.address),
      heartbeatSeconds: o.heartbeatSeconds,
      deviationThresholdPct: o.deviationThresholdPct,
      baseToken: manifest.tokens.find((t) => t.symbol === o.token)?.address.toLowerCase() ?? null,
      startBlock: o.startBlock,
    })),
    ...sandboxLending(manifest, chain.id),
  };
}

/** The sandbox's lending markets and liquid staking tokens, named as the registry names their production twins. */
function sandboxLending(manifest: SandboxManifest, chain: string): Pick<EvmEnvironment, 'lending' | 'liquidStaking'> {
  const token = (address: string) => manifest.tokens.find((x) => x.address.toLowerCase() === address.toLowerCase());
  const marketName = (protocol: string, version: string, baseAsset: string, fallback: string) =>
    registry.lendingMarket(chain, protocol, version, baseAsset)?.market.marketName ?? fallback;
  const lending: LendingMarketSource[] = [
    ...(manifest.lending?.aave ?? []).map(
      (m): LendingMarketSource => ({
        chain,
        protocol: m.protocol,
        version: m.version,
        baseAsset: m.baseAsset,
        marketName: marketName(m.protocol, m.version, m.baseAsset, m.marketId),
        design: 'aave-v3',
        pool: lower(m.pool),
        assets: m.reserves.map((r) => ({ address: r.token.toLowerCase(), symbol: r.symbol, decimals: r.decimals })),
        startBlock: m.startBlock,
      }),
    ),
    ...(manifest.lending?.morpho ?? []).map((m): LendingMarketSource => {
      const addresses = [...new Set([m.markets[0]?.loanToken, ...m.markets.map((x) => x.collateralToken)])].filter(
        (a): a is string => a !== undefined,
      );
      return {
        chain,
        protocol: m.protocol,
        version: m.version,
        baseAsset: m.baseAsset,
        marketName: marketName(m.protocol, m.version, m.baseAsset, `Morpho Blue ${m.baseAsset}`),
        design: 'morpho-blue',
        pool: lower(m.morpho),
        assets: addresses.map((a) => {
          const t = token(a);
          return { address: a.toLowerCase(), symbol: t?.symbol ?? a.toLowerCase(), decimals: t?.decimals ?? 18 };
        }),
        morphoMarkets: m.markets.map((x) => ({
          id: lower(x.id),
          loanToken: x.loanToken.toLowerCase(),
          collateralToken: x.collateralToken.toLowerCase(),
          oracle: x.oracle.toLowerCase(),
          irm: x.irm.toLowerCase(),
          lltv: x.lltv,
        })),
        startBlock: m.startBlock,
      };
    }),
  ];
  const liquidStaking: LiquidStakingSource[] = (manifest.liquidStaking ?? []).map((l) => ({
    chain,
    protocol: l.protocol,
    symbol: l.symbol,
    token: l.token.toLowerCase(),
    decimals: l.decimals,
    underlying: l.underlying.toLowerCase(),
    lendingMarkets: lending
      .filter((m) => m.assets.some((a) => a.address === l.token.toLowerCase()))
      .map((m) => ({ protocol: m.protocol, version: m.version, baseAsset: m.baseAsset })),
    dexPools: l.pools.flatMap((address) => {
      const pool = manifest.pools?.find((p) => p.address.toLowerCase() === address.toLowerCase());
      return pool ? [{ protocol: pool.protocol, version: pool.version, pool: address.toLowerCase() }] : [];
    }),
  }));
  return { lending, liquidStaking };
}
