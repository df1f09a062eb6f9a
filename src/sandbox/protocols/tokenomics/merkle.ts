/**
 * The airdrop's merkle tree, built exactly as Uniswap's merkle-distributor scripts build it (`src/merkle-tree.ts`,
 * `src/balance-tree.ts`): a leaf is keccak256(abi.encodePacked(uint256 index, address account, uint256 amount)), the
 * leaves are sorted (bytewise) and deduplicated, each parent is keccak256 of its two children sorted bytewise, and an
 * odd node is carried up alone. The contract's `MerkleProof.verify` hashes sorted pairs the same way.
 */
import { type Address, concat, encodePacked, type Hex, keccak256 } from 'viem';

export interface AirdropEntry {
  readonly index: number;
  readonly account: Address;
  readonly amount: bigint;
}

export function airdropLeaf(e: AirdropEntry): Hex {
  return keccak256(encodePacked(['uint256', 'address', 'uint256'], [BigInt(e.index), e.account, e.amount]));
}

const compare = (a: Hex, b: Hex): number => {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
};

const pairHash = (a: Hex, b: Hex): Hex => keccak256(compare(a, b) <= 0 ? concat([a, b]) : concat([b, a]));

export class AirdropTree {
  private readonly layers: Hex[][];

  constructor(readonly entries: readonly AirdropEntry[]) {
    if (entries.length === 0) throw new Error('airdrop tree: no entries');
    const leaves = [...new Set(entries.map(airdropLeaf).map((h) => h.toLowerCase() as Hex))].sort(compare);
    const layers: Hex[][] = [leaves];
    while (layers[layers.length - 1]!.length > 1) {
      const below = layers[layers.length - 1]!;
      const up: Hex[] = [];
      for (let i = 0; i < below.length; i += 2)
        up.push(i + 1 < below.length ? pairHash(below[i]!, below[i + 1]!) : below[i]!);
      layers.push(up);
    }
    this.layers = layers;
  }

  get root(): Hex {
    return this.layers[this.layers.length - 1]![0]!;
  }

  /** The proof of an entry (the sibling at each layer, where there is one). */
  proof(entry: AirdropEntry): Hex[] {
    const leaf = airdropLeaf(entry).toLowerCase() as Hex;
    let idx = this.layers[0]!.indexOf(leaf);
    if (idx < 0) throw new Error(`airdrop tree: no leaf for index ${entry.index}`);
    const proof: Hex[] = [];
    for (const layer of this.layers.slice(0, -1)) {
      const pair = idx % 2 === 0 ? idx + 1 : idx - 1;
      if (pair < layer.length) proof.push(layer[pair]!);
      idx = Math.floor(idx / 2);
    }
    return proof;
  }
}

/** Whether `proof` leads from `entry`'s leaf to `root` (what `MerkleProof.verify` computes). */
export function verifyProof(root: Hex, entry: AirdropEntry, proof: readonly Hex[]): boolean {
  let hash = airdropLeaf(entry);
  for (const p of proof) hash = pairHash(hash, p);
  return hash.toLowerCase() === root.toLowerCase();
}
