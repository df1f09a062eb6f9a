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

export interface EvmEnvironment {
  readonly origin: 'sandbox' | 'config' | 'none';
  readonly chains: readonly EvmChainEndpoint[];
  readonly dex: readonly DexSourceDeployment[];
  readonly anchors: readonly PriceAnchor[];
  readonly oracleFeeds: readonly OracleFeedSource[];
}

export const NO_EVM: EvmEnvironment = { origin: 'none', chains: [], dex: [], anchors: [], oracleFeeds: [] };

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
  return { origin: chains.length ? 'config' : 'none', chains, dex, anchors, oracleFeeds };
}

/** The subset of the sandbox's manifest this needs (src/sandbox/manifest.ts). */
interface SandboxManifest {
  readonly chain: string;
  readonly tokens: readonly { symbol: string; address: string; kind: string }[];
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
  };
}
