import { brotliCompressSync, constants } from 'node:zlib';
import { hexToBytes, keccak256, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { l1OriginAt } from './l1.js';
import { gasUsedForL1, internalTx, internalTxHash, startBlockCalldata } from './nitro.js';
import { applyL1ToL2Alias, l1InfoCalldata, opPredeploys } from './op-stack.js';
import { hourFactor, l2Cast } from './traffic.js';

describe('OP Stack pieces', () => {
  it('loads the predeploys from @eth-optimism/contracts-bedrock; GasPriceOracle is the Fjord upgrade bytecode', () => {
    const code = Object.fromEntries(opPredeploys().map((p) => [p.name, keccak256(p.code)]));
    // The code hash the Fjord upgrade's GasPriceOracle deployment MUST produce (OP specs, "Fjord: Derivation",
    // GasPriceOracle deployment): the package ships OP mainnet's bytecode.
    expect(code.GasPriceOracle).toBe('0xa88fa50a2745b15e6794247614b5298483070661adacb8d32d716434ed24c6b2');
    // L1Block 1.4.1-beta.1 of the package (Ecotone setter plus custom-gas-token getters): not a version deployed on
    // OP mainnet, so pinned here only to notice a package change.
    expect(code.L1Block).toBe('0x3f5ec6b10ec3d60b3a840f6eb476ded32bbfc5dd68c12daccbbc775a2b93a10c');
  });

  it('builds the Ecotone L1-attributes calldata (selector 0x440a5e20, 164 bytes) and L1→L2 aliases', () => {
    const origin = l1OriginAt(1, 1_790_000_000);
    const data = l1InfoCalldata(origin, 3n);
    expect(data.slice(0, 10)).toBe('0x440a5e20');
    expect(hexToBytes(data)).toHaveLength(164);
    // baseFeeScalar (1368 = 0x558), blobBaseFeeScalar (810949 = 0xc5fc5), sequence number 3.
    expect(data.slice(10, 42)).toBe(`00000558000c5fc5${(3).toString(16).padStart(16, '0')}`);
    expect(applyL1ToL2Alias('0x0000000000000000000000000000000000000000')).toBe(
      '0x1111000000000000000000000000000000001111',
    );
    expect(applyL1ToL2Alias('0xffffffffffffffffffffffffffffffffffffffff')).toBe(
      '0x1111000000000000000000000000000000001110',
    );
  });

  it('gives an L1 origin that moves with time, the same for the same seed and time', () => {
    const a = l1OriginAt(1, 1_790_000_000);
    expect(l1OriginAt(1, 1_790_000_000)).toEqual(a);
    expect(l1OriginAt(1, 1_790_000_012).number).toBe(a.number + 1n);
    expect(a.baseFee).toBeGreaterThan(0n);
    expect(a.blobBaseFee).toBeGreaterThanOrEqual(1n);
    expect(l1OriginAt(2, 1_790_000_000).hash).not.toBe(a.hash);
  });
});

describe('Nitro pieces', () => {
  it('encodes ArbOS startBlock (selector 0x6bf6a42d) and hashes the internal transaction as type 0x6a', () => {
    const l1 = l1OriginAt(1, 1_790_000_000);
    const data = startBlockCalldata(l1, 5n, 12n);
    expect(data.slice(0, 10)).toBe('0x6bf6a42d');
    expect(hexToBytes(data)).toHaveLength(4 + 4 * 32);
    expect(internalTxHash(data)).toMatch(/^0x[0-9a-f]{64}$/);
    const block = { number: 5n, hash: keccak256('0x05'), timestamp: 1_790_000_000, baseFee: 10n ** 7n };
    expect(internalTx(1, { ...block, previousTimestamp: 1_789_999_988 }).hash).not.toBe(
      internalTx(1, { ...block, number: 6n, previousTimestamp: 1_789_999_988 }).hash,
    );
  });

  it('models gasUsedForL1 as brotli size × 16 × L1 price / L2 base fee', () => {
    const tx = toHex(new Uint8Array(120).map((_, i) => (i * 37) % 251));
    const size = brotliCompressSync(hexToBytes(tx), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }).length;
    expect(gasUsedForL1(tx, 3_000_000_000n, 10_000_000n)).toBe((BigInt(size) * 16n * 3_000_000_000n) / 10_000_000n);
    expect(gasUsedForL1(tx, 3_000_000_000n, 0n)).toBe(0n);
  });
});

describe('L2 traffic', () => {
  it('derives the same users from the same seed, other users from another', () => {
    expect(l2Cast('optimism', 1).users.map((u) => u.address)).toEqual(
      l2Cast('optimism', 1).users.map((u) => u.address),
    );
    expect(l2Cast('optimism', 1).users[0]!.address).not.toBe(l2Cast('optimism', 2).users[0]!.address);
    expect(l2Cast('optimism', 1).users[0]!.address).not.toBe(l2Cast('arbitrum', 1).users[0]!.address);
  });

  it('has bursts and quiet hours around the diurnal curve', () => {
    const factors = Array.from({ length: 24 * 30 }, (_, h) => hourFactor(1, 'optimism', 1_790_000_000 + h * 3600));
    expect(Math.max(...factors)).toBeGreaterThan(5);
    expect(Math.min(...factors)).toBeLessThan(0.15);
    const mean = factors.reduce((a, b) => a + b, 0) / factors.length;
    expect(mean).toBeGreaterThan(1);
    expect(mean).toBeLessThan(1.8);
  });
});
