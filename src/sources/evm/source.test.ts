import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Abi, decodeEventLog, parseAbi, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnvilLite,
  deployEmitter,
  emitterCalldata,
  receiptOf,
  sendTx,
  startAnvil,
} from '../../../test/support/anvil-lite.js';
import { startFaultyProxy } from '../../../test/support/faulty-proxy.js';
import { RpcUnavailableError } from './rpc.js';
import { createEvmSource, type EvmSourceOptions } from './source.js';
import type { EvmChainConfig, Hex } from './types.js';

/** The source's pieces against a real anvil: logs, blocks, senders, multicall, and retries through the proxy. */

const VALUE = toEventSelector('Value(uint256)');
const OTHER = toEventSelector('Other(uint256)');
const valueAbi = parseAbi(['event Value(uint256 value)']);
const erc20Abi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function symbol() view returns (string)',
]);

const require = createRequire(import.meta.url);
const weth9 = JSON.parse(readFileSync(require.resolve('@uniswap/v2-periphery/build/WETH9.json'), 'utf8')) as {
  abi: Abi;
  bytecode: string;
};

let anvil: AnvilLite;
let accounts: Hex[];
let emitters: Hex[];
let weth: Hex;
/** Blocks of the WETH deposits: balances differ before and after. */
let depositBlock: number;
let txs: { hash: Hex; from: Hex }[];

function source(overrides: Partial<EvmChainConfig> = {}, options: EvmSourceOptions = {}) {
  return createEvmSource(
    { id: 'anvil', rpcUrl: anvil.url, finalityDepth: 4, maxBlockRange: 50, timeoutMs: 2000, ...overrides },
    { sleep: async () => {}, ...options },
  );
}

beforeAll(async () => {
  anvil = await startAnvil();
  accounts = (await anvil.rpc<Hex[]>('eth_accounts')).map((a) => a.toLowerCase() as Hex);
  emitters = [];
  for (let i = 0; i < 5; i++) emitters.push(await deployEmitter(anvil, accounts[0]!));
  txs = [];
  for (let i = 0; i < 40; i++) {
    const from = accounts[1 + (i % 4)]!;
    const data = emitterCalldata([
      { topic: VALUE, word: BigInt(i) },
      { topic: i % 3 === 0 ? OTHER : VALUE, word: 10n ** 30n + BigInt(i) },
    ]);
    const hash = await sendTx(anvil, { from, to: emitters[i % emitters.length]!, data });
    txs.push({ hash, from });
  }
  await receiptOf(anvil, txs[txs.length - 1]!.hash);
  const deploy = await sendTx(anvil, { from: accounts[0]!, data: `0x${weth9.bytecode}` as Hex, gas: 2_000_000 });
  weth = (await receiptOf(anvil, deploy)).contractAddress!.toLowerCase() as Hex;
  const deposit = await anvil.rpc<Hex>('eth_sendTransaction', [
    { from: accounts[1], to: weth, data: '0xd0e30db0', value: '0x3e8', gas: '0x30000' },
  ]);
  depositBlock = Number((await receiptOf(anvil, deposit)).blockNumber);
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('EvmSource on anvil', () => {
  it('fetches logs across address chunks and topic alternatives, sorted and without duplicates', async () => {
    const head = await source().blockNumber();
    const filter = { topics: [[VALUE, OTHER]], fromBlock: 0, toBlock: head };
    const whole = await source().getLogs({ ...filter, addresses: emitters });
    expect(whole).toHaveLength(80);
    // Two addresses per call, duplicates in the list, mixed case: the same logs.
    const chunked = source({ maxBlockRange: 7 }, { maxAddressesPerCall: 2 });
    const mixed = [...emitters, emitters[0]!.toUpperCase().replace('0X', '0x') as Hex];
    expect(await chunked.getLogs({ ...filter, addresses: mixed })).toEqual(whole);
    const sorted = [...whole].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    expect(whole).toEqual(sorted);
    const values = whole.filter((l) => l.topics[0] === VALUE);
    expect(values).toHaveLength(80 - 14);
    // Transaction 1 emitted Value(1) then Value(10^30 + 1).
    expect(decodeEventLog({ abi: valueAbi, data: values[2]!.data, topics: values[2]!.topics as [Hex] }).args).toEqual({
      value: 10n ** 30n + 1n,
    });
    expect(await source().getLogs({ ...filter, addresses: [] })).toEqual([]);
  });

  it('reads block headers and transaction senders in batches, from cache the second time', async () => {
    const s = source();
    const head = await s.blockNumber();
    const numbers = [1, 2, 3, head, head + 5];
    const blocks = await s.getBlocks(numbers);
    expect([...blocks.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, head]);
    const raw = await anvil.rpc<{ hash: string; parentHash: string; timestamp: string }>('eth_getBlockByNumber', [
      '0x2',
      false,
    ]);
    expect(blocks.get(2)).toEqual({
      number: 2,
      hash: raw.hash,
      parentHash: raw.parentHash,
      timestamp: Number(raw.timestamp),
    });
    expect(blocks.get(3)!.parentHash).toBe(blocks.get(2)!.hash);
    const requests = s.stats.rpc.requests;
    await s.getBlocks([1, 2, 3]);
    expect(s.stats.rpc.requests).toBe(requests);
    await s.getBlocks([1, 2, 3], { fresh: true });
    expect(s.stats.rpc.requests).toBe(requests + 1);

    const senders = await s.txSenders(txs.map((t) => t.hash.toUpperCase().replace('0X', '0x')));
    for (const t of txs) expect(senders.get(t.hash.toLowerCase())).toBe(t.from);
    const again = s.stats.rpc.requests;
    await s.txSenders(txs.map((t) => t.hash));
    expect(s.stats.rpc.requests).toBe(again);
  });

  it('reads state at a block through deployless multicall, failures per call', async () => {
    const s = source();
    const contracts = [
      { address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [accounts[1]!] },
      { address: weth, abi: erc20Abi, functionName: 'totalSupply' },
      { address: weth, abi: weth9.abi, functionName: 'symbol' },
      // An account without code, and a contract that does not implement the function.
      { address: accounts[2]!, abi: erc20Abi, functionName: 'totalSupply' },
      { address: emitters[0]!, abi: erc20Abi, functionName: 'totalSupply' },
    ] as const;
    const before = await s.multicall({ contracts, blockNumber: BigInt(depositBlock - 1) });
    const after = await s.multicall({ contracts, blockNumber: BigInt(depositBlock) });
    expect(s.multicallMode).toBe('deployless');
    expect(before.slice(0, 3).map((r) => r.result)).toEqual([0n, 0n, 'WETH']);
    expect(after.slice(0, 3).map((r) => r.result)).toEqual([1000n, 1000n, 'WETH']);
    expect(after.slice(3).map((r) => r.status)).toEqual(['failure', 'failure']);
    // The typed result: `balance` is a bigint without casts.
    const balance: bigint | undefined = after[0].result;
    expect(balance).toBe(1000n);

    const plain = source({}, { multicall: 'eth_call' });
    const viaCalls = await plain.multicall({ contracts, blockNumber: BigInt(depositBlock) });
    expect(viaCalls.map((r) => r.status)).toEqual(after.map((r) => r.status));
    expect(viaCalls.slice(0, 3).map((r) => r.result)).toEqual([1000n, 1000n, 'WETH']);

    const strict = await s.multicall({ contracts: contracts.slice(0, 2), allowFailure: false });
    expect(strict).toEqual([1000n, 1000n]);
    await expect(s.multicall({ contracts, allowFailure: false })).rejects.toThrow();
  });

  it('falls back to batched eth_call when the endpoint refuses deployless calls', async () => {
    const refusing: typeof fetch = async (url, init) => {
      const body = JSON.parse(String(init?.body)) as { id: number; method: string; params: [{ to?: string }] };
      if (!Array.isArray(body) && body.method === 'eth_call' && !body.params[0].to) {
        return new Response(
          JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'missing "to"' } }),
        );
      }
      return fetch(url, init);
    };
    const warnings: string[] = [];
    const noop = () => {};
    const s = source(
      {},
      { fetch: refusing, log: { debug: noop, info: noop, error: noop, warn: (_o, msg) => warnings.push(msg) } },
    );
    const contracts = [
      { address: weth, abi: erc20Abi, functionName: 'totalSupply' },
      { address: accounts[2]!, abi: erc20Abi, functionName: 'totalSupply' },
    ] as const;
    const results = await s.multicall({ contracts });
    expect(results.map((r) => r.status)).toEqual(['success', 'failure']);
    expect(results[0].result).toBe(1000n);
    expect(s.multicallMode).toBe('eth_call');
    expect(warnings).toEqual(['deployless multicall refused: using batched eth_call']);
  });

  it('never reports an unreachable RPC as failed calls', async () => {
    const proxy = await startFaultyProxy(anvil.url, { seed: 3, rates: { error500: 1 } });
    try {
      const s = createEvmSource(
        { id: 'anvil', rpcUrl: proxy.url, finalityDepth: 4, maxRetries: 1 },
        { sleep: async () => {} },
      );
      const contracts = [{ address: weth, abi: erc20Abi, functionName: 'totalSupply' }] as const;
      await expect(s.multicall({ contracts })).rejects.toBeInstanceOf(RpcUnavailableError);
      await expect(s.client.getChainId()).rejects.toThrow(/RPC unavailable/);
    } finally {
      await proxy.close();
    }
  });

  it('waits what Retry-After says on 429s (through the faulty proxy)', async () => {
    const proxy = await startFaultyProxy(anvil.url, { seed: 5, rates: { rateLimit: 0.4 }, retryAfterSeconds: 3 });
    try {
      const waits: number[] = [];
      const s = createEvmSource(
        { id: 'anvil', rpcUrl: proxy.url, finalityDepth: 4, maxRetries: 20, maxBlockRange: 10 },
        {
          maxBatchSize: 4,
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      );
      const head = await s.blockNumber();
      const logs = await s.getLogs({ addresses: emitters, topics: [VALUE], fromBlock: 0, toBlock: head });
      expect(logs).toHaveLength(66);
      await s.getBlocks(Array.from({ length: head }, (_, i) => i + 1));
      expect(proxy.stats.rateLimited).toBeGreaterThan(3);
      expect(waits).toEqual(Array.from({ length: proxy.stats.rateLimited }, () => 3000));
      expect(s.stats.rpc.rateLimited).toBe(proxy.stats.rateLimited);
      // viem's client goes through the same transport.
      expect(await s.client.getChainId()).toBe(31337);
    } finally {
      await proxy.close();
    }
  });
});
