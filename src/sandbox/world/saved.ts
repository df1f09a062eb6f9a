/**
 * The saved world in `<dataDir>/sandbox/`: `chain-<block>-<hash>.json.gz` (anvil's own dump, history included) and
 * `world.json` (manifest, scenario state, and the head block the dump holds), written atomically, read back and
 * checked (see world.ts for how a pair stays consistent).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Logger } from 'pino';
import { type Anvil, type AnvilOptions, startAnvil } from '../chain/anvil.js';
import type { SimulationState, WorldManifest } from './manifest.js';
import { stripCallTraces } from './strip-traces.js';

export const WORLD_FILE = 'world.json';
export const CHAIN_FILE = /^chain-\d+-[0-9a-f]+\.json\.gz$/;
/**
 * 2: price feeds sit behind proxies (`ManifestOracle.proxy`), as on mainnet.
 * 3: the arbitrageur also closes each block (back-running its trades), arbitrages dormant pools and trades from a
 * $1 profit: a world saved before would carry a history the same seed no longer makes (thin and dormant pools
 * several percent off their feeds).
 * 4: one DAI (issue 26): with the stablecoins, the world's DAI is Maker's `MCD_DAI`, drawn from vaults, where a world
 * saved before has a mintable DAI beside it in its pools, lending markets and DAI-USD feed.
 * 5: the tokenomics tokens (issue 28): UNI, LINK and AAVE are fixed-supply tokens with their vesting, treasury and
 * airdrop contracts (protocols/tokenomics), where a world saved before has faucet tokens and no labelled holders.
 * A saved world of an older format is kept aside and a new one is created (world.ts), and ingestion follows the new
 * chain as after a reorg. A change of labels alone is no new format: the address book is rebuilt from the manifest at
 * every start, and the protocol renames what a saved manifest calls by a former label (the tokenomics exchange
 * wallets, `binance-hot-1` now `sandbox_binance-hot-1`).
 */
export const WORLD_FORMAT = 5;

export interface SavedWorld {
  readonly format: number;
  readonly seed: number;
  readonly scale: number;
  readonly chain_id: number;
  readonly genesis_timestamp: number;
  /** anvil's block 0 (one second before the grid's start): anvil must rebuild the same one when loading. */
  readonly node_genesis: { readonly timestamp: number; readonly hash: string };
  readonly saved_at: string;
  readonly head: { readonly number: number; readonly hash: string; readonly timestamp: number };
  readonly chain_file: string;
  readonly chain_sha256: string;
  readonly manifest: WorldManifest;
  readonly state: SimulationState;
}

export interface Block {
  readonly number: string;
  readonly hash: string;
  readonly timestamp: string;
}

/** Writes a file so that readers see the old content or the new one, never a part (and it survives a crash). */
let tmpCounter = 0;
export async function writeAtomic(file: string, data: string | Buffer): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  const dir = await open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** The scenario state may hold bigints (token amounts): JSON keeps them as tagged strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));
}

export function fromJson<T>(text: string): T {
  return JSON.parse(text, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof v.$bigint === 'string'
      ? BigInt(v.$bigint)
      : v,
  ) as T;
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A saved world of another seed or scale: the user must choose (see readSaved). */
export class WorldMismatchError extends Error {
  // The CLI and the job thread recognise it by name (a message for the operator, no stack trace, exit 2).
  override readonly name = 'WorldMismatchError';
}

/** What every saved chain's JSON names: its format, and the dump it goes with. */
export interface SavedChainFile {
  readonly format: number;
  readonly chain_file: string;
  readonly chain_sha256: string;
}

/**
 * The JSON `file` of `dir` (a saved chain: world.json, or a layer-2 chain's) and the dump it names, checked: its
 * format, what `check` requires of it (throws otherwise), and the dump's hash. `undefined` if there is none.
 */
export async function readSavedChain<T extends SavedChainFile>(
  dir: string,
  file: string,
  format: number,
  check: (saved: T) => void,
): Promise<{ saved: T; dump: Buffer } | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(dir, file), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const saved = fromJson<T>(text);
  if (saved.format !== format) throw new Error(`${file} has format ${saved.format}, expected ${format}`);
  check(saved);
  const dump = await readFile(path.join(dir, saved.chain_file));
  if (sha256(dump) !== saved.chain_sha256) throw new Error(`${saved.chain_file} does not match ${file}`);
  return { saved, dump };
}

/** The saved world of `dir`, if any, checked for consistency; `undefined` if there is none. */
export async function readSaved(
  dir: string,
  options: { readonly seed: number; readonly scale: number },
): Promise<{ saved: SavedWorld; dump: Buffer } | undefined> {
  return readSavedChain<SavedWorld>(dir, WORLD_FILE, WORLD_FORMAT, (saved) => checkWorldConfig(dir, saved, options));
}

/**
 * Another seed or scale is another world: silently replacing the saved one would also leave the database with facts
 * from a chain that no longer exists. The user decides.
 */
export function checkWorldConfig(
  dir: string,
  saved: Pick<SavedWorld, 'seed' | 'scale'>,
  options: { readonly seed: number; readonly scale: number },
): void {
  if (saved.seed !== options.seed || saved.scale !== options.scale) {
    throw new WorldMismatchError(
      `${dir} holds a sandbox world with seed ${saved.seed} and scale ${saved.scale}, but seed ${options.seed} and ` +
        `scale ${options.scale} are configured: set SANDBOX_SEED=${saved.seed} SANDBOX_SCALE=${saved.scale}, or ` +
        'remove the data directory to start a new world',
    );
  }
}

/** What a saved chain's JSON says of the chain its dump holds, checked once anvil has loaded it. */
export interface SavedChainHead {
  readonly chain_id: number;
  readonly node_genesis: { readonly timestamp: number; readonly hash: string };
  readonly head: { readonly number: number; readonly hash: string };
}

/**
 * Starts anvil on a saved dump and checks that it holds what the saved JSON (`file`, for messages) says: the same
 * genesis block and head. anvil reads the state from an uncompressed file, written next to the save and removed once
 * loaded. `anvil`: further start options (a layer-2 chain's mining mode and flags).
 */
export async function loadChain(
  dir: string,
  dump: Buffer,
  saved: SavedChainHead,
  cacheDir: string,
  log: Logger,
  options: { readonly file?: string; readonly anvil?: Omit<AnvilOptions, 'loadStateFile' | 'log'> } = {},
) {
  const file = options.file ?? WORLD_FILE;
  const loadFile = path.join(dir, `load-${process.pid}.json`);
  let anvil: Anvil | undefined;
  try {
    // Streamed: an 8-day world is ~30 MB gzipped but ~400 MB of JSON, 70 % of it the call trace of every transaction,
    // which nothing reads back and which anvil would spend ~10 s parsing (strip-traces.ts).
    await pipeline(Readable.from([dump]), createGunzip(), stripCallTraces(), createWriteStream(loadFile));
    anvil = await startAnvil({
      genesisTimestamp: saved.node_genesis.timestamp,
      chainId: saved.chain_id,
      cacheDir,
      ...options.anvil,
      loadStateFile: loadFile,
      log,
    });
    const [block0, head] = await Promise.all([
      anvil.request<Block>('eth_getBlockByNumber', ['0x0', false]),
      anvil.request<Block>('eth_getBlockByNumber', ['latest', false]),
    ]);
    if (block0.hash !== saved.node_genesis.hash) {
      throw new Error(`the loaded chain's genesis is ${block0.hash}, ${file} says ${saved.node_genesis.hash}`);
    }
    if (Number(head.number) !== saved.head.number || head.hash !== saved.head.hash) {
      throw new Error(
        `the loaded chain's head is ${Number(head.number)} ${head.hash}, ${file} says ` +
          `${saved.head.number} ${saved.head.hash}`,
      );
    }
    return anvil;
  } catch (err) {
    await anvil?.stop();
    throw err;
  } finally {
    await rm(loadFile, { force: true });
  }
}

/**
 * Dumps that world.json does not name (older ones, or one a crash wrote without its world.json) and, before the
 * world opens (`all`), what else a crash may leave: temp files of atomic writes, the uncompressed load copy.
 */
export async function removeLeftovers(dir: string, keep: string | undefined, all: boolean): Promise<void> {
  for (const name of await readdir(dir)) {
    const stale =
      (CHAIN_FILE.test(name) && name !== keep) || (all && (name.includes('.tmp-') || name.startsWith('load-')));
    if (stale) await rm(path.join(dir, name), { force: true });
  }
}
