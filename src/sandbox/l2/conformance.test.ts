import { decodeFunctionData, getAddress, type Hex, keccak256, parseAbi, toHex, toRlp } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnvilLite,
  EMITTER_INIT,
  emitterCalldata,
  receiptOf,
  sendTx,
  startAnvil,
} from '../../../test/support/anvil-lite.js';
import { closedObject, conformance } from '../../../test/support/wire-conformance.js';
import { l1OriginAt } from './l1.js';
import { ARBOS_ADDRESS } from './nitro.js';
import {
  NITRO_TX_TYPES,
  type NitroMessage,
  type NitroSaved,
  planNitroMessages,
  recordNitroMessages,
} from './nitro-messages.js';
import { type RpcProxy, startRpcProxy } from './proxy.js';
import { nitroShaper, opShaper } from './shapers.js';

/**
 * What the sandbox's L2 proxies make up (Nitro's internal transaction, its receipt, Nitro blocks and receipts, OP
 * receipts with op-geth's `l1*` fields) against the Ethereum JSON-RPC specification: ethereum/execution-apis,
 * release v1.0.0-beta.7 (commit 5aebdfdd45cadeb723be4bd45b4611b71c8b1c85, 2026-06-10). No npm package carries it,
 * so the schemas of the objects the proxies shape are transcribed below from its `src/schemas/*.yaml` (named at
 * each). What the L2 clients add beyond that specification is allowed by name only, typed as the specification's
 * quantities: op-geth's receipt fields (`l1Fee`, `l1GasPrice`, `l1GasUsed`, `l1BaseFeeScalar`, `l1BlobBaseFee`,
 * `l1BlobBaseFeeScalar`) and Nitro's (`gasUsedForL1`, `l1BlockNumber`; `l1BlockNumber` on blocks), and anvil's own
 * `blockTimestamp` on the receipts it answers (the proxies pass it through; they do not make it up). Nitro's internal
 * transaction (type 0x6a) is none of the specification's typed transactions: it is held to the contextual
 * information every `TransactionInfo` carries and to the generic transaction's field types, and, like the
 * transactions Nitro makes from L1 messages (batch-posting reports, deposits, retryables: nitro-messages.ts), to
 * Nitro's own definitions in its go-ethereum fork (type numbers, RLP fields and hashes, `RPCTransaction` per type).
 */

const SPEC = 'https://github.com/ethereum/execution-apis/tree/v1.0.0-beta.7';
// src/schemas/base-types.yaml
const uint = { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' };
const byte = { type: 'string', pattern: '^0x([0-9a-fA-F]?){1,2}$' };
const address = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' };
const bytes = { type: 'string', pattern: '^0x[0-9a-f]*$' };
const bytes8 = { type: 'string', pattern: '^0x[0-9a-f]{16}$' };
const bytes32 = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const bytes256 = { type: 'string', pattern: '^0x[0-9a-f]{512}$' };
const hash32 = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const addressOrNull = { oneOf: [{ type: 'null' }, address] };

// src/schemas/receipt.yaml#/Log (additionalProperties: false)
const Log = closedObject(
  {
    removed: { type: 'boolean' },
    logIndex: uint,
    transactionIndex: uint,
    transactionHash: hash32,
    blockHash: hash32,
    blockNumber: uint,
    blockTimestamp: uint,
    address,
    data: bytes,
    topics: { type: 'array', items: bytes32 },
  },
  ['transactionHash'],
);
/** anvil's addition to the receipts it answers (a JSON number), passed through by the proxies: not the spec's. */
const ANVIL_RECEIPT = { blockTimestamp: {} };
const OP_RECEIPT = ['l1Fee', 'l1GasPrice', 'l1GasUsed', 'l1BaseFeeScalar', 'l1BlobBaseFee', 'l1BlobBaseFeeScalar'];
const NITRO_RECEIPT = ['gasUsedForL1', 'l1BlockNumber'];
// src/schemas/receipt.yaml#/ReceiptInfo (additionalProperties: false), with the L2 client's own fields.
const receiptInfo = (extensions: readonly string[], passedThrough: Record<string, object> = ANVIL_RECEIPT) =>
  closedObject(
    {
      type: byte,
      transactionHash: hash32,
      transactionIndex: uint,
      blockHash: hash32,
      blockNumber: uint,
      from: address,
      to: addressOrNull,
      cumulativeGasUsed: uint,
      gasUsed: uint,
      blobGasUsed: uint,
      contractAddress: addressOrNull,
      logs: { type: 'array', items: Log },
      logsBloom: bytes256,
      root: hash32,
      status: uint,
      effectiveGasPrice: uint,
      blobGasPrice: uint,
      ...Object.fromEntries(extensions.map((f) => [f, uint])),
      ...passedThrough,
    },
    [
      'blockHash',
      'blockNumber',
      'from',
      'cumulativeGasUsed',
      'gasUsed',
      'logs',
      'logsBloom',
      'transactionHash',
      'transactionIndex',
      'effectiveGasPrice',
    ],
  );
// src/schemas/transaction.yaml#/TransactionInfo's contextual information and #/GenericTransaction's fields, with the
// signature fields of #/TransactionLegacySigned (v, r, s: uint).
const synthesisedTransaction = closedObject(
  {
    blockHash: hash32,
    blockNumber: uint,
    blockTimestamp: uint,
    from: address,
    hash: hash32,
    transactionIndex: uint,
    type: byte,
    nonce: uint,
    to: addressOrNull,
    gas: uint,
    value: uint,
    input: bytes,
    gasPrice: uint,
    chainId: uint,
    v: uint,
    r: uint,
    s: uint,
  },
  [
    'blockHash',
    'blockNumber',
    'blockTimestamp',
    'from',
    'hash',
    'transactionIndex',
    'type',
    'nonce',
    'gas',
    'value',
    'input',
  ],
);
/**
 * Nitro's own definitions: OffchainLabs/go-ethereum (Nitro's fork) at commit 49b38a638a91f91f0fdb8be5f740c69f8d6abefc,
 * the one OffchainLabs/nitro 6dce8d13902649a1acdfd3f2504129f1f5612358 pins. Transcribed from
 * `core/types/transaction.go` (the type numbers), `core/types/arb_types.go` (each type's fields in RLP order: a
 * transaction's hash is keccak256(type ‖ rlp(fields))) and `internal/ethapi/api.go` (`RPCTransaction`'s JSON names
 * and which of them `newRPCTransaction` sets for each Arbitrum type, beside the fields every transaction carries).
 */
const NITRO_TYPES = {
  ArbitrumDepositTxType: 0x64,
  ArbitrumUnsignedTxType: 0x65,
  ArbitrumContractTxType: 0x66,
  ArbitrumRetryTxType: 0x68,
  ArbitrumSubmitRetryableTxType: 0x69,
  ArbitrumInternalTxType: 0x6a,
  ArbitrumLegacyTxType: 0x78,
};
/** Each type's RLP fields, as the JSON names them (`GasFeeCap` is `maxFeePerGas`, `Data` `input`, …). */
const NITRO_RLP: Record<number, readonly [json: string, kind: 'int' | 'bytes'][]> = {
  // ArbitrumInternalTx{ChainId, Data}
  106: [
    ['chainId', 'int'],
    ['input', 'bytes'],
  ],
  // ArbitrumDepositTx{ChainId, L1RequestId, From, To, Value}
  100: [
    ['chainId', 'int'],
    ['requestId', 'bytes'],
    ['from', 'bytes'],
    ['to', 'bytes'],
    ['value', 'int'],
  ],
  // ArbitrumSubmitRetryableTx{ChainId, RequestId, From, L1BaseFee, DepositValue, GasFeeCap, Gas, RetryTo, RetryValue,
  // Beneficiary, MaxSubmissionFee, FeeRefundAddr, RetryData}
  105: [
    ['chainId', 'int'],
    ['requestId', 'bytes'],
    ['from', 'bytes'],
    ['l1BaseFee', 'int'],
    ['depositValue', 'int'],
    ['maxFeePerGas', 'int'],
    ['gas', 'int'],
    ['retryTo', 'bytes'],
    ['retryValue', 'int'],
    ['beneficiary', 'bytes'],
    ['maxSubmissionFee', 'int'],
    ['refundTo', 'bytes'],
    ['retryData', 'bytes'],
  ],
  // ArbitrumRetryTx{ChainId, Nonce, From, GasFeeCap, Gas, To, Value, Data, TicketId, RefundTo, MaxRefund,
  // SubmissionFeeRefund}
  104: [
    ['chainId', 'int'],
    ['nonce', 'int'],
    ['from', 'bytes'],
    ['maxFeePerGas', 'int'],
    ['gas', 'int'],
    ['to', 'bytes'],
    ['value', 'int'],
    ['input', 'bytes'],
    ['ticketId', 'bytes'],
    ['refundTo', 'bytes'],
    ['maxRefund', 'int'],
    ['submissionFeeRefund', 'int'],
  ],
};
/** `RPCTransaction`'s fields without omitempty, set for every transaction (plus the specification's blockTimestamp). */
const RPC_ALWAYS = {
  blockHash: hash32,
  blockNumber: uint,
  blockTimestamp: uint,
  from: address,
  gas: uint,
  gasPrice: uint,
  hash: hash32,
  input: bytes,
  nonce: uint,
  to: addressOrNull,
  transactionIndex: uint,
  value: uint,
  type: byte,
  v: uint,
  r: uint,
  s: uint,
};
/** What `newRPCTransaction` adds for each Arbitrum type (its `switch inner := tx.GetInner().(type)`). */
const RPC_ARBITRUM: Record<string, Record<string, object>> = {
  internal: { chainId: uint },
  deposit: { requestId: hash32, chainId: uint },
  retry: {
    ticketId: hash32,
    refundTo: address,
    maxFeePerGas: uint,
    chainId: uint,
    maxRefund: uint,
    submissionFeeRefund: uint,
  },
  submitRetryable: {
    requestId: hash32,
    l1BaseFee: uint,
    depositValue: uint,
    retryTo: address,
    retryValue: uint,
    retryData: bytes,
    beneficiary: address,
    refundTo: address,
    maxSubmissionFee: uint,
    maxFeePerGas: uint,
    chainId: uint,
  },
};
const nitroTransaction = (kind: string) => {
  const properties = { ...RPC_ALWAYS, ...RPC_ARBITRUM[kind] };
  return closedObject(properties, Object.keys(properties));
};
/** ArbosActs (nitro `precompiles/ArbosActs.go`: huge = uint256, addr = address) and ArbRetryableTx's submission. */
const START_BLOCK = 'startBlock(uint256,uint64,uint64,uint64)';
const BATCH_POSTING_REPORT = 'batchPostingReport(uint256,address,uint64,uint64,uint256)';
const BATCH_POSTING_REPORT_V2 = 'batchPostingReportV2(uint256,address,uint64,uint64,uint64,uint64,uint256)';
const submitRetryableAbi = parseAbi([
  'function submitRetryable(bytes32 requestId, uint256 l1BaseFee, uint256 deposit, uint256 callvalue, uint256 gasFeeCap, uint64 gasLimit, uint256 maxSubmissionFee, address feeRefundAddress, address beneficiary, address retryTo, bytes retryData)',
]);
const selectorOf = (signature: string) => keccak256(toHex(signature)).slice(0, 10);
/** keccak256(type ‖ rlp(fields)) from the JSON object's fields, in the struct's order. */
function nitroHash(tx: Json): string {
  const type = Number(tx.type);
  const fields = NITRO_RLP[type]!.map(([name, kind]) => {
    const v = String(tx[name]);
    if (kind === 'bytes') return v as Hex;
    const n = BigInt(v);
    return (
      n === 0n ? '0x' : `0x${n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), '0')}`
    ) as Hex;
  });
  return keccak256(`0x${type.toString(16)}${toRlp(fields).slice(2)}`);
}

// src/schemas/block.yaml#/Block (open: no additionalProperties), its transactions hashes or objects.
const block = {
  type: 'object',
  required: [
    'hash',
    'parentHash',
    'sha3Uncles',
    'miner',
    'stateRoot',
    'transactionsRoot',
    'receiptsRoot',
    'logsBloom',
    'number',
    'gasLimit',
    'gasUsed',
    'timestamp',
    'extraData',
    'mixHash',
    'nonce',
    'size',
    'transactions',
    'uncles',
  ],
  properties: {
    hash: hash32,
    parentHash: hash32,
    sha3Uncles: hash32,
    miner: address,
    stateRoot: hash32,
    transactionsRoot: hash32,
    receiptsRoot: hash32,
    logsBloom: bytes256,
    difficulty: uint,
    number: uint,
    gasLimit: uint,
    gasUsed: uint,
    timestamp: uint,
    extraData: bytes,
    mixHash: hash32,
    nonce: bytes8,
    baseFeePerGas: uint,
    withdrawalsRoot: hash32,
    blobGasUsed: uint,
    excessBlobGas: uint,
    parentBeaconBlockRoot: hash32,
    size: uint,
    transactions: {
      anyOf: [
        { type: 'array', items: hash32 },
        { type: 'array', items: { type: 'object' } },
      ],
    },
    uncles: { type: 'array', items: hash32 },
    requestsHash: hash32,
    l1BlockNumber: uint,
  },
};

const validator = conformance({
  [SPEC]: {
    $defs: {
      nitroReceipt: receiptInfo(NITRO_RECEIPT),
      // The internal transaction's receipt is the proxy's own: nothing passed through.
      nitroInternalReceipt: receiptInfo(NITRO_RECEIPT, {}),
      opReceipt: receiptInfo(OP_RECEIPT),
      synthesisedTransaction,
      ...Object.fromEntries(Object.keys(RPC_ARBITRUM).map((k) => [`nitro_${k}`, nitroTransaction(k)])),
      block,
      Log,
    },
  } as never,
});
const ref = (name: string) => `${SPEC}#/$defs/${name}`;

type Json = Record<string, unknown>;

describe('L2 proxies against the Ethereum JSON-RPC specification (execution-apis v1.0.0-beta.7)', () => {
  let anvil: AnvilLite;
  let nitro: RpcProxy;
  let op: RpcProxy;
  const internal = new Map<string, number>();
  const call = async (url: string, method: string, params: unknown[]) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: unknown };
    expect(body.error, method).toBeUndefined();
    return body.result;
  };
  let blocks: string[] = [];
  /** The driver's record of the L1 messages of block 2 (the proxy's look-ups), as chain.ts keeps it. */
  const saved: { internal: Record<string, number>; nitro?: NitroSaved } = { internal: {} };
  let messages: NitroMessage[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    const [from] = await anvil.rpc<`0x${string}`[]>('eth_accounts');
    // A contract creation, a call that emits logs, and a plain transfer: receipts with and without logs and targets.
    const created = await receiptOf(anvil, await sendTx(anvil, { from: from!, data: EMITTER_INIT }));
    const topic = `0x${'ab'.repeat(32)}` as const;
    await receiptOf(
      anvil,
      await sendTx(anvil, {
        from: from!,
        to: created.contractAddress!,
        data: emitterCalldata([
          { topic, word: 7n },
          { topic, word: 9n },
        ]),
      }),
    );
    await receiptOf(anvil, await sendTx(anvil, { from: from!, to: `0x${'22'.repeat(20)}`, data: '0x' }));
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    blocks = Array.from({ length: head }, (_, i) => `0x${(i + 1).toString(16)}`);
    // Block 2 carries ten hours' worth of L1 messages: reports, deposits and retryables.
    const b2 = await anvil.rpc<Json>('eth_getBlockByNumber', ['0x2', false]);
    const t2 = Number(b2.timestamp);
    const planned = planNitroMessages(5, t2, 36_000, l1OriginAt(5, t2), { delayed: 7, batches: 900 });
    messages = planned.messages;
    recordNitroMessages(saved, 2, planned, BigInt(b2.baseFeePerGas as string), ARBOS_ADDRESS, 42161);
    nitro = await startRpcProxy(
      anvil.url,
      nitroShaper(
        5,
        () => 1234n,
        (hash) => internal.get(hash) ?? saved.internal[hash],
        (n) => saved.nitro?.messages[n] ?? [],
      ),
    );
    op = await startRpcProxy(
      anvil.url,
      opShaper(() => ({
        l1Fee: '0x1d2a5c3b8',
        l1GasPrice: '0x2a6c0e3f2',
        l1GasUsed: '0x640',
        l1BaseFeeScalar: '0x558',
        l1BlobBaseFee: '0x1',
        l1BlobBaseFeeScalar: '0xc5fc5',
      })),
    );
    for (const n of blocks) {
      const b = (await call(nitro.url, 'eth_getBlockByNumber', [n, false])) as { transactions: string[] };
      internal.set(b.transactions[0]!, Number(n));
    }
  });
  afterAll(async () => {
    await nitro?.close();
    await op?.close();
    await anvil?.stop();
  });

  it('Nitro: blocks, the internal transaction, its receipt and every receipt', async () => {
    const problems: string[] = [];
    const check = (what: string, name: string, value: unknown) =>
      problems.push(...validator.errors(ref(name), value).map((e) => `${what} ${e}`));
    for (const n of blocks) {
      check(`block ${n}`, 'block', await call(nitro.url, 'eth_getBlockByNumber', [n, false]));
      const full = (await call(nitro.url, 'eth_getBlockByNumber', [n, true])) as Json & { transactions: Json[] };
      check(`full block ${n}`, 'block', full);
      check(`block ${n} internal transaction`, 'synthesisedTransaction', full.transactions[0]);
      check(`block ${n} internal transaction (Nitro's RPCTransaction)`, 'nitro_internal', full.transactions[0]);
      const hash = String(full.transactions[0]!.hash);
      check(`internal ${hash}`, 'synthesisedTransaction', await call(nitro.url, 'eth_getTransactionByHash', [hash]));
      check(
        `index 0 of ${n}`,
        'synthesisedTransaction',
        await call(nitro.url, 'eth_getTransactionByBlockNumberAndIndex', [n, '0x0']),
      );
      check(`receipt ${hash}`, 'nitroInternalReceipt', await call(nitro.url, 'eth_getTransactionReceipt', [hash]));
      const receipts = (await call(nitro.url, 'eth_getBlockReceipts', [n])) as Json[];
      expect(receipts.length).toBe(full.transactions.length);
      check(`block ${n} receipt 0x0`, 'nitroInternalReceipt', receipts[0]);
      for (const r of receipts.slice(1)) check(`block ${n} receipt ${r.transactionIndex}`, 'nitroReceipt', r);
      for (const r of receipts.slice(1)) {
        check(
          `receipt ${r.transactionHash}`,
          'nitroReceipt',
          await call(nitro.url, 'eth_getTransactionReceipt', [r.transactionHash]),
        );
      }
    }
    const logs = (await call(nitro.url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }])) as Json[];
    expect(logs.length).toBe(2);
    for (const l of logs) check('log', 'Log', l);
    expect(problems).toEqual([]);
  });

  it("Nitro: the L1 messages' transactions as Nitro's own types define them (types, fields, hashes, calldata)", async () => {
    expect(NITRO_TX_TYPES).toEqual({
      deposit: NITRO_TYPES.ArbitrumDepositTxType,
      unsigned: NITRO_TYPES.ArbitrumUnsignedTxType,
      contract: NITRO_TYPES.ArbitrumContractTxType,
      retry: NITRO_TYPES.ArbitrumRetryTxType,
      submitRetryable: NITRO_TYPES.ArbitrumSubmitRetryableTxType,
      internal: NITRO_TYPES.ArbitrumInternalTxType,
      legacy: NITRO_TYPES.ArbitrumLegacyTxType,
    });
    const kinds = new Set(messages.map((m) => m.kind));
    expect([...kinds].sort()).toEqual(['deposit', 'report', 'retryable']);
    const problems: string[] = [];
    const full = (await call(nitro.url, 'eth_getBlockByNumber', ['0x2', true])) as Json & { transactions: Json[] };
    const receipts = (await call(nitro.url, 'eth_getBlockReceipts', ['0x2'])) as Json[];
    const txs = full.transactions;
    expect(receipts.length).toBe(txs.length);
    const kindOf: Record<number, string> = { 106: 'internal', 100: 'deposit', 105: 'submitRetryable', 104: 'retry' };
    const made = txs.filter((t) => Number(t.type) in kindOf);
    // startBlock, then one transaction per report and deposit, two per retryable (its submission and auto-redeem).
    const count = (k: string) => messages.filter((m) => m.kind === k).length;
    expect(made.length).toBe(1 + count('report') + count('deposit') + 2 * count('retryable'));
    expect(txs.slice(0, made.length)).toEqual(made);
    for (const [i, tx] of made.entries()) {
      const what = `block 2 index ${i} (type ${tx.type})`;
      problems.push(...validator.errors(ref(`nitro_${kindOf[Number(tx.type)]}`), tx).map((e) => `${what} ${e}`));
      expect(tx.hash, `${what}: keccak256(type ‖ rlp(fields))`).toBe(nitroHash(tx));
      expect(tx.transactionIndex).toBe(`0x${i.toString(16)}`);
      expect(await call(nitro.url, 'eth_getTransactionByHash', [tx.hash])).toEqual(tx);
      expect(await call(nitro.url, 'eth_getTransactionByBlockNumberAndIndex', ['0x2', tx.transactionIndex])).toEqual(
        tx,
      );
      const r = receipts[i]!;
      problems.push(...validator.errors(ref('nitroInternalReceipt'), r).map((e) => `${what} receipt ${e}`));
      expect(await call(nitro.url, 'eth_getTransactionReceipt', [tx.hash])).toEqual(r);
      expect([r.transactionHash, r.type, r.from, r.to]).toEqual([tx.hash, tx.type, tx.from, tx.to]);
      expect(r.effectiveGasPrice).toBe(full.baseFeePerGas);
      const input = String(tx.input);
      if (Number(tx.type) === 0x6a) {
        expect([tx.from, tx.to]).toEqual([ARBOS_ADDRESS, ARBOS_ADDRESS]);
        expect(input.slice(0, 10)).toBe(selectorOf(i === 0 ? START_BLOCK : BATCH_POSTING_REPORT_V2));
        expect(input.slice(0, 10)).not.toBe(selectorOf(BATCH_POSTING_REPORT));
      }
      if (Number(tx.type) === 0x69) {
        expect(tx.to).toBe('0x000000000000000000000000000000000000006e');
        const { args } = decodeFunctionData({ abi: submitRetryableAbi, data: input as Hex });
        expect(args).toEqual([
          tx.requestId,
          BigInt(String(tx.l1BaseFee)),
          BigInt(String(tx.depositValue)),
          BigInt(String(tx.retryValue)),
          BigInt(String(tx.maxFeePerGas)),
          BigInt(String(tx.gas)),
          BigInt(String(tx.maxSubmissionFee)),
          getAddress(String(tx.refundTo)),
          getAddress(String(tx.beneficiary)),
          getAddress(String(tx.retryTo)),
          tx.retryData,
        ]);
        // Its auto-redeem follows it: the ticket is the submission's hash, the first try at the block's base fee.
        const retry = made[i + 1]!;
        expect(Number(retry.type)).toBe(0x68);
        expect([retry.ticketId, retry.nonce, retry.maxFeePerGas]).toEqual([tx.hash, '0x0', full.baseFeePerGas]);
        expect([retry.from, retry.to, retry.value, retry.input]).toEqual([
          tx.from,
          tx.retryTo,
          tx.retryValue,
          tx.retryData,
        ]);
        expect(r.gasUsed).toBe(tx.gas);
      }
    }
    // The user transactions follow, their receipts' cumulative gas continuing from the messages'.
    const cumulative = receipts.map((r) => BigInt(String(r.cumulativeGasUsed)));
    expect(cumulative).toEqual([...cumulative].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(cumulative.at(-1)).toBe(BigInt(String(full.gasUsed)));
    expect(await call(nitro.url, 'eth_getBlockTransactionCountByNumber', ['0x2'])).toBe(`0x${txs.length.toString(16)}`);
    expect(problems).toEqual([]);
  });

  it("OP: receipts with op-geth's l1 fields", async () => {
    const problems: string[] = [];
    for (const n of blocks) {
      for (const r of (await call(op.url, 'eth_getBlockReceipts', [n])) as Json[]) {
        expect(r.l1Fee).toBeDefined();
        problems.push(...validator.errors(ref('opReceipt'), r).map((e) => `${n} ${e}`));
      }
    }
    expect(problems).toEqual([]);
  });
});
