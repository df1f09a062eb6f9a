/**
 * The blob pool (blobs.ts) against a real node: anvil (its default hardfork, after Osaka) verifies the committed KZG
 * commitments and cell proofs when it accepts a blob transaction, so a blob rebuilt differently from what
 * tools/sandbox-blobs.mjs computed, or a wrong proof, fails here. And a session over a base-fee schedule (fees.ts)
 * mines blocks at exactly the scheduled base fee, every bid above it, in the queued order.
 */
import { type Hex, keccak256 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYER_PRIVATE_KEY, signerAgent } from './agent.js';
import { type Anvil, startAnvil } from './anvil.js';
import { BLOB_FILL, blobData, blobPool, GAS_PER_BLOB, withBlobSidecar } from './blobs.js';
import { ethereumBaseFee, ethereumSession } from './fees.js';
import { ChainSession, SCHEDULED_TIP } from './session.js';

const INBOX = '0xff00000000000000000000000000000000000010' as const;

interface Block {
  baseFeePerGas: Hex;
  blobGasUsed: Hex;
  transactions: { hash: Hex; type: Hex; blobVersionedHashes?: Hex[]; maxFeePerGas: Hex }[];
}
interface Receipt {
  status: Hex;
  blobGasUsed?: Hex;
  blobGasPrice?: Hex;
  effectiveGasPrice: Hex;
  gasUsed: Hex;
}

describe('sandbox blobs', () => {
  let anvil: Anvil;
  const start = 1_767_225_600; // 2026-01-01T00:00:00Z
  beforeAll(async () => {
    anvil = await startAnvil({ mining: 'manual', genesisTimestamp: start });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it('rebuilds each blob from its tag: data up to its fill, zeros after, every field element below the modulus', () => {
    const pool = blobPool();
    expect(pool.map((b) => b.versionedHash.slice(0, 4))).toEqual(BLOB_FILL.map(() => '0x01'));
    expect(new Set(pool.map((b) => b.versionedHash)).size).toBe(BLOB_FILL.length);
    BLOB_FILL.forEach((fill, i) => {
      const data = blobData(i);
      expect(data.length).toBe(131_072);
      expect(Array.from({ length: 4096 }, (_, j) => data[j * 32]).every((x) => x === 0)).toBe(true);
      expect(data.subarray(fill * 32).every((x) => x === 0)).toBe(true);
      expect(data[(fill - 1) * 32 + 1] !== 0 || data[(fill - 1) * 32 + 2] !== 0).toBe(true);
      expect(pool[i]!.cellProofs).toHaveLength(128);
    });
  });

  it('a session sends blob transactions the node accepts, at the scheduled base fee, in the queued order', async () => {
    const seed = 7;
    const session = new ChainSession(anvil.rpcUrl, anvil.chainId, ethereumSession(seed));
    await session.prepareNode();
    const agent = signerAgent(DEPLOYER_PRIVATE_KEY, 0);
    session.send(agent, { to: INBOX, data: '0x', gas: 21_000n, kind: 'setup' });
    session.send(agent, { to: INBOX, data: '0x', gas: 21_000n, kind: 'blob', blobs: [0, 1, 2] });
    session.send(agent, { to: INBOX, data: '0x', gas: 21_000n, kind: 'blob', blobs: [5] });
    const at = start + 3600;
    const outcome = await session.mine(at);
    expect(outcome).toMatchObject({ transactions: 3, revertedUnexpected: 0, byKind: { setup: 1, blob: 2 } });
    const block = await anvil.request<Block>('eth_getBlockByNumber', ['latest', true]);
    const baseFee = ethereumBaseFee(seed, at);
    expect(BigInt(block.baseFeePerGas)).toBe(baseFee);
    expect(baseFee).toBeGreaterThan(100_000_000n);
    expect(BigInt(block.blobGasUsed)).toBe(4n * GAS_PER_BLOB);
    expect(block.transactions.map((t) => t.type)).toEqual(['0x2', '0x3', '0x3']);
    const pool = blobPool();
    expect(block.transactions[1]!.blobVersionedHashes).toEqual([0, 1, 2].map((i) => pool[i]!.versionedHash));
    for (const t of block.transactions) expect(BigInt(t.maxFeePerGas)).toBeGreaterThan(baseFee + SCHEDULED_TIP);
    const receipts = await anvil.request<Receipt[]>('eth_getBlockReceipts', ['latest']);
    expect(receipts.map((r) => r.status)).toEqual(['0x1', '0x1', '0x1']);
    expect(receipts.map((r) => BigInt(r.blobGasUsed ?? '0x0'))).toEqual([0n, 3n * GAS_PER_BLOB, GAS_PER_BLOB]);
    expect(BigInt(receipts[1]!.blobGasPrice!)).toBeGreaterThanOrEqual(1n);
    // A block later, the schedule again: another hour, another base fee.
    const outcome2 = await session.mine(at + 3600);
    expect(outcome2.transactions).toBe(0);
    const next = await anvil.request<Block>('eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(next.baseFeePerGas)).toBe(ethereumBaseFee(seed, at + 3600));
  });

  it('the node refuses a blob whose proofs are not its own', async () => {
    const agent = signerAgent(DEPLOYER_PRIVATE_KEY, 2);
    const nonce = Number(await anvil.request<Hex>('eth_getTransactionCount', [agent.address, 'latest']));
    const pool = blobPool();
    const payload = await agent.signer().signTransaction({
      type: 'eip4844',
      chainId: anvil.chainId,
      nonce,
      to: INBOX,
      gas: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      maxFeePerBlobGas: 10n ** 10n,
      blobVersionedHashes: [pool[0]!.versionedHash],
    });
    const good = withBlobSidecar(payload, [0]);
    // The same transaction with blob 1's data in place of blob 0's: commitment and proofs no longer match it.
    const bad = good.replace(pool[0]!.data.slice(2), pool[1]!.data.slice(2)) as Hex;
    expect(bad).not.toBe(good);
    await expect(anvil.request('eth_sendRawTransaction', [bad])).rejects.toThrow();
    await expect(anvil.request('eth_sendRawTransaction', [good])).resolves.toBe(keccak256(payload));
  });
});
