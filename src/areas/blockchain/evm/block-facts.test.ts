import { describe, expect, it } from 'vitest';
import type { FullBlock, FullReceipt } from '../../../sources/evm/full-blocks.js';
import { ARBOS_ADDRESS, blockFact as factOf, OP_L1_BLOCK, OP_SYSTEM_FROM } from './block-facts.js';
import type { EvmChainKind } from './facts.js';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as `0x${string}`;

/** A transaction as its receipt describes it (sender, target, type). */
interface Tx {
  readonly hash: `0x${string}`;
  readonly from: `0x${string}`;
  readonly to: `0x${string}` | null;
  readonly type: number;
}

function tx(i: number, type: number, from: string, to: string | null = a(99)): Tx {
  return { hash: h(1000 + i), from: from as `0x${string}`, to: to as `0x${string}` | null, type };
}

type Receipt = Omit<FullReceipt, 'from' | 'to' | 'type'>;

function receipt(i: number, gasUsed: bigint, price: bigint, extra: Partial<FullReceipt> = {}): Receipt {
  return {
    transactionHash: h(1000 + i),
    transactionIndex: i,
    status: 1,
    gasUsed,
    effectiveGasPrice: price,
    contractAddress: null,
    blobGasUsed: null,
    blobGasPrice: null,
    l1Fee: null,
    gasUsedForL1: null,
    ...extra,
  };
}

interface TestBlock {
  readonly block: FullBlock;
  readonly txs: readonly Tx[];
}

function block(txs: Tx[], baseFee: bigint | null = 10n): TestBlock {
  return { block: header(txs, baseFee), txs };
}

/** The block's facts from receipts that carry their transaction's sender, target and type (as nodes send them). */
function blockFact(chain: string, kind: EvmChainKind, b: TestBlock, receipts: Receipt[]) {
  return factOf(
    chain,
    kind,
    b.block,
    receipts.map((r, i) => ({
      from: b.txs[i]?.from ?? a(0),
      to: b.txs[i]?.to ?? null,
      type: b.txs[i]?.type ?? 0,
      ...r,
    })),
  );
}

function header(txs: Tx[], baseFee: bigint | null): FullBlock {
  return {
    number: 7,
    hash: h(7),
    parentHash: h(6),
    timestamp: 1_700_000_000,
    gasUsed: 100_000n,
    gasLimit: 30_000_000n,
    baseFeePerGas: baseFee,
    blobGasUsed: 131_072n,
    excessBlobGas: 0n,
    transactionHashes: txs.map((t) => t.hash),
    l1BlockNumber: null,
  };
}

describe('block facts', () => {
  it('Ethereum: fees split into burned base fee and tips, blob fees, failures, creations, type mix, senders', () => {
    const b = block([tx(0, 2, a(1)), tx(1, 0, a(2), null), tx(2, 3, a(1)), tx(3, 4, a(3))]);
    const f = blockFact('ethereum', 'l1', b, [
      receipt(0, 21_000n, 15n),
      receipt(1, 50_000n, 12n, { contractAddress: a(50) }),
      receipt(2, 21_000n, 11n, { blobGasUsed: 131_072n, blobGasPrice: 3n }),
      receipt(3, 8_000n, 10n, { status: 0 }),
    ]);
    expect(f.txs).toBe(4);
    expect(f.system).toBe(0);
    expect(f.systemViolation).toBe(0);
    expect(f.gasFees).toBe(String(21_000n * 15n + 50_000n * 12n + 21_000n * 11n + 8_000n * 10n));
    expect(f.burned).toBe(String((21_000n + 50_000n + 21_000n + 8_000n) * 10n));
    expect(f.priority).toBe(String(21_000n * 5n + 50_000n * 2n + 21_000n * 1n));
    expect(f.blobFees).toBe(String(131_072n * 3n));
    expect(f.failed).toBe(1);
    expect(f.newContracts).toBe(1);
    expect(f.typeMix).toEqual({ eip1559: 1, legacy: 1, blob: 1, set_code: 1 });
    expect(f.senders).toEqual([a(1), a(2), a(3)]);
    expect(f.fees).toEqual(['315000', '600000', '231000', '80000']);
  });

  it('senders and recipients: a payment to an account, a contract call, a creation (its new contract)', () => {
    const token = a(40);
    const b = block([
      // a(1) pays the account a(2); a(2) calls the contract a(40); a(3) creates a(50), and a(1) calls it (failed).
      tx(0, 2, a(1), a(2)),
      tx(1, 2, a(2), token),
      tx(2, 2, a(3), null),
      tx(3, 0, a(1), a(50)),
    ]);
    const f = blockFact('ethereum', 'l1', b, [
      receipt(0, 21_000n, 10n),
      receipt(1, 50_000n, 10n),
      receipt(2, 90_000n, 10n, { contractAddress: a(50) }),
      receipt(3, 30_000n, 10n, { status: 0 }),
    ]);
    expect(f.senders).toEqual([a(1), a(2), a(3)]);
    // Each address once: a(2) is paid and sends, a(50) is created and called.
    expect(f.addresses).toEqual([a(1), a(2), a(3), token, a(50)]);
  });

  it('OP and Nitro: the system transaction’s sender and target are not active; deposits’ are', () => {
    const op = blockFact(
      'optimism',
      'op',
      block([tx(0, 0x7e, OP_SYSTEM_FROM, OP_L1_BLOCK), tx(1, 0x7e, a(5), a(6)), tx(2, 0x7e, a(7), null)]),
      [receipt(0, 50_000n, 0n), receipt(1, 40_000n, 0n), receipt(2, 90_000n, 0n, { contractAddress: a(70) })],
    );
    expect(op.senders).toEqual([a(5), a(7)]);
    expect(op.addresses).toEqual([a(5), a(6), a(7), a(70)]);
    const nitro = blockFact(
      'arbitrum',
      'nitro',
      block([tx(0, 0x6a, ARBOS_ADDRESS, '0x00000000000000000000000000000000000a4b05'), tx(1, 0x64, a(8), a(9))]),
      [receipt(0, 0n, 0n), receipt(1, 0n, 0n)],
    );
    expect(nitro.senders).toEqual([a(8)]);
    expect(nitro.addresses).toEqual([a(8), a(9)]);
  });

  it('OP: the L1-attributes deposit is the system transaction; other deposits are deposits; l1Fee beside gas', () => {
    const b = block([tx(0, 0x7e, OP_SYSTEM_FROM, OP_L1_BLOCK), tx(1, 0x7e, a(5)), tx(2, 2, a(6))]);
    const f = blockFact('optimism', 'op', b, [
      receipt(0, 50_000n, 0n),
      receipt(1, 40_000n, 0n),
      receipt(2, 21_000n, 100n, { l1Fee: 7_777n }),
    ]);
    expect(f.system).toBe(1);
    expect(f.systemViolation).toBe(0);
    expect(f.deposits).toBe(1);
    expect(f.typeMix).toEqual({ deposit: 1, eip1559: 1 });
    expect(f.l1DataFees).toBe('7777');
    expect(f.gasFees).toBe('2100000');
    expect(f.fees).toEqual(['0', String(2_100_000n + 7_777n)]);
    expect(f.senders).toEqual([a(5), a(6)]);
  });

  it('OP: a block without its system transaction, or with it elsewhere, is a violation (nothing subtracted blindly)', () => {
    const none = blockFact('optimism', 'op', block([tx(0, 2, a(6))]), [receipt(0, 21_000n, 1n)]);
    expect(none.system).toBe(0);
    expect(none.systemViolation).toBe(1);
    const late = blockFact('optimism', 'op', block([tx(0, 2, a(6)), tx(1, 0x7e, OP_SYSTEM_FROM, OP_L1_BLOCK)]), [
      receipt(0, 21_000n, 1n),
      receipt(1, 0n, 0n),
    ]);
    expect(late.system).toBe(1);
    expect(late.systemViolation).toBe(1);
  });

  it('Nitro: the ArbOS internal transaction is the system one; L1 data is the gasUsedForL1 part of the gas', () => {
    const b = block([tx(0, 0x6a, ARBOS_ADDRESS), tx(1, 0x64, a(8)), tx(2, 0x69, a(9)), tx(3, 2, a(10))]);
    const f = blockFact('arbitrum', 'nitro', b, [
      receipt(0, 0n, 0n),
      receipt(1, 0n, 0n),
      receipt(2, 0n, 0n),
      receipt(3, 300_000n, 10n, { gasUsedForL1: 100_000n }),
    ]);
    expect(f.system).toBe(1);
    expect(f.deposits).toBe(2);
    expect(f.gasFees).toBe('3000000');
    expect(f.l1DataFees).toBe('1000000');
    expect(f.fees.at(-1)).toBe('3000000');
  });

  it('Nitro: batch-posting reports are system transactions too, not a violation; L1 messages are deposits', () => {
    // As Nitro orders them: startBlock, a batch-posting report, an ETH deposit, a retryable submission and its
    // auto-redeem, an unsigned and a contract transaction from the delayed inbox, a user's transaction.
    const b = block([
      tx(0, 0x6a, ARBOS_ADDRESS, ARBOS_ADDRESS),
      tx(1, 0x6a, ARBOS_ADDRESS, ARBOS_ADDRESS),
      tx(2, 0x64, a(8)),
      tx(3, 0x69, a(9), a(0x6e)),
      tx(4, 0x68, a(9)),
      tx(5, 0x65, a(11)),
      tx(6, 0x66, a(12)),
      tx(7, 2, a(10)),
    ]);
    const f = blockFact('arbitrum', 'nitro', b, [
      receipt(0, 0n, 10n),
      receipt(1, 0n, 10n),
      receipt(2, 0n, 10n),
      receipt(3, 100_000n, 10n),
      receipt(4, 21_000n, 10n),
      receipt(5, 30_000n, 10n),
      receipt(6, 40_000n, 10n),
      receipt(7, 300_000n, 10n, { gasUsedForL1: 100_000n }),
    ]);
    expect(f.system).toBe(2);
    expect(f.systemViolation).toBe(0);
    expect(f.deposits).toBe(5);
    expect(f.typeMix).toEqual({
      arbitrum_deposit: 1,
      arbitrum_submit_retryable: 1,
      arbitrum_retry: 1,
      arbitrum_unsigned: 1,
      arbitrum_contract: 1,
      eip1559: 1,
    });
    // The submission's gas is the auto-redeem's prepayment: counted once, as the redeem's.
    expect(f.fees).toEqual(['0', '0', '210000', '300000', '400000', '3000000']);
    expect(f.gasFees).toBe(String((21_000n + 30_000n + 40_000n + 300_000n) * 10n));
  });

  it('Nitro: a block whose index 0 is not the internal transaction is a violation, reports or not', () => {
    const none = blockFact('arbitrum', 'nitro', block([tx(0, 2, a(6))]), [receipt(0, 21_000n, 1n)]);
    expect(none.systemViolation).toBe(1);
    const reportOnly = blockFact(
      'arbitrum',
      'nitro',
      block([tx(0, 2, a(6)), tx(1, 0x6a, ARBOS_ADDRESS, ARBOS_ADDRESS)]),
      [receipt(0, 21_000n, 1n), receipt(1, 0n, 1n)],
    );
    expect(reportOnly.system).toBe(1);
    expect(reportOnly.systemViolation).toBe(1);
  });

  it('refuses receipts that are not the block’s', () => {
    expect(() => blockFact('ethereum', 'l1', block([tx(0, 2, a(1))]), [])).toThrow(/0 receipts for 1/);
    expect(() =>
      blockFact('ethereum', 'l1', block([tx(0, 2, a(1))]), [{ ...receipt(0, 1n, 1n), transactionHash: h(5) }]),
    ).toThrow(/receipt 0 is not transaction 0/);
  });
});
