/**
 * The runtime's list of sources, and where their configuration comes from. A source is opened from the
 * configuration only (`RPC_URL_<CHAIN>`, `GITHUB_API_URL`, …). With none configured, `start` runs the sandbox:
 * the world's chain and each stand-in provide the same keys a production configuration would, and the sources
 * are opened from them exactly as in production.
 */
import type { Logger } from 'pino';
import { type Config, ConfigError, configWith, RPC_URL_PREFIX } from '../config/index.js';
import { type Clock, nowSeconds } from '../core/time.js';
import { type AddressBook, addressBookFromRegistry } from '../registry/address-book.js';
import { registry } from '../registry/index.js';
import { openL2ChainsOnThread, type SandboxL2 } from '../sandbox/l2/thread.js';
import type { SandboxProtocol } from '../sandbox/protocols/index.js';
import { STANDINS, type StandinOverrides } from '../sandbox/standins/index.js';
import { addressBookFromManifests } from '../sandbox/world/address-book.js';
import type { WorldManifest } from '../sandbox/world/manifest.js';
import { type WorldView, worldView } from '../sandbox/world/view.js';
import { openWorld, plannedGenesisTimestamp, refuseRunningWorld, type World } from '../sandbox/world/world.js';
import { beaconFromConfig, openBeacon } from '../sources/beacon/endpoint.js';
import { bitcoinFromConfig, openBitcoin } from '../sources/bitcoin/endpoint.js';
import { coingeckoFromConfig, openCoingecko } from '../sources/coingecko/endpoint.js';
import { discordFromConfig, openDiscord } from '../sources/discord/endpoint.js';
import { dydxFromConfig, openDydx } from '../sources/dydx/endpoint.js';
import { etherscanFromConfig, openEtherscan } from '../sources/etherscan/endpoint.js';
import { EvmChains } from '../sources/evm/chains.js';
import { githubFromConfig, openGithub } from '../sources/github/endpoint.js';
import type { EtagStore } from '../sources/github/etag.js';
import { gmxOracleFromConfig, openGmxOracle } from '../sources/gmx-oracle/endpoint.js';
import type { SourceOpenOptions } from '../sources/http.js';
import { type SourceHandles, type SourceKind, SourceMap } from '../sources/index.js';
import { openReddit, redditFromConfig } from '../sources/reddit/endpoint.js';
import { openSourcify, sourcifyFromConfig } from '../sources/sourcify/endpoint.js';
import { openSynthetix, synthetixFromConfig } from '../sources/synthetix/endpoint.js';
import type { Store } from '../store/db.js';
import { DbEtagStore } from '../store/etags.js';

import { readAddressBookFile } from './address-book-file.js';

export type Role = 'start' | 'serve' | 'worker';

export interface OpenContext {
  readonly role: Role;
  readonly logger: Logger;
  /** Provenance of a source that a stand-in serves, for `meta.source` (by kind). */
  readonly labels: ReadonlyMap<SourceKind, string>;
  /** The persistent ETag store of the sources that revalidate (the store's `github_etags`); memory only without. */
  readonly etags?: EtagStore;
  /** Tests only: the clock, sleep and retries the HTTP sources' clients are given (`SourceOpenOptions`). */
  readonly client?: Pick<SourceOpenOptions, 'clock' | 'sleep' | 'maxRetries'>;
}

/** One entry of the runtime's list: a kind of source, opened from the configuration alone. */
export interface SourceDef<K extends SourceKind> {
  readonly kind: K;
  /** Whether the configuration names this source (otherwise the sandbox may stand in for it). */
  configured(config: Config): boolean;
  /** The handle, or undefined when this role reads nothing from it. */
  open(config: Config, ctx: OpenContext): SourceHandles[K] | undefined;
}

/** The configured chains the EVM source reads: every `RPC_URL_<CHAIN>` but those of other families' sources. */
const evmRpcUrls = (config: Config) =>
  [...config.rpcUrls].filter(([id]) => {
    const family = registry.chain(id)?.family;
    return family === undefined || family === 'evm';
  });

const evmSource: SourceDef<'evm'> = {
  kind: 'evm',
  configured: (config) => evmRpcUrls(config).length > 0,
  open(config, ctx) {
    const urls = evmRpcUrls(config);
    if (ctx.role === 'serve' || !urls.length) return undefined;
    const endpoints = urls.map(([id, rpcUrl]) => {
      const chain = registry.chain(id);
      if (chain?.family !== 'evm') {
        const known = registry.chains.filter((c) => c.family === 'evm').map((c) => c.id);
        throw new ConfigError(
          `${RPC_URL_PREFIX}${id.toUpperCase().replaceAll('-', '_')}`,
          `no EVM chain ${JSON.stringify(id)} in the registry; known: ${known.join(', ')}`,
        );
      }
      return { id, rpcUrl, finalityDepth: chain.finalityDepth, finality: chain.finality };
    });
    return new EvmChains(endpoints, { log: ctx.logger.child({ source: 'evm' }) });
  },
};

/** What an HTTP source's client is given at open: the process's logger (as the source), its ETag store. */
const openOptions = (ctx: OpenContext, kind: SourceKind) => ({
  ...ctx.client,
  log: ctx.logger.child({ source: kind }),
  ...(ctx.etags ? { etags: ctx.etags } : {}),
  ...(ctx.labels.has(kind) ? { label: ctx.labels.get(kind)! } : {}),
});

const githubSource: SourceDef<'github'> = {
  kind: 'github',
  configured: (config) => config.github.apiUrl !== undefined,
  open(config, ctx) {
    if (ctx.role === 'serve') return undefined;
    return openGithub(githubFromConfig(config), openOptions(ctx, 'github'));
  },
};

const bitcoinSource: SourceDef<'bitcoin'> = {
  kind: 'bitcoin',
  configured: (config) => config.bitcoin.rpcUrl !== undefined,
  open(config, ctx) {
    const settings = bitcoinFromConfig(config);
    if (ctx.role === 'serve' || !settings) return undefined;
    return openBitcoin(settings, openOptions(ctx, 'bitcoin'));
  },
};

const beaconSource: SourceDef<'beacon'> = {
  kind: 'beacon',
  configured: (config) => config.beaconApiUrl !== undefined,
  open(config, ctx) {
    const baseUrl = beaconFromConfig(config);
    if (ctx.role === 'serve' || !baseUrl) return undefined;
    return openBeacon(baseUrl, openOptions(ctx, 'beacon'));
  },
};

const discordSource: SourceDef<'discord'> = {
  kind: 'discord',
  configured: (config) => config.discord.token !== undefined,
  open(config, ctx) {
    const settings = discordFromConfig(config);
    if (ctx.role === 'serve' || !settings) return undefined;
    return openDiscord(settings, openOptions(ctx, 'discord'));
  },
};

const redditSource: SourceDef<'reddit'> = {
  kind: 'reddit',
  configured: (config) => config.reddit.clientId !== undefined,
  open(config, ctx) {
    const settings = redditFromConfig(config);
    if (ctx.role === 'serve' || !settings) return undefined;
    return openReddit(settings, openOptions(ctx, 'reddit'));
  },
};

/** GMX's oracle keeper: GMX's own unless `GMX_ORACLE_URL` names another (the sandbox's stand-in). */
const gmxOracleSource: SourceDef<'gmx_oracle'> = {
  kind: 'gmx_oracle',
  configured: (config) => config.gmxOracleUrl !== undefined,
  open: (config, ctx) =>
    ctx.role === 'serve' ? undefined : openGmxOracle(gmxOracleFromConfig(config), openOptions(ctx, 'gmx_oracle')),
};

/** The Synthetix exchange's info API, when `SYNTHETIX_API_URL` names it (or the sandbox's stand-in does). */
const synthetixSource: SourceDef<'synthetix'> = {
  kind: 'synthetix',
  configured: (config) => config.synthetixApiUrl !== undefined,
  open(config, ctx) {
    const baseUrl = synthetixFromConfig(config);
    return ctx.role === 'serve' || !baseUrl ? undefined : openSynthetix(baseUrl, openOptions(ctx, 'synthetix'));
  },
};

const dydxSource: SourceDef<'dydx'> = {
  kind: 'dydx',
  configured: (config) => config.dydx.indexerUrl !== undefined,
  open: (config, ctx) =>
    ctx.role === 'serve' ? undefined : openDydx(dydxFromConfig(config), openOptions(ctx, 'dydx')),
};

/**
 * CoinGecko's API v3: configured by any of its keys (`COINGECKO_API_URL`, `COINGECKO_API_KEY`); without them a role
 * other than `serve` reads the demo plan's host keyless, as GMX's keeper is read from GMX's own host.
 */
const coingeckoSource: SourceDef<'coingecko'> = {
  kind: 'coingecko',
  configured: (config) => config.coingecko.apiUrl !== undefined || config.coingecko.apiKey !== undefined,
  open: (config, ctx) =>
    ctx.role === 'serve' ? undefined : openCoingecko(coingeckoFromConfig(config), openOptions(ctx, 'coingecko')),
};

/**
 * Sourcify's API v2: configured by `SOURCIFY_URL`; without it a role other than `serve` reads Sourcify's public
 * server (it takes no key), as CoinGecko's demo host is read keyless.
 */
const sourcifySource: SourceDef<'sourcify'> = {
  kind: 'sourcify',
  configured: (config) => config.contractSources.sourcifyUrl !== undefined,
  open: (config, ctx) =>
    ctx.role === 'serve' ? undefined : openSourcify(sourcifyFromConfig(config), openOptions(ctx, 'sourcify')),
};

/** Etherscan's API V2: configured by `ETHERSCAN_API_URL` or `ETHERSCAN_API_KEY`; opened only with them (V2 needs a key). */
const etherscanSource: SourceDef<'etherscan'> = {
  kind: 'etherscan',
  configured: (config) =>
    config.contractSources.etherscanUrl !== undefined || config.contractSources.etherscanApiKey !== undefined,
  open: (config, ctx) =>
    ctx.role === 'serve' ||
    (config.contractSources.etherscanUrl === undefined && config.contractSources.etherscanApiKey === undefined)
      ? undefined
      : openEtherscan(etherscanFromConfig(config), openOptions(ctx, 'etherscan')),
};

/** Every source of the service, one entry each. */
export const SOURCES: readonly SourceDef<SourceKind>[] = [
  evmSource,
  githubSource,
  bitcoinSource,
  beaconSource,
  discordSource,
  redditSource,
  gmxOracleSource,
  synthetixSource,
  dydxSource,
  coingeckoSource,
  sourcifySource,
  etherscanSource,
];

/** Opens every source the configuration names. */
export function openSources(config: Config, ctx: OpenContext): SourceMap {
  let sources = new SourceMap();
  for (const def of SOURCES) {
    const handle = def.open(config, ctx);
    if (handle !== undefined) sources = sources.with(def.kind, handle as never);
  }
  return sources;
}

/** Sources a sandbox's stand-ins serve (`SANDBOX_STANDINS`, which `sandbox run` writes): labelled as the sandbox's. */
export function standinLabels(config: Config): Map<SourceKind, string> {
  return new Map([...config.sandbox.standins].map((kind) => [kind as SourceKind, `sandbox ${kind} stand-in`]));
}

/** Where each entity lives on the configured chains: the registry's own addresses, or `ADDRESS_BOOK_FILE`'s. */
export function registryBook(config: Config): AddressBook {
  if (config.addressBookFile) return readAddressBookFile(config.addressBookFile);
  return addressBookFromRegistry(registry, [...config.rpcUrls.keys()]);
}

export interface SourceSetup {
  /** The configuration the sources were opened from (with the sandbox's keys, when it runs). */
  readonly config: Config;
  readonly sources: SourceMap;
  readonly book: AddressBook;
  readonly world?: World;
  /** The sandbox's layer-2 chains (Optimism, Arbitrum), when the sandbox runs: `l2.caughtUp` tells when their history is complete. */
  readonly l2?: SandboxL2;
  /** The stand-ins started, by kind, with the base URL each serves. */
  readonly standins: readonly { kind: SourceKind; url: string }[];
  /** The keys the sandbox set (its chains' RPC URLs, the stand-ins' base URLs and credentials), when it runs. */
  readonly sandboxKeys?: Readonly<Record<string, string>>;
  /** Stops the stand-ins and the world (when started here). */
  close(): Promise<void>;
}

export interface StartedStandins {
  /** The configuration keys that point the sources at them. */
  readonly config: Readonly<Record<string, string>>;
  /** The same keys, by the kind of source each stand-in serves. */
  readonly configByKind: Readonly<Partial<Record<SourceKind, Readonly<Record<string, string>>>>>;
  readonly labels: ReadonlyMap<SourceKind, string>;
  readonly standins: readonly { kind: SourceKind; url: string }[];
  /** What `running.json` shows of them. */
  readonly announce: Readonly<Record<string, unknown>>;
  /** Each stand-in's own server, by kind (tests read their ground truth from it). */
  readonly servers: ReadonlyMap<SourceKind, object>;
  close(): Promise<void>;
}

/**
 * Starts a stand-in for every source of the list that the configuration leaves out, with the world's seed and
 * clock. `announce` is what the world's `running.json` shows of them (`protoscore sandbox info`).
 */
export async function startStandins(
  config: Config,
  options: {
    clock: Clock;
    logger: Logger;
    chains?: Promise<ReadonlyMap<string, string>>;
    world?: Promise<WorldView>;
    /** Only these kinds (default: every one the configuration leaves out); tests start the few they read. */
    kinds?: readonly SourceKind[];
    /** Tests only: what changes of each stand-in's own start options (`StandinStartOptions.overrides`). */
    overrides?: StandinOverrides;
  },
): Promise<StartedStandins> {
  const keys: Record<string, string> = {};
  const keysByKind: Partial<Record<SourceKind, Record<string, string>>> = {};
  const labels = new Map<SourceKind, string>();
  const standins: { kind: SourceKind; url: string }[] = [];
  const servers = new Map<SourceKind, object>();
  const announced: Record<string, unknown> = {};
  // `sandbox info --json`: `standins` by service, and the chains stand-ins serve (`standin_chains`, by registry id).
  const services: Record<string, unknown> = {};
  const chains: Record<string, unknown> = {};
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    for (const standin of STANDINS) {
      const def = SOURCES.find((s) => s.kind === standin.kind);
      if (!def || def.configured(config)) continue;
      if (options.kinds && !options.kinds.includes(standin.kind)) continue;
      const started = await standin.start({
        seed: config.sandbox.seed,
        clock: options.clock,
        dataDir: config.dataDir,
        days: config.sandbox.days,
        ...(options.chains ? { chains: options.chains } : {}),
        ...(options.world ? { world: options.world } : {}),
        ...(options.overrides ? { overrides: options.overrides } : {}),
      });
      closers.push(() => started.close());
      Object.assign(keys, started.config);
      keysByKind[standin.kind] = { ...started.config };
      labels.set(standin.kind, started.label);
      standins.push({ kind: standin.kind, url: started.url });
      servers.set(standin.kind, started.server);
      Object.assign(announced, started.announce);
      services[started.service] = started.info;
      if (started.chain) {
        const { id, ...rest } = started.chain;
        chains[id] = rest;
      }
      options.logger.info({ source: standin.kind, url: started.url }, `sandbox: ${standin.kind} stand-in started`);
    }
    if (Object.keys(services).length) announced.standins = services;
    if (Object.keys(chains).length) announced.standin_chains = chains;
  } catch (err) {
    await close();
    throw err;
  }
  return { config: keys, configByKind: keysByKind, labels, standins, announce: announced, servers, close };
}

/** Where running.json keeps the sandbox's sources (`SandboxSources`), for `jobs list|run` beside a running `start`. */
const SANDBOX_SOURCES_FIELD = 'sandbox_sources';

/**
 * The configuration keys the sandbox set for each kind of source (its chains' RPC URLs under `evm`, each stand-in's
 * base URL and credentials — the sandbox's own, not secrets —) and the stand-ins' labels.
 */
export interface SandboxSources {
  readonly keys: Readonly<Partial<Record<SourceKind, Readonly<Record<string, string>>>>>;
  readonly labels: Readonly<Partial<Record<SourceKind, string>>>;
}

/**
 * The configuration of a process beside a running sandbox (`protoscore jobs list|run` next to `start`): every
 * source the configuration leaves out is pointed at the sandbox's (its every chain and every stand-in), as `start`
 * configured them, with the stand-ins' labels.
 */
export function besideRunningSandbox(
  config: Config,
  running: Readonly<Record<string, unknown>>,
): { config: Config; labels: Map<SourceKind, string> } {
  const sandbox = running[SANDBOX_SOURCES_FIELD] as SandboxSources | undefined;
  const keys: Record<string, string> = {};
  const labels = new Map<SourceKind, string>();
  for (const def of SOURCES) {
    const own = sandbox?.keys[def.kind];
    if (!own || def.configured(config)) continue;
    Object.assign(keys, own);
    const label = sandbox?.labels[def.kind];
    if (label !== undefined) labels.set(def.kind, label);
  }
  return { config: configWith(config, keys), labels };
}

/** What running.json says of the layer-2 chains (`chains` of `sandbox info --json`): each proxy's URL and chain id. */
export function l2Announcement(l2: Pick<SandboxL2, 'chains'>): Record<string, unknown> {
  return { l2_chains: Object.fromEntries(l2.chains.map((c) => [c.kind, { rpc_url: c.rpcUrl, chain_id: c.chainId }])) };
}

/** The manifests of every sandbox chain's world: the Ethereum world's, then each layer-2 chain's hosted protocols'. */
export function sandboxManifests(
  world: Pick<World, 'manifest'>,
  l2: Pick<SandboxL2, 'chains'> | undefined,
): WorldManifest[] {
  return [world.manifest, ...(l2?.chains ?? []).flatMap((c) => (c.manifest ? [c.manifest] : []))];
}

/**
 * What running.json says of every chain's deployment (`sandbox info --json`, `jobs list|run` beside `start`): the
 * address book the service is given (`address_book`, per chain) and every deployed contract per chain
 * (`chain_contracts`: address, name, protocol), from the protocol list the world was built with.
 */
export function deploymentAnnouncement(
  manifests: readonly WorldManifest[],
  protocols?: readonly SandboxProtocol[],
): Record<string, unknown> {
  const view = worldView(manifests, { hours: () => [], hour: () => undefined }, protocols);
  const contracts: Record<string, { address: string; name: string; protocol: string }[]> = {};
  for (const c of view.contracts()) {
    contracts[c.chain] ??= [];
    contracts[c.chain]!.push({ address: c.address, name: c.name, protocol: c.protocol });
  }
  return { address_book: addressBookFromManifests(manifests, protocols), chain_contracts: contracts };
}

export interface SourceSetupOptions {
  readonly config: Config;
  readonly role: Role;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Catch-up progress of a first start, in simulated seconds. */
  readonly onProgress?: (doneSeconds: number, totalSeconds: number) => void;
  /** The store the jobs write: the sources that revalidate keep their ETags in it (memory only without). */
  readonly store?: Store;
}

/** The persistent ETag store of a process's sources, in its store. */
export const storeEtags = (store: Store, clock: Clock): EtagStore => new DbEtagStore(store.db, () => nowSeconds(clock));

/**
 * The sources of a process. `start` with no chain configured runs the sandbox world (created on the first start,
 * resumed after) and a stand-in for every source the configuration leaves out; their base URLs and credentials
 * become configuration keys, and every source is then opened from the configuration, as in production.
 */
export async function setUpSources(options: SourceSetupOptions): Promise<SourceSetup> {
  const { role, logger, clock } = options;
  let config = options.config;
  const etags = options.store ? { etags: storeEtags(options.store, clock) } : {};
  if (role !== 'start' || evmSource.configured(config)) {
    const labels = standinLabels(config);
    return {
      config,
      sources: openSources(config, { role, logger, labels, ...etags }),
      book: registryBook(config),
      standins: [],
      close: async () => undefined,
    };
  }
  // The world, the layer-2 chains and the stand-ins open at once: a second start spends most of its time in the
  // world's anvil loading its save, which the others need not wait for. The layer-2 chains share the world's genesis
  // (src/sandbox/l2/), known before the world opens (`plannedGenesisTimestamp`); the beacon stand-in follows the
  // Ethereum chain and waits for it.
  // Checked before anything opens (a world running elsewhere, a save of another seed): the layer-2 chains keep their
  // saves in the same directory.
  await refuseRunningWorld(config.dataDir);
  const genesisTimestamp = await plannedGenesisTimestamp({
    dataDir: config.dataDir,
    seed: config.sandbox.seed,
    scale: config.sandbox.scale,
    days: config.sandbox.days,
    clock,
  });
  const openL2 = (genesis: number) =>
    // On a thread of their own, in the background (src/sandbox/l2/thread.ts); on the wall clock.
    openL2ChainsOnThread({
      dataDir: config.dataDir,
      seed: config.sandbox.seed,
      genesisTimestamp: genesis,
      blockSeconds: config.sandbox.blockSeconds,
      scale: config.sandbox.scale,
      stablecoins: config.sandbox.stablecoins,
      log: logger,
    });
  const worldOpening = openWorld({
    dataDir: config.dataDir,
    seed: config.sandbox.seed,
    days: config.sandbox.days,
    blockSeconds: config.sandbox.blockSeconds,
    scale: config.sandbox.scale,
    stablecoins: config.sandbox.stablecoins,
    genesisTimestamp,
    log: logger,
    live: true,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const chains = worldOpening.then((w) => new Map([[w.manifest.chain, w.rpcUrl]]) as ReadonlyMap<string, string>);
  chains.catch(() => undefined);
  const l2Opening = openL2(genesisTimestamp);
  // The view holds every chain's world: the layer-2 chains' hosted protocols too (their manifests once they open).
  const view = Promise.all([worldOpening, l2Opening]).then(([w, l2]) => w.view(sandboxManifests(w, l2).slice(1)));
  view.catch(() => undefined);
  const [worldOpened, l2Opened, standinsStarted] = await Promise.allSettled([
    worldOpening,
    l2Opening,
    startStandins(config, { clock, logger, chains, world: view }),
  ]);
  const world = worldOpened.status === 'fulfilled' ? worldOpened.value : undefined;
  let l2 = l2Opened.status === 'fulfilled' ? l2Opened.value : undefined;
  const started = standinsStarted.status === 'fulfilled' ? standinsStarted.value : undefined;
  const close = async () => {
    await started?.close();
    await l2?.stop();
    await world?.stop();
  };
  try {
    for (const opened of [worldOpened, l2Opened, standinsStarted])
      if (opened.status === 'rejected') throw opened.reason;
    if (!world || !l2 || !started) throw new Error('unreachable: every part of the sandbox opened');
    logger.info({ rpc_url: world.rpcUrl, chain_id: world.chainId }, 'sandbox world open');
    if (world.manifest.genesisTimestamp !== genesisTimestamp) {
      // The save proved unusable and the world began anew, at another instant: the layer-2 chains follow it.
      logger.warn(
        { planned: genesisTimestamp, genesis: world.manifest.genesisTimestamp },
        'sandbox: the world began anew; reopening the layer-2 chains on its genesis',
      );
      const previous = l2;
      l2 = undefined;
      await previous.stop();
      l2 = await openL2(world.manifest.genesisTimestamp);
    }
    const chainKeys = {
      [`${RPC_URL_PREFIX}${world.manifest.chain.toUpperCase().replaceAll('-', '_')}`]: world.rpcUrl,
      ...l2.config,
    };
    const sandboxKeys = { ...chainKeys, ...started.config };
    const sandboxSources: SandboxSources = {
      keys: { evm: chainKeys, ...started.configByKind },
      labels: Object.fromEntries(started.labels),
    };
    const manifests = sandboxManifests(world, l2);
    await world.announce({
      ...started.announce,
      ...l2Announcement(l2),
      ...deploymentAnnouncement(manifests),
      [SANDBOX_SOURCES_FIELD]: sandboxSources,
    });
    config = configWith(config, sandboxKeys);
    return {
      config,
      sources: openSources(config, { role, logger, labels: started.labels, ...etags }),
      book: addressBookFromManifests(manifests),
      world,
      l2,
      standins: started.standins,
      sandboxKeys,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
