// Computes the KZG commitments and cell proofs (EIP-4844 with EIP-7594's cell proofs, as Osaka and its blob-parameter
// forks require) of the sandbox's blob poster's blobs (src/sandbox/chain/blobs.ts), into the committed
// src/sandbox/chain/blobs.json. The blobs themselves are rebuilt at run time from their tags (`blobData` there), so
// the service never needs a KZG library: KZG in WebAssembly takes ~25 s to load its trusted setup and ~5 s a blob,
// too slow for a first start. anvil checks every proof when it accepts a blob transaction, so a wrong proof fails
// the sandbox's tests (src/sandbox/chain/blobs.test.ts). Run with kzg-wasm (not a dependency of the service):
//   npm install --no-save kzg-wasm@1.0.0 && node tools/sandbox-blobs.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadKZG } from 'kzg-wasm';
import { keccak256 } from 'viem';

export const BLOB_COUNT = 6;
const FIELD_ELEMENTS = 4096;

/** How many field elements of each blob hold data (the rest is zero, as a batch that does not fill its blob). */
export const BLOB_FILL = [1024, 256, 640, 128, 896, 384];

/**
 * Blob `i`: its first `BLOB_FILL[i]` field elements are 0x00 ‖ 31 bytes of a keccak chain from the tag (so each is
 * below the field's modulus), the rest zero. Kept in step with `blobData` of src/sandbox/chain/blobs.ts.
 */
export function blobData(i) {
  const out = new Uint8Array(FIELD_ELEMENTS * 32);
  let h = keccak256(new TextEncoder().encode(`protoscore/sandbox/blob/${i}`), 'bytes');
  for (let j = 0; j < BLOB_FILL[i]; j++) {
    out.set(h.subarray(1), j * 32 + 1);
    h = keccak256(h, 'bytes');
  }
  return out;
}

const hex = (bytes) => `0x${Buffer.from(bytes).toString('hex')}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const kzg = await loadKZG(0);
  const blobs = [];
  for (let i = 0; i < BLOB_COUNT; i++) {
    const blob = hex(blobData(i));
    const commitment = kzg.blobToKZGCommitment(blob);
    const { proofs } = kzg.computeCellsAndKZGProofs(blob);
    blobs.push({ tag: `protoscore/sandbox/blob/${i}`, commitment, cellProofs: proofs });
    console.log(`blob ${i}: ${commitment}`);
  }
  const file = fileURLToPath(new URL('../src/sandbox/chain/blobs.json', import.meta.url));
  writeFileSync(file, `${JSON.stringify({ generator: 'kzg-wasm@1.0.0 (c-kzg-4844)', blobs }, null, 2)}\n`);
}
