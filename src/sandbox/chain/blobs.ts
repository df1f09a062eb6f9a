/**
 * The blobs the sandbox's rollup batchers post (EIP-4844 type-3 transactions, protocols/rollups): a fixed pool of six
 * blobs whose KZG commitments and cell proofs (EIP-7594, which anvil's default hardfork, a blob-parameter fork after
 * Osaka, requires of a sidecar) are committed in `blobs.json`, computed once by `tools/sandbox-blobs.mjs` with
 * c-kzg-4844 in WebAssembly. The blobs themselves are rebuilt here from their tags: no KZG library runs in the service
 * (loading the trusted setup in WebAssembly takes ~25 s and a blob's cell proofs ~5 s, too slow for a first start).
 * anvil verifies every proof when it accepts a blob transaction, so a blob or proof out of step fails at once.
 *
 * A batcher's transaction carries 1–3 of these blobs: versioned hashes repeat across transactions (a real rollup's
 * never do), which none of the figures the service computes (blob counts, blob gas, blob fees) can tell.
 */
import {
  bytesToHex,
  commitmentToVersionedHash,
  fromRlp,
  type Hex,
  keccak256,
  stringToBytes,
  stringToHex,
  toRlp,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
// A JSON import, so that the build copies it to dist/ (a require of a path is not followed by tsc).
import blobFile from './blobs.json' with { type: 'json' };
import type { RpcClient } from './rpc.js';

const FIELD_ELEMENTS = 4096;

/** How many field elements of each blob hold data (the rest is zero, as a batch that does not fill its blob). */
export const BLOB_FILL: readonly number[] = [1024, 256, 640, 128, 896, 384];

interface BlobFile {
  readonly blobs: readonly { readonly tag: string; readonly commitment: string; readonly cellProofs: string[] }[];
}

interface PooledBlob {
  readonly data: Hex;
  readonly commitment: Hex;
  readonly versionedHash: Hex;
  readonly cellProofs: readonly Hex[];
}

/** Blob gas of one blob (EIP-4844's `GAS_PER_BLOB`). */
export const GAS_PER_BLOB = 131_072n;

/** Blob `i` of the pool: its first `BLOB_FILL[i]` field elements are 0x00 ‖ 31 bytes of a keccak chain from its tag. */
export function blobData(i: number): Uint8Array {
  const fill = BLOB_FILL[i];
  if (fill === undefined) throw new Error(`sandbox: no blob ${i}`);
  const out = new Uint8Array(FIELD_ELEMENTS * 32);
  let h = keccak256(stringToBytes(`protoscore/sandbox/blob/${i}`), 'bytes');
  for (let j = 0; j < fill; j++) {
    out.set(h.subarray(1), j * 32 + 1);
    h = keccak256(h, 'bytes');
  }
  return out;
}

let pool: PooledBlob[] | undefined;

/** The pool, built on first use (~40 ms). */
export function blobPool(): readonly PooledBlob[] {
  if (pool) return pool;
  const file = blobFile as BlobFile;
  if (file.blobs.length !== BLOB_FILL.length) throw new Error('sandbox: blobs.json does not match BLOB_FILL');
  pool = file.blobs.map((b, i) => {
    const commitment = b.commitment.toLowerCase() as Hex;
    return {
      data: bytesToHex(blobData(i)),
      commitment,
      versionedHash: commitmentToVersionedHash({ commitment }),
      cellProofs: b.cellProofs.map((p) => p.toLowerCase() as Hex),
    };
  });
  return pool;
}

/**
 * A signed type-3 transaction (`0x03 ‖ rlp([…, yParity, r, s])`, what its hash is over) in the network form a node
 * accepts since Osaka: `0x03 ‖ rlp([tx, wrapper version 1, blobs, commitments, cell proofs])`.
 */
export function withBlobSidecar(signed: Hex, blobs: readonly number[]): Hex {
  if (!signed.startsWith('0x03')) throw new Error('sandbox: not a blob transaction');
  const all = blobPool();
  const used = blobs.map((i) => all[i]!);
  const tx = fromRlp(`0x${signed.slice(4)}`);
  const wrapped = toRlp([
    tx,
    '0x01',
    used.map((b) => b.data),
    used.map((b) => b.commitment),
    used.flatMap((b) => b.cellProofs),
  ]);
  return `0x03${wrapped.slice(2)}`;
}

const warmed = new Set<string>();

/**
 * anvil loads its KZG trusted setup when it first checks a blob (~3 s on a quiet core, ~9 s under load): a blob
 * transaction from a key without ETH, which the node checks and then refuses (insufficient funds, so nothing reaches
 * its pool or its chain), makes it load the setup in the background while the world does other work, rather than
 * in the middle of the first block with a batch. Once per node (by URL) and process; never awaited, never fails.
 */
export function warmNodeKzg(rpc: RpcClient, chainId: number): void {
  if (warmed.has(rpc.url)) return;
  warmed.add(rpc.url);
  const account = privateKeyToAccount(keccak256(stringToHex('protoscore/sandbox/kzg-warm-up')));
  const pool = blobPool();
  void account
    .signTransaction({
      type: 'eip4844',
      chainId,
      nonce: 0,
      to: '0x000000000000000000000000000000000000dEaD',
      gas: 21_000n,
      maxFeePerGas: 10n ** 12n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 10n ** 12n,
      blobVersionedHashes: [pool[3]!.versionedHash],
    })
    .then((payload) => rpc.batch([{ method: 'eth_sendRawTransaction', params: [withBlobSidecar(payload, [3])] }]))
    .catch(() => undefined);
}
