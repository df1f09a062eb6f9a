import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilLite, EMITTER_INIT, receiptOf, sendTx, startAnvil } from '../../../test/support/anvil-lite.js';
import { isNotAvailable, parseFullBlock, parseReceipt } from './full-blocks.js';
import { createEvmSource } from './source.js';
import type { Hex } from './types.js';

/** Whole blocks, receipts (and their per-transaction fallback), fee history, tags and txpool against a real anvil. */

let anvil: AnvilLite;
let accounts: Hex[];
let block: number;
let hashes: Hex[];

/** A fetch that answers "method not found" for the listed methods, as providers that disable them do. */
function refusing(methods: readonly string[], seen: string[] = []): typeof fetch {
  return async (url, init) => {
    const body = JSON.parse(String(init?.body)) as { id: number; method: string } | { id: number; method: string }[];
    const calls = Array.isArray(body) ? body : [body];
    for (const c of calls) seen.push(c.method);
    if (calls.some((c) => methods.includes(c.method))) {
      const answers = calls.map((c) =>
        methods.includes(c.method)
          ? { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: `the method ${c.method} does not exist` } }
          : undefined,
      );
      if (answers.every((a) => a !== undefined)) {
        return new Response(JSON.stringify(Array.isArray(body) ? answers : answers[0]), { status: 200 });
      }
    }
    return fetch(url, init);
  };
}

beforeAll(async () => {
  anvil = await startAnvil();
  accounts = await anvil.rpc<Hex[]>('eth_accounts');
  await anvil.rpc('evm_setAutomine', [false]);
  hashes = [
    await sendTx(anvil, { from: accounts[0]!, to: accounts[1]!, data: '0x' }),
    await sendTx(anvil, { from: accounts[1]!, data: EMITTER_INIT }),
    // Reverts: calls INVALID (0xfe) as init code.
    await sendTx(anvil, { from: accounts[2]!, data: '0xfe', gas: 100_000 }),
  ];
  await anvil.rpc('evm_mine');
  await anvil.rpc('evm_setAutomine', [true]);
  block = Number.parseInt((await receiptOf(anvil, hashes[0]!)).blockNumber, 16);
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('full blocks and receipts', () => {
  it('reads a block with its transaction hashes and receipts (sender, target, type), in order, exact', async () => {
    const source = createEvmSource({ id: 'test', rpcUrl: anvil.url, finalityDepth: 0 });
    const blocks = await source.full.getBlocks([block, block + 1000]);
    expect(blocks.has(block + 1000)).toBe(false);
    const b = blocks.get(block)!;
    expect(b.transactionHashes).toEqual(hashes);
    expect(b.baseFeePerGas).not.toBeNull();
    const receipts = (await source.full.getReceipts([b])).get(block)!;
    expect(receipts.map((r) => r.transactionHash)).toEqual(hashes);
    expect(receipts.map((r) => r.from)).toEqual(accounts.slice(0, 3).map((a) => a.toLowerCase()));
    expect(receipts[0]!.to).toBe(accounts[1]!.toLowerCase());
    expect(receipts[1]!.to).toBeNull();
    expect(receipts.map((r) => r.type)).toEqual([2, 2, 2]);
    expect(receipts.map((r) => r.status)).toEqual([1, 1, 0]);
    expect(receipts[1]!.contractAddress).toMatch(/^0x[0-9a-f]{40}$/);
    expect(receipts.reduce((s, r) => s + r.gasUsed, 0n)).toBe(b.gasUsed);
    expect(source.full.blockReceiptsSupported).toBe(true);
  });

  it('keeps the hashes of a block answered with whole transaction objects', async () => {
    const raw = await anvil.rpc<Record<string, unknown>>('eth_getBlockByNumber', [`0x${block.toString(16)}`, true]);
    expect(parseFullBlock(raw, block).transactionHashes).toEqual(hashes);
  });

  it('falls back to one receipt per transaction where the node lacks eth_getBlockReceipts', async () => {
    const seen: string[] = [];
    const source = createEvmSource(
      { id: 'test', rpcUrl: anvil.url, finalityDepth: 0 },
      { fetch: refusing(['eth_getBlockReceipts'], seen) },
    );
    const b = (await source.full.getBlocks([block])).get(block)!;
    const direct = createEvmSource({ id: 'test', rpcUrl: anvil.url, finalityDepth: 0 });
    const expected = (await direct.full.getReceipts([b])).get(block);
    expect((await source.full.getReceipts([b])).get(block)).toEqual(expected);
    expect(source.full.blockReceiptsSupported).toBe(false);
    expect(seen.filter((m) => m === 'eth_getTransactionReceipt')).toHaveLength(3);
    // Once known, the block method is not asked again.
    seen.length = 0;
    await source.full.getReceipts([b]);
    expect(seen).not.toContain('eth_getBlockReceipts');
  });

  it('reads the fee history, the finalized and safe tags and the transaction pool', async () => {
    const source = createEvmSource({ id: 'test', rpcUrl: anvil.url, finalityDepth: 0 });
    const history = await source.full.feeHistory(2, block);
    expect(history.oldestBlock).toBe(block - 1);
    expect(history.baseFeePerGas).toHaveLength(3);
    expect(history.baseFeePerBlobGas.length).toBe(3);
    const finalized = await source.full.taggedBlock('finalized');
    const latest = await source.full.taggedBlock('latest');
    if (isNotAvailable(finalized) || isNotAvailable(latest)) throw new Error('anvil knows the tags');
    expect(finalized.number).toBeLessThanOrEqual(latest.number);
    expect(await source.full.txpoolStatus()).toEqual({ pending: 0, queued: 0 });
  });

  it('says "not available" where the node has no txpool or tags, and never answers zero', async () => {
    const source = createEvmSource(
      { id: 'test', rpcUrl: anvil.url, finalityDepth: 0, maxRetries: 0 },
      { fetch: refusing(['txpool_status']) },
    );
    const pool = await source.full.txpoolStatus();
    expect(isNotAvailable(pool) && pool.notAvailable).toMatch(/txpool_status not available/);
  });

  it('refuses malformed blocks and receipts with a clear error', () => {
    expect(() => parseFullBlock({ number: '0x1', hash: '0x12', transactions: [] }, 1)).toThrow(
      /malformed block 1: hash/,
    );
    expect(() => parseFullBlock({ number: '0x2' }, 1)).toThrow(/answered block 2/);
    expect(() =>
      parseReceipt(
        { transactionHash: `0x${'1'.repeat(64)}`, transactionIndex: '0x0', status: '0x1', from: '0x12' },
        'r',
      ),
    ).toThrow(/malformed r: from/);
    expect(() =>
      parseReceipt({ transactionHash: `0x${'1'.repeat(64)}`, transactionIndex: '0x0', status: '0x2' }, 'r'),
    ).toThrow(/status 2/);
  });
});
