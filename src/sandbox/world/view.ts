/**
 * What a stand-in sees of the sandbox world (issue 25), read-only: the manifest of each chain, for every deployed
 * address its contract name and the compiler input it was built from (where the artifact ships its source and
 * settings), and the world's reference prices and DEX activity per hour. A market-data stand-in can then quote what
 * the chain shows, a contract-source stand-in serve what was deployed.
 *
 * The hours come from the world as it simulates (`HourlyHistory`, saved beside the world as `history.json`): an hour
 * is recorded when the block that closes it is mined. Its prices are the reference prices at that block, which the
 * closing arbitrage brings every pool to within its fee and the arbitrageur's costs (docs/sandbox.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { HOUR } from '../../core/time.js';
import { PROTOCOLS, type SandboxChain, type SandboxProtocol } from '../protocols/index.js';
import type { SimulationState, WorldManifest } from './manifest.js';
import type { ScenarioState } from './state.js';

/** One closed hour of the world. */
export interface WorldHour {
  /** The hour's start, Unix seconds (on the hour). */
  readonly hour: number;
  /** Reference ("true") USD price per token symbol at the hour's close. */
  readonly prices: Readonly<Record<string, number>>;
  /** DEX activity within the hour: swaps and liquidity changes the scenario sent, transactions mined. */
  readonly dex: { readonly swaps: number; readonly liquidityChanges: number; readonly transactions: number };
}

/** A deployed contract as a stand-in sees it. */
export interface ViewContract {
  readonly chain: SandboxChain;
  readonly address: string;
  readonly name: string;
  /** The protocol (folder) that deployed it; `world` for the world's own tokens. */
  readonly protocol: string;
  /** Whether `compilerInput` has something to give. */
  readonly hasSource: boolean;
  /** A proxy's implementation as deployed (lowercase), where its protocol names it. */
  readonly implementation?: string;
}

/** Solidity's standard JSON input. */
export interface CompilerInput {
  readonly language: 'Solidity';
  readonly sources: Readonly<Record<string, { readonly content: string }>>;
  readonly settings: Readonly<Record<string, unknown>>;
  /** The compiler the artifact was built with (`solc-js 0.8.37+commit…`, a Hardhat build's `0.8.10+commit.fc410830`). */
  readonly compiler: string;
  /** The deployed contract in the input: `path:Name` (`contracts/protocol/pool/Pool.sol:Pool`). */
  readonly fullyQualifiedName: string;
  /** The contract's ABI, from its artifact. */
  readonly abi: readonly unknown[];
}

export interface WorldView {
  /** The manifest per chain (the chains whose worlds are open). */
  readonly manifests: ReadonlyMap<SandboxChain, WorldManifest>;
  contracts(chain?: SandboxChain): readonly ViewContract[];
  contract(chain: SandboxChain, address: string): ViewContract | undefined;
  /** The compiler input of a deployed contract, where its artifact ships its source; undefined otherwise. */
  compilerInput(chain: SandboxChain, address: string): Promise<CompilerInput | undefined>;
  /** The closed hours, oldest first: the last `HOURS_KEPT` (older ones are dropped). */
  hours(): readonly WorldHour[];
  /** The hour starting at `hour` (Unix seconds, on the hour), once closed. */
  hour(hour: number): WorldHour | undefined;
}

type Stats = Pick<ScenarioState['stats'], 'swaps' | 'liquidityChanges' | 'transactions'>;

/**
 * How many closed hours the world keeps (in memory and in `history.json`): 90 days, well beyond the ~15 days the
 * service reads back, so that a world left running does not grow them forever (~0.4 kB an hour; issue 31 item 2).
 */
export const HOURS_KEPT = 90 * 24;

/** The hours the world has closed, recorded as it simulates: the last `HOURS_KEPT`. */
export class HourlyHistory {
  private readonly byHour = new Map<number, WorldHour>();
  /** The statistics at the last hour's close (activity is the difference). */
  private last: Stats | undefined;

  constructor(saved?: { hours?: readonly WorldHour[]; last?: Stats }) {
    for (const h of saved?.hours ?? []) this.byHour.set(h.hour, h);
    this.last = saved?.last;
    this.trim();
  }

  /** Drops the hours more than `HOURS_KEPT` hours before the newest (a Map iterates in insertion order). */
  private trim(): void {
    if (this.byHour.size <= HOURS_KEPT) return;
    const newest = Math.max(...this.byHour.keys());
    for (const hour of this.byHour.keys()) if (hour <= newest - HOURS_KEPT * HOUR) this.byHour.delete(hour);
  }

  /** Called after every simulated step: records the hour the step's block closes, if it closes one. */
  record(state: SimulationState): void {
    const s = state as ScenarioState;
    const stats: Stats = {
      swaps: s.stats?.swaps ?? 0,
      liquidityChanges: s.stats?.liquidityChanges ?? 0,
      transactions: s.stats?.transactions ?? 0,
    };
    if (!this.last) this.last = stats;
    if (s.lastTimestamp % HOUR !== 0) return;
    const hour = s.lastTimestamp - HOUR;
    this.byHour.set(hour, {
      hour,
      prices: { ...s.prices },
      dex: {
        swaps: stats.swaps - this.last.swaps,
        liquidityChanges: stats.liquidityChanges - this.last.liquidityChanges,
        transactions: stats.transactions - this.last.transactions,
      },
    });
    this.last = stats;
    this.trim();
  }

  /** Starts counting activity from `state` (a new world's genesis). */
  start(state: SimulationState): void {
    if (!this.last) this.record({ ...state, lastTimestamp: state.lastTimestamp + 1 });
  }

  hours(): WorldHour[] {
    return [...this.byHour.values()].sort((a, b) => a.hour - b.hour);
  }

  hour(hour: number): WorldHour | undefined {
    return this.byHour.get(hour);
  }

  toJSON(): { hours: WorldHour[]; last?: Stats } {
    return { hours: this.hours(), ...(this.last ? { last: this.last } : {}) };
  }
}

/** The world's own tokens: WETH9 and the mintable ERC-20s (from the chain package's artifacts, no source shipped). */
function worldContracts(manifest: WorldManifest, protocols: readonly SandboxProtocol[]) {
  const own = protocols.flatMap((p) =>
    p.chain === (manifest.chain ?? 'ethereum')
      ? (p.contracts?.(manifest) ?? []).map((c) => ({ ...c, protocol: p.name }))
      : [],
  );
  const claimed = new Set(own.map((c) => c.address.toLowerCase()));
  const tokens = manifest.tokens
    .filter((t) => !claimed.has(t.address.toLowerCase()))
    .map((t) => ({ address: t.address, name: t.kind === 'weth' ? 'WETH9' : 'MintableERC20', protocol: 'world' }));
  return [...tokens, ...own] as {
    address: string;
    name: string;
    protocol: string;
    artifact?: string;
    implementation?: string;
  }[];
}

/**
 * An artifact with a compiler input to give: one of our own (`{ contractName, source, compiler, settings }`, the source
 * and its imports beside it), or a Hardhat artifact (`hh-sol-artifact-1`: `sourceName`, `contractName`) whose
 * `<Name>.dbg.json` names the build-info its package ships (Aave's `artifacts/build-info/*.json`: the exact
 * standard-JSON input the package was compiled from, `input`, and `solcLongVersion`).
 */
type ArtifactKind =
  | { readonly kind: 'own' }
  | { readonly kind: 'hardhat'; readonly buildInfo: string; readonly fullyQualifiedName: string };

const shipped = new Map<string, ArtifactKind | null>();
function shipsSource(artifact: string): ArtifactKind | undefined {
  let ships = shipped.get(artifact);
  if (ships === undefined) {
    ships = null;
    try {
      const a = JSON.parse(readFileSync(artifact, 'utf8')) as {
        _format?: string;
        source?: string;
        settings?: object;
        sourceName?: string;
        contractName?: string;
      };
      if (a.source && a.settings && existsSync(path.join(path.dirname(artifact), a.source))) ships = { kind: 'own' };
      else if (a._format === 'hh-sol-artifact-1' && a.sourceName && a.contractName) {
        const dbg = artifact.replace(/\.json$/, '.dbg.json');
        const info = (JSON.parse(readFileSync(dbg, 'utf8')) as { buildInfo?: string }).buildInfo;
        const buildInfo = info && path.resolve(path.dirname(dbg), info);
        if (buildInfo && existsSync(buildInfo)) {
          ships = { kind: 'hardhat', buildInfo, fullyQualifiedName: `${a.sourceName}:${a.contractName}` };
        }
      }
    } catch {
      ships = null;
    }
    shipped.set(artifact, ships);
  }
  return ships ?? undefined;
}

/** Reads an artifact's compiler input: its source and every Solidity file beside it (imports), its settings. */
async function ownInput(artifact: string): Promise<CompilerInput | undefined> {
  try {
    const a = JSON.parse(await readFile(artifact, 'utf8')) as {
      source?: string;
      compiler?: string;
      settings?: object;
      contractName?: string;
      abi?: unknown[];
    };
    if (!a.source || !a.settings) return undefined;
    const dir = path.dirname(artifact);
    if (!existsSync(path.join(dir, a.source))) return undefined;
    const sources: Record<string, { content: string }> = {};
    for (const file of (await readdir(dir)).filter((f) => f.endsWith('.sol')).sort()) {
      sources[file] = { content: await readFile(path.join(dir, file), 'utf8') };
    }
    return {
      language: 'Solidity',
      sources,
      settings: a.settings as Record<string, unknown>,
      compiler: a.compiler ?? '',
      fullyQualifiedName: `${a.source}:${a.contractName ?? path.basename(artifact, '.json')}`,
      abi: a.abi ?? [],
    };
  } catch {
    return undefined;
  }
}

/**
 * A build-info's input and compiler, read once per file (Aave's is 32 MB with its output; the input kept is its
 * ~2 MB of sources and settings, shared by every contract of the build).
 */
type BuildInput = Omit<CompilerInput, 'fullyQualifiedName' | 'abi'>;
const buildInfos = new Map<string, Promise<BuildInput | undefined>>();
function buildInfoInput(file: string): Promise<BuildInput | undefined> {
  let input = buildInfos.get(file);
  if (!input) {
    input = (async () => {
      try {
        const b = JSON.parse(await readFile(file, 'utf8')) as {
          solcLongVersion?: string;
          input?: { language?: string; sources?: Record<string, { content: string }>; settings?: object };
        };
        if (b.input?.language !== 'Solidity' || !b.input.sources || !b.input.settings) return undefined;
        return {
          language: 'Solidity' as const,
          sources: b.input.sources,
          settings: b.input.settings as Record<string, unknown>,
          compiler: b.solcLongVersion ?? '',
        };
      } catch {
        return undefined;
      }
    })();
    buildInfos.set(file, input);
  }
  return input;
}

/** The compiler input an artifact was built from, where it ships one (`shipsSource`); undefined otherwise. */
export async function artifactInput(artifact: string): Promise<CompilerInput | undefined> {
  const ships = shipsSource(artifact);
  if (!ships) return undefined;
  if (ships.kind === 'own') return ownInput(artifact);
  const input = await buildInfoInput(ships.buildInfo);
  if (!input) return undefined;
  try {
    const { abi } = JSON.parse(await readFile(artifact, 'utf8')) as { abi?: unknown[] };
    return { ...input, fullyQualifiedName: ships.fullyQualifiedName, abi: abi ?? [] };
  } catch {
    return undefined;
  }
}

/** A read-only view of the worlds of `manifests` (one per chain) with the history of the Ethereum world. */
export function worldView(
  manifests: readonly WorldManifest[],
  history: Pick<HourlyHistory, 'hours' | 'hour'>,
  protocols: readonly SandboxProtocol[] = PROTOCOLS,
): WorldView {
  const byChain = new Map<SandboxChain, WorldManifest>(manifests.map((m) => [m.chain ?? 'ethereum', m]));
  const all = new Map<string, ViewContract & { artifact?: string }>();
  for (const [chain, manifest] of byChain) {
    for (const c of worldContracts(manifest, protocols)) {
      const artifact = c.artifact && shipsSource(c.artifact) !== undefined ? c.artifact : undefined;
      all.set(`${chain}:${c.address.toLowerCase()}`, {
        chain,
        address: c.address.toLowerCase(),
        name: c.name,
        protocol: c.protocol,
        hasSource: artifact !== undefined,
        ...(c.implementation ? { implementation: c.implementation.toLowerCase() } : {}),
        ...(artifact ? { artifact } : {}),
      });
    }
  }
  const strip = ({ artifact: _a, ...c }: ViewContract & { artifact?: string }): ViewContract => c;
  return {
    manifests: byChain,
    contracts: (chain) => [...all.values()].filter((c) => !chain || c.chain === chain).map(strip),
    contract: (chain, address) => {
      const c = all.get(`${chain}:${address.toLowerCase()}`);
      return c && strip(c);
    },
    compilerInput: async (chain, address) => {
      const c = all.get(`${chain}:${address.toLowerCase()}`);
      return c?.artifact ? artifactInput(c.artifact) : undefined;
    },
    hours: () => history.hours(),
    hour: (hour) => history.hour(hour),
  };
}
