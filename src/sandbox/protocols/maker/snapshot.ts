/**
 * Reads the multi-collateral DAI deployment that `@makerdao/testchain` ships (its `default` snapshot: a ganache v6
 * chain directory, one file per key, packed as `snapshots/default.tgz`) at run time from `node_modules`, without
 * ganache: the head block's state root, then the state trie (one RLP node per `!trie_db!<hash>` file) down to every
 * account, its code and its storage trie. Nothing of the package is copied into the repository.
 *
 * The state trie is keyed by keccak256(address) and ganache keeps no preimages, so the addresses come from what the
 * snapshot itself says: the package's address files, every transaction's sender, recipient and created contract, every
 * log's emitter, and the CREATE addresses of each known account's nonces (factories: the Vat from VatFab, the ilks'
 * contracts from theirs). An account whose address none of these yields is an error: the deployment would be partial.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { type Address, fromRlp, getAddress, getContractAddress, type Hex, keccak256 } from 'viem';

/** The package and version the sandbox loads (exactly: package.json pins it). */
export const MAKER_TESTCHAIN_PACKAGE = '@makerdao/testchain';

/** keccak256 of the empty code and the empty trie's root. */
const EMPTY_CODE_HASH = keccak256('0x');
const EMPTY_TRIE_ROOT = keccak256('0x80');

export interface SnapshotAccount {
  readonly address: Address;
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly code: Hex;
  /** Storage slot (32-byte hex key) → value (32-byte hex), non-zero slots only. */
  readonly storage: ReadonlyMap<Hex, Hex>;
}

export interface MakerSnapshot {
  /** The package's version, read from its package.json. */
  readonly version: string;
  /** Head block of the snapshot. */
  readonly block: { readonly number: number; readonly timestamp: number; readonly stateRoot: Hex };
  /** Every account of the head state, by checksummed address. */
  readonly accounts: ReadonlyMap<Address, SnapshotAccount>;
  /** The testchain deployer's nonce at the head (the next contract it creates must not land on one of these). */
  readonly deployerNonce: number;
  /** `out/addresses-mcd.json`: the MCD deployment's names (MCD_VAT, PIP_ETH, …) → address. */
  readonly addresses: Readonly<Record<string, Address>>;
  /**
   * The input of every contract-creating transaction of the snapshot's blocks (creation code and constructor
   * arguments), by the address it created: the contracts the testchain's deployer created itself (the Clippers'
   * calculators among them), so the same code can be deployed again.
   */
  readonly creations: ReadonlyMap<Address, Hex>;
}

const require = createRequire(import.meta.url);
const gunzipAsync = promisify(gunzip);

/** The package's directory in node_modules. */
export function makerTestchainDir(): string {
  return dirname(require.resolve(`${MAKER_TESTCHAIN_PACKAGE}/package.json`));
}

/** The entries of a (gunzipped) tar archive as name → bytes; ustar names, PAX `path` records and GNU long names. */
export function untar(tar: Buffer, keep: (name: string) => boolean): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => {
      const raw = header.subarray(start, start + length);
      const end = raw.indexOf(0);
      return raw.subarray(0, end < 0 ? length : end).toString('utf8');
    };
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    if (!Number.isFinite(size)) throw new Error(`tar: bad size at offset ${offset}`);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      const path = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (path) longName = path[1];
      continue;
    }
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'g') continue;
    const name = (longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100))).replace(/^\.\//, '');
    longName = undefined;
    if ((type === '0' || type === '') && keep(name)) files.set(name, body);
  }
  return files;
}

/** A ganache v6 file-store value: a JSON string (trie nodes: `"0x…"`) or a JSON document (blocks, receipts). */
function jsonValue<T>(files: ReadonlyMap<string, Buffer>, key: string): T {
  const raw = files.get(key);
  if (!raw) throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: the snapshot has no ${key}`);
  return JSON.parse(raw.toString('utf8')) as T;
}

type RlpNode = Hex | readonly RlpNode[];

/** Walks a Merkle Patricia trie from `root`, calling `leaf(keyNibbles, value)` for every value. */
function walkTrie(node: (hash: Hex) => RlpNode, root: Hex, leaf: (key: string, value: Hex) => void): void {
  const visit = (n: RlpNode, path: string): void => {
    if (typeof n === 'string') {
      if (n === '0x') return;
      // A 32-byte reference to a node stored by hash (shorter nodes are embedded in their parent).
      visit(node(n), path);
      return;
    }
    if (n.length === 17) {
      for (let i = 0; i < 16; i++) visit(n[i]!, path + i.toString(16));
      if (n[16] !== '0x') leaf(path, n[16] as Hex);
      return;
    }
    if (n.length !== 2) throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: malformed trie node`);
    const encoded = (n[0] as Hex).slice(2);
    const flag = Number.parseInt(encoded[0]!, 16);
    const nibbles = encoded.slice(flag & 1 ? 1 : 2);
    if (flag >= 2) leaf(path + nibbles, n[1] as Hex);
    else visit(n[1]!, path + nibbles);
  };
  visit(root, '');
}

const hexOf = (x: Hex): bigint => (x === '0x' ? 0n : BigInt(x));

function pad32(value: Hex): Hex {
  return `0x${value.slice(2).padStart(64, '0')}`;
}

/**
 * Reads the package's `default` snapshot: gunzip, untar, then the head block's state trie. ganache 6 keeps its state
 * in a plain (not "secure") Merkle Patricia trie: the keys are the addresses and the storage slots themselves, so
 * every account and slot comes out in the clear. Every account with code is kept (the contracts of the deployment);
 * externally owned accounts (ganache's 1,000 funded test accounts, the deployer) are not.
 */
export async function readMakerSnapshot(dir: string = makerTestchainDir()): Promise<MakerSnapshot> {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const addresses = JSON.parse(readFileSync(join(dir, 'out', 'addresses-mcd.json'), 'utf8')) as Record<string, Address>;
  // Gunzip off the main thread (zlib's pool): the world's own deployment goes on meanwhile.
  const files = untar(await gunzipAsync(await readFile(join(dir, 'snapshots', 'default.tgz'))), (name) =>
    /^!(trie_db|blocks)!/.test(name),
  );
  const length = jsonValue<number>(files, '!blocks!length');
  const head = jsonValue<{ header: { number: Hex; timestamp: Hex; stateRoot: Hex } }>(
    files,
    `!blocks!${length - 1}`,
  ).header;
  const node = (hash: Hex): RlpNode => fromRlp(jsonValue<Hex>(files, `!trie_db!${hash.toLowerCase()}`), 'hex');
  const accounts = new Map<Address, SnapshotAccount>();
  let deployerNonce = -1;
  walkTrie(node, head.stateRoot, (key, value) => {
    if (key.length !== 40) throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: a state key is not an address (0x${key})`);
    const [nonce, balance, storageRoot, codeHash] = fromRlp(value, 'hex') as Hex[];
    const address = getAddress(`0x${key}`);
    if (address === MAKER_DEPLOYER) deployerNonce = Number(hexOf(nonce!));
    if (codeHash === EMPTY_CODE_HASH) return;
    const code = jsonValue<Hex>(files, `!trie_db!${codeHash!.toLowerCase()}`);
    if (keccak256(code) !== codeHash)
      throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: the code of ${address} fails its hash`);
    const storage = new Map<Hex, Hex>();
    if (storageRoot !== EMPTY_TRIE_ROOT) {
      walkTrie(node, storageRoot!, (slot, v) => {
        if (slot.length !== 64)
          throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: a storage key of ${address} is not a slot`);
        storage.set(`0x${slot}`, pad32(fromRlp(v, 'hex') as Hex));
      });
    }
    accounts.set(address, { address, nonce: hexOf(nonce!), balance: hexOf(balance!), code, storage });
  });
  if (deployerNonce < 0) throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: the snapshot has no deployer account`);
  const creations = new Map<Address, Hex>();
  for (let i = 0; i < length; i++) {
    const block = jsonValue<{ transactions: { from: Hex; nonce: Hex; to: Hex | null; data: string }[] }>(
      files,
      `!blocks!${i}`,
    );
    for (const tx of block.transactions) {
      if (tx.to && tx.to !== '0x') continue;
      const created = getContractAddress({ from: getAddress(tx.from), nonce: hexOf(tx.nonce) });
      creations.set(created, (tx.data.startsWith('0x') ? tx.data : `0x${tx.data}`) as Hex);
    }
  }
  return {
    version: pkg.version,
    block: { number: Number(head.number), timestamp: Number(head.timestamp), stateRoot: head.stateRoot },
    accounts,
    deployerNonce,
    addresses: Object.fromEntries(Object.entries(addresses).map(([k, v]) => [k, getAddress(v)])),
    creations,
  };
}

/** The testchain's deployer (its README publishes the key): every transaction of the snapshot is its. */
export const MAKER_DEPLOYER: Address = '0x16Fb96a5fa0427Af0C8F7cF1eB4870231c8154B6';
