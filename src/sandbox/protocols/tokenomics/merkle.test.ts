import { concat, encodePacked, type Hex, keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { airdropClaims } from './deploy.js';
import { type AirdropEntry, AirdropTree, airdropLeaf, verifyProof } from './merkle.js';

const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const C = '0x3333333333333333333333333333333333333333';
const sortedPair = (x: Hex, y: Hex) => keccak256(x.toLowerCase() < y.toLowerCase() ? concat([x, y]) : concat([y, x]));

describe('the airdrop merkle tree (as Uniswap merkle-distributor scripts build it)', () => {
  it('a leaf is keccak256(abi.encodePacked(uint256 index, address account, uint256 amount))', () => {
    const leaf = airdropLeaf({ index: 5, account: A, amount: 100n });
    const packed = `0x${5n.toString(16).padStart(64, '0')}${A.slice(2)}${100n.toString(16).padStart(64, '0')}` as Hex;
    expect(leaf).toBe(keccak256(packed));
    expect(leaf).toBe(keccak256(encodePacked(['uint256', 'address', 'uint256'], [5n, A, 100n])));
  });

  it('two and three leaves: sorted pairs, an odd node carried up alone', () => {
    const e: AirdropEntry[] = [
      { index: 0, account: A, amount: 10n },
      { index: 1, account: B, amount: 20n },
      { index: 2, account: C, amount: 30n },
    ];
    const [l0, l1, l2] = e.map((x) => airdropLeaf(x).toLowerCase() as Hex);
    expect(new AirdropTree(e.slice(0, 2)).root).toBe(sortedPair(l0!, l1!));
    const leaves = [l0!, l1!, l2!].sort();
    expect(new AirdropTree(e).root).toBe(sortedPair(sortedPair(leaves[0]!, leaves[1]!), leaves[2]!));
    expect(new AirdropTree(e).proof(e[0]!).length).toBeGreaterThan(0);
  });

  it("every entry's proof verifies, a changed amount or index does not", () => {
    const accounts = Array.from({ length: 37 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as const);
    const claims = airdropClaims(7, accounts, 150_000_000n * 10n ** 18n);
    expect(claims.reduce((s, c) => s + BigInt(c.amount), 0n)).toBe(150_000_000n * 10n ** 18n);
    const entries = claims.map((c) => ({ index: c.index, account: c.account, amount: BigInt(c.amount) }));
    const tree = new AirdropTree(entries);
    for (const entry of entries) {
      const proof = tree.proof(entry);
      expect(verifyProof(tree.root, entry, proof)).toBe(true);
      expect(verifyProof(tree.root, { ...entry, amount: entry.amount + 1n }, proof)).toBe(false);
      expect(verifyProof(tree.root, { ...entry, index: entry.index + 1 }, proof)).toBe(false);
    }
    expect(() => tree.proof({ index: 99, account: A, amount: 1n })).toThrow(/no leaf/);
    expect(() => new AirdropTree([])).toThrow(/no entries/);
  });
});
