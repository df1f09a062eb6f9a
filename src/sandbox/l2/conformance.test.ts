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
 * information every `TransactionInfo` carries and to the generic transaction's field types.
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
    nitro = await startRpcProxy(
      anvil.url,
      nitroShaper(
        5,
        () => 1234n,
        (hash) => internal.get(hash),
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
