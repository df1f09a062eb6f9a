/**
 * The two proxies' shapers (proxy.ts): OP receipts with op-geth's `l1*` fields, Nitro blocks and receipts with the
 * ArbOS internal transaction. What they add comes from the chain's driver (chain.ts), which records it when it mines
 * a block: the OP fields from the predeploys at that block, the Nitro L1 gas from the signed transaction's bytes.
 */

import { blockInfo, nitroBlock, nitroReceipts, shiftIndex, systemTxs } from './nitro.js';
import { messageTxCount, type NitroMessage } from './nitro-messages.js';
import { type Forward, RpcFailure, type Shaper } from './proxy.js';

type Json = Record<string, unknown>;

/** op-geth's receipt fields of one non-deposit transaction (hex quantities). */
export interface OpReceiptFields {
  readonly l1Fee: string;
  readonly l1GasPrice: string;
  readonly l1GasUsed: string;
  readonly l1BaseFeeScalar: string;
  readonly l1BlobBaseFee: string;
  readonly l1BlobBaseFeeScalar: string;
}

const DEPOSIT_TYPE = '0x7e';

export function opShaper(fieldsOf: (txHash: string) => OpReceiptFields | undefined): Shaper {
  const add = (r: Json | null): Json | null => {
    if (!r || String(r.type).toLowerCase() === DEPOSIT_TYPE) return r;
    const fields = fieldsOf(String(r.transactionHash).toLowerCase());
    return fields ? { ...r, ...fields } : r;
  };
  return {
    async shape(method, params, forward) {
      if (method === 'eth_getTransactionReceipt') {
        return { result: add((await forward(method, params)) as Json | null) };
      }
      if (method === 'eth_getBlockReceipts') {
        const rs = (await forward(method, params)) as Json[] | null;
        return { result: rs ? rs.map(add) : rs };
      }
      return undefined;
    },
  };
}

const isHash = (v: unknown): v is string => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v);

/**
 * Nitro's shapes. `l1Gas` gives a transaction's `gasUsedForL1`, `internalBlock` the block number of a transaction
 * the proxy makes up (internal transactions, the L1 messages' transactions), `messagesOf` a block's L1 messages (all
 * recorded by the driver).
 */
export function nitroShaper(
  seed: number,
  l1Gas: (txHash: string) => bigint,
  internalBlock: (txHash: string) => number | undefined,
  messagesOf: (blockNumber: number) => readonly NitroMessage[] = () => [],
): Shaper {
  const timestamps = new Map<number, number>();
  const gas = (h: string) => l1Gas(h.toLowerCase());
  const previousTimestamp = async (number: bigint, forward: Forward): Promise<number> => {
    const n = Number(number) - 1;
    const known = timestamps.get(n);
    if (known !== undefined) return known;
    const parent = (await forward('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as Json | null;
    const t = Number(parent?.timestamp ?? 0);
    timestamps.set(n, t);
    return t;
  };
  const blockBy = async (id: unknown, forward: Forward, full = false) =>
    (await forward(isHash(id) ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [id, full])) as Json | null;
  const info = async (block: Json, forward: Forward) =>
    blockInfo(
      block,
      await previousTimestamp(BigInt(block.number as string), forward),
      messagesOf(Number(block.number)),
    );
  /** How many transactions Nitro puts in front of a block's user transactions (the internal one, the messages'). */
  const inFront = (blockNumber: unknown) => 1 + messageTxCount(messagesOf(Number(blockNumber)));
  const receiptsOf = async (block: Json, forward: Forward) => {
    const receipts = ((await forward('eth_getBlockReceipts', [block.number])) as Json[] | null) ?? [];
    return nitroReceipts(seed, await info(block, forward), receipts, gas);
  };
  const isGenesis = (block: Json) => BigInt(block.number as string) === 0n;

  return {
    async shape(method, params, forward) {
      switch (method) {
        case 'eth_getBlockByNumber':
        case 'eth_getBlockByHash': {
          const block = (await forward(method, params)) as Json | null;
          if (!block || isGenesis(block)) return { result: block };
          const prev = await previousTimestamp(BigInt(block.number as string), forward);
          const messages = messagesOf(Number(block.number));
          return { result: nitroBlock(seed, block, prev, params[1] === true, gas, messages) };
        }
        case 'eth_getBlockReceipts': {
          const block = await blockBy(params[0], forward);
          if (!block) return { result: null };
          if (isGenesis(block)) return { result: [] };
          return { result: await receiptsOf(block, forward) };
        }
        case 'eth_getTransactionByHash': {
          const tx = (await forward(method, params)) as Json | null;
          if (tx) return { result: shiftIndex(tx, inFront(tx.blockNumber)) };
          const n = isHash(params[0]) ? internalBlock(params[0].toLowerCase()) : undefined;
          if (n === undefined) return { result: null };
          const block = await blockBy(`0x${n.toString(16)}`, forward);
          if (!block) return { result: null };
          return {
            result:
              systemTxs(seed, await info(block, forward)).txs.find(
                (t) => String(t.hash) === String(params[0]).toLowerCase(),
              ) ?? null,
          };
        }
        case 'eth_getTransactionReceipt': {
          const r = (await forward(method, params)) as Json | null;
          const n = r ? Number(r.blockNumber) : isHash(params[0]) ? internalBlock(params[0].toLowerCase()) : undefined;
          if (n === undefined) return { result: null };
          const block = await blockBy(`0x${n.toString(16)}`, forward);
          if (!block) return { result: null };
          const hash = r ? r.transactionHash : params[0];
          const all = await receiptsOf(block, forward);
          return {
            result: all.find((x) => String(x.transactionHash).toLowerCase() === String(hash).toLowerCase()) ?? null,
          };
        }
        case 'eth_getTransactionByBlockNumberAndIndex':
        case 'eth_getTransactionByBlockHashAndIndex': {
          const block = await blockBy(params[0], forward);
          if (!block || isGenesis(block)) return { result: null };
          const index = Number(params[1]);
          const front = inFront(block.number);
          if (index < front) return { result: systemTxs(seed, await info(block, forward)).txs[index] ?? null };
          const tx = (await forward(method, [params[0], `0x${(index - front).toString(16)}`])) as Json | null;
          return { result: tx ? shiftIndex(tx, front) : null };
        }
        case 'eth_getBlockTransactionCountByNumber':
        case 'eth_getBlockTransactionCountByHash': {
          const count = (await forward(method, params)) as string | null;
          if (count === null) return { result: null };
          const block = await blockBy(params[0], forward);
          if (!block || isGenesis(block)) return { result: count };
          return { result: `0x${(Number(count) + inFront(block.number)).toString(16)}` };
        }
        case 'eth_getLogs': {
          const logs = (await forward(method, params)) as Json[] | null;
          return { result: logs ? logs.map((l) => shiftIndex(l, inFront(l.blockNumber))) : logs };
        }
        default:
          return undefined;
      }
    },
  };
}

export { RpcFailure };
