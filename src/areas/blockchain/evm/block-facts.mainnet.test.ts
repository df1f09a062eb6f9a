import { describe, expect, it } from 'vitest';
import { parseFullBlock, parseReceipt } from '../../../sources/evm/full-blocks.js';
import { blockFact } from './block-facts.js';

/**
 * Blocks and receipts in the shapes OP Mainnet's op-geth and Arbitrum One's Nitro answer (fields as those nodes
 * send them: deposit fields, Ecotone `l1*` receipt fields, Nitro's `l1BlockNumber` and `gasUsedForL1`), through the
 * source's parsers and the counting convention.
 */

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const BLOCK = '0x7a1200';

const opBlock = {
  number: BLOCK,
  hash: hash(1),
  parentHash: hash(2),
  timestamp: '0x6740e2b0',
  gasUsed: '0x2dc6c0',
  gasLimit: '0x3938700',
  baseFeePerGas: '0xfc',
  blobGasUsed: '0x0',
  excessBlobGas: '0x0',
  miner: '0x4200000000000000000000000000000000000011',
  transactions: [
    {
      blockHash: hash(1),
      blockNumber: BLOCK,
      depositReceiptVersion: '0x1',
      from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
      gas: '0xf4240',
      gasPrice: '0x0',
      hash: hash(10),
      input: '0x440a5e20000008dd00101c1200000000000000050000000067',
      mint: '0x0',
      nonce: '0x7a11ff',
      r: '0x0',
      s: '0x0',
      sourceHash: hash(99),
      to: '0x4200000000000000000000000000000000000015',
      transactionIndex: '0x0',
      type: '0x7e',
      v: '0x0',
      value: '0x0',
    },
    {
      blockHash: hash(1),
      blockNumber: BLOCK,
      from: '0x977f82a600a1414e583f7f13623f1ac5d58b1c0b',
      gas: '0x30d40',
      gasPrice: '0x0',
      hash: hash(11),
      input: '0x',
      isSystemTx: false,
      mint: '0x2386f26fc10000',
      nonce: '0x0',
      sourceHash: hash(98),
      to: '0x977f82a600a1414e583f7f13623f1ac5d58b1c0b',
      transactionIndex: '0x1',
      type: '0x7e',
      value: '0x2386f26fc10000',
    },
    {
      accessList: [],
      blockHash: hash(1),
      blockNumber: BLOCK,
      chainId: '0xa',
      from: '0x5c4FE1b2C2C1BB4aD5a0Fa1f0aF8A6e54B7C1e3d',
      gas: '0x5208',
      gasPrice: '0x10c',
      hash: hash(12),
      input: '0x',
      maxFeePerGas: '0x200',
      maxPriorityFeePerGas: '0x10',
      nonce: '0x4',
      to: '0x1111111111111111111111111111111111111111',
      transactionIndex: '0x2',
      type: '0x2',
      value: '0x1',
      yParity: '0x1',
    },
  ],
};

const opReceipts = [
  {
    blockHash: hash(1),
    blockNumber: BLOCK,
    contractAddress: null,
    cumulativeGasUsed: '0xb1e2',
    depositNonce: '0x7a11ff',
    depositReceiptVersion: '0x1',
    effectiveGasPrice: '0x0',
    from: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001',
    gasUsed: '0xb1e2',
    logs: [],
    status: '0x1',
    to: '0x4200000000000000000000000000000000000015',
    transactionHash: hash(10),
    transactionIndex: '0x0',
    type: '0x7e',
  },
  {
    // A pre-Regolith deposit receipt: no effectiveGasPrice.
    contractAddress: null,
    from: '0x977f82a600a1414e583f7f13623f1ac5d58b1c0b',
    to: '0x977f82a600a1414e583f7f13623f1ac5d58b1c0b',
    gasUsed: '0x5208',
    status: '0x1',
    transactionHash: hash(11),
    transactionIndex: '0x1',
    type: '0x7e',
  },
  {
    contractAddress: null,
    effectiveGasPrice: '0x10c',
    from: '0x5c4FE1b2C2C1BB4aD5a0Fa1f0aF8A6e54B7C1e3d',
    to: '0x1111111111111111111111111111111111111111',
    gasUsed: '0x5208',
    l1BaseFeeScalar: '0x8dd',
    l1BlobBaseFee: '0x1',
    l1BlobBaseFeeScalar: '0x101c12',
    l1Fee: '0x1d2a5c3b8',
    l1GasPrice: '0x2a6c0e3f2',
    l1GasUsed: '0x640',
    status: '0x1',
    transactionHash: hash(12),
    transactionIndex: '0x2',
    type: '0x2',
  },
];

const ARB = '0x10a3f5c2';
const arbBlock = {
  number: ARB,
  hash: hash(3),
  parentHash: hash(4),
  timestamp: '0x6740e2b1',
  difficulty: '0x1',
  gasUsed: '0x3d090',
  gasLimit: '0x4000000000000',
  baseFeePerGas: '0x989680',
  l1BlockNumber: '0x13c6f1e',
  mixHash: hash(5),
  nonce: '0x00000000001a2b3c',
  sendCount: '0x1a2b3',
  sendRoot: hash(6),
  transactions: [
    {
      blockHash: hash(3),
      blockNumber: ARB,
      chainId: '0xa4b1',
      from: '0x00000000000000000000000000000000000A4B05',
      gas: '0x0',
      gasPrice: '0x0',
      hash: hash(20),
      input: '0x6bf6a42d',
      nonce: '0x0',
      r: '0x0',
      s: '0x0',
      // ArbitrumInternalTx.to(): ArbOS itself (go-ethereum fork, core/types/arb_types.go).
      to: '0x00000000000000000000000000000000000A4B05',
      transactionIndex: '0x0',
      type: '0x6a',
      v: '0x0',
      value: '0x0',
    },
    {
      from: '0x7c5a1c0c2d5ba3f6ec38d3f03b40a3b1d3d9ef21',
      hash: hash(21),
      // ArbitrumSubmitRetryableTx.to(): the ArbRetryableTx precompile.
      to: '0x000000000000000000000000000000000000006e',
      transactionIndex: '0x1',
      type: '0x69',
    },
    {
      from: '0x7c5a1c0c2d5ba3f6ec38d3f03b40a3b1d3d9ef21',
      hash: hash(22),
      to: hash(0).slice(0, 42),
      transactionIndex: '0x2',
      type: '0x68',
    },
    {
      from: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      hash: hash(23),
      to: null,
      transactionIndex: '0x3',
      type: '0x2',
    },
  ],
};

/** Nitro's receipts name the transaction's sender and target, as the block's transactions above do. */
const arbReceipt = (i: number, type: string, gasUsed: string, gasUsedForL1: string, extra = {}) => ({
  transactionHash: hash(20 + i),
  from: arbBlock.transactions[i]!.from,
  to: arbBlock.transactions[i]!.to,
  transactionIndex: `0x${i.toString(16)}`,
  type,
  status: '0x1',
  contractAddress: null,
  effectiveGasPrice: '0x989680',
  gasUsed,
  gasUsedForL1,
  l1BlockNumber: '0x13c6f1e',
  ...extra,
});
const arbReceipts = [
  arbReceipt(0, '0x6a', '0x0', '0x0'),
  // ArbOS reports the whole gas limit as the submission's gas: the auto-redeem's prepayment (tx_processor.go).
  arbReceipt(1, '0x69', '0x186a0', '0x0'),
  arbReceipt(2, '0x68', '0xc350', '0x0'),
  arbReceipt(3, '0x2', '0x1d0cb', '0x7d3e', { contractAddress: '0x1234567890abcdef1234567890abcdef12345678' }),
];

describe('counting on mainnet-shaped blocks', () => {
  it('reads the same facts from a block with transaction objects and from one with hashes only', () => {
    const hashesOnly = { ...opBlock, transactions: opBlock.transactions.map((t) => t.hash) };
    const receipts = opReceipts.map((r, i) => parseReceipt(r, `r${i}`));
    expect(blockFact('optimism', 'op', parseFullBlock(hashesOnly, 0x7a1200), receipts)).toEqual(
      blockFact('optimism', 'op', parseFullBlock(opBlock, 0x7a1200), receipts),
    );
  });

  it('reads the same facts whatever the case of the hex digits of a type (OP deposits come as 0x7E too)', () => {
    const spelled = (type: (t: string) => string) => {
      const block = { ...opBlock, transactions: opBlock.transactions.map((t) => ({ ...t, type: type(t.type) })) };
      const receipts = opReceipts.map((r, i) => parseReceipt({ ...r, type: type(r.type) }, `r${i}`));
      return blockFact('optimism', 'op', parseFullBlock(block, 0x7a1200), receipts);
    };
    const lower = spelled((t) => t);
    const upper = spelled((t) => `0x${t.slice(2).toUpperCase()}`);
    expect(upper).toEqual(lower);
    // The pre-Regolith deposit without effectiveGasPrice pays no L2 gas in both spellings.
    expect(upper.deposits).toBe(1);
    expect(upper.system).toBe(1);
    expect(upper.gasFees).toBe(String(0x5208n * 0x10cn));
  });

  it('OP Mainnet: the L1-attributes deposit is the system transaction, the user deposit a deposit, l1Fee charged beside gas', () => {
    const b = parseFullBlock(opBlock, 0x7a1200);
    const f = blockFact(
      'optimism',
      'op',
      b,
      opReceipts.map((r, i) => parseReceipt(r, `r${i}`)),
    );
    expect(f.system).toBe(1);
    expect(f.systemViolation).toBe(0);
    expect(f.txs - f.system).toBe(2);
    expect(f.deposits).toBe(1);
    expect(f.typeMix).toEqual({ deposit: 1, eip1559: 1 });
    expect(f.l1DataFees).toBe(String(0x1d2a5c3b8n));
    expect(f.gasFees).toBe(String(0x5208n * 0x10cn));
    expect(f.senders).toEqual([
      '0x5c4fe1b2c2c1bb4ad5a0fa1f0af8a6e54b7c1e3d',
      '0x977f82a600a1414e583f7f13623f1ac5d58b1c0b',
    ]);
  });

  it('Arbitrum One: the ArbOS internal transaction is the system one, retryables are deposits, L1 data inside the gas', () => {
    const b = parseFullBlock(arbBlock, 0x10a3f5c2);
    expect(b.l1BlockNumber).toBe(0x13c6f1e);
    const f = blockFact(
      'arbitrum',
      'nitro',
      b,
      arbReceipts.map((r, i) => parseReceipt(r, `r${i}`)),
    );
    expect(f.system).toBe(1);
    expect(f.systemViolation).toBe(0);
    expect(f.deposits).toBe(2);
    expect(f.typeMix).toEqual({ arbitrum_retry: 1, arbitrum_submit_retryable: 1, eip1559: 1 });
    expect(f.newContracts).toBe(1);
    // The submission's prepaid gas is counted once, as the redeem's.
    expect(f.gasFees).toBe(String((0xc350n + 0x1d0cbn) * 0x989680n));
    expect(f.l1DataFees).toBe(String(0x7d3en * 0x989680n));
  });
});
