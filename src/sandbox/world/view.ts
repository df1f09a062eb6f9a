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
}

/** Solidity's standard JSON input. */
export interface CompilerInput {
  readonly language: 'Solidity';
  readonly sources: Readonly<Record<string, { readonly content: string }>>;
  readonly settings: Readonly<Record<string, unknown>>;
  /** The compiler the artifact was built with (`solc-js 0.8.37+commit…`). */
  readonly compiler: string;
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
  return [...tokens, ...own] as { address: string; name: string; protocol: string; artifact?: string }[];
}

/** Whether an artifact names a source and settings, and the source is beside it. */
const shipped = new Map<string, boolean>();
function shipsSource(artifact: string): boolean {
  let ships = shipped.get(artifact);
  if (ships === undefined) {
    try {
      const a = JSON.parse(readFileSync(artifact, 'utf8')) as { source?: string; settings?: object };
      ships = !!a.source && !!a.settings && existsSync(path.join(path.dirname(artifact), a.source));
    } catch {
      ships = false;
    }
    shipped.set(artifact, ships);
  }
  return ships;
}

/** Reads an artifact's compiler input: its source and every Solidity file beside it (imports), its settings. */
async function artifactInput(artifact: string): Promise<CompilerInput | undefined> {
  try {
    const a = JSON.parse(await readFile(artifact, 'utf8')) as { source?: string; compiler?: string; settings?: object };
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
    };
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
      const artifact = c.artifact && shipsSource(c.artifact) ? c.artifact : undefined;
      all.set(`${chain}:${c.address.toLowerCase()}`, {
        chain,
        address: c.address.toLowerCase(),
        name: c.name,
        protocol: c.protocol,
        hasSource: artifact !== undefined,
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
