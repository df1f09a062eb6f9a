import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcMarketChain, V2_SWAP, V3_SWAP } from './chain.js';

/**
 * The stand-in's chain reader against a JSON-RPC node answering as Ethereum nodes do (hex quantities, `null` for a
 * block it does not have, an error for state it does not keep): blocks every 12 s from t = 1000, a token whose
 * `totalSupply()` is 5·10^18 + the block number, state kept from block 50 on, and two swaps.
 */

const word = (v: bigint) => (v < 0n ? (1n << 256n) + v : v).toString(16).padStart(64, '0');
const HEAD = 200;
const timeOf = (n: number) => 1000 + 12 * n;

describe('rpcMarketChain', () => {
  let server: Server;
  let url = '';
  const calls: { method: string; params: unknown[] }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        calls.push({ method, params });
        const reply = (result: unknown) => res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
        if (method === 'eth_blockNumber') return reply(`0x${HEAD.toString(16)}`);
        if (method === 'eth_getBlockByNumber') {
          const n = Number.parseInt(params[0] as string, 16);
          return reply(n > HEAD ? null : { number: params[0], timestamp: `0x${timeOf(n).toString(16)}` });
        }
        if (method === 'eth_call') {
          const block = Number.parseInt(params[1] as string, 16);
          if (block < 50) {
            return res.end(
              JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'missing trie node' } }),
            );
          }
          return reply(`0x${word(5n * 10n ** 18n + BigInt(block))}`);
        }
        if (method === 'eth_getLogs') {
          return reply([
            {
              address: '0xAAAA000000000000000000000000000000000001',
              topics: [V2_SWAP],
              data: `0x${word(3n)}${word(0n)}${word(0n)}${word(4n)}`,
            },
            {
              address: '0xBBBB000000000000000000000000000000000002',
              topics: [V3_SWAP],
              data: `0x${word(6n)}${word(-2n)}${word(1n)}${word(1n)}${word(0n)}`,
            },
          ]);
        }
        reply(null);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('finds the last block at or before an instant', async () => {
    const chain = rpcMarketChain(url);
    expect(await chain.blockAt(999)).toBeUndefined();
    expect(await chain.blockAt(1000)).toBe(0);
    expect(await chain.blockAt(timeOf(77))).toBe(77);
    expect(await chain.blockAt(timeOf(77) + 11)).toBe(77);
    expect(await chain.blockAt(timeOf(HEAD) + 3600)).toBe(HEAD);
  });

  it('reads totalSupply() at a block, and nothing where the node keeps no state', async () => {
    const chain = rpcMarketChain(url);
    expect(await chain.totalSupply('0x1000000000000000000000000000000000000001', 60)).toBe(5n * 10n ** 18n + 60n);
    expect(await chain.totalSupply('0x1000000000000000000000000000000000000001', 10)).toBeUndefined();
    const call = calls.filter((c) => c.method === 'eth_call').at(-1)!;
    expect(call.params).toEqual([{ to: '0x1000000000000000000000000000000000000001', data: '0x18160ddd' }, '0xa']);
  });

  it('asks for both Swap events of the pools in the range, and decodes them', async () => {
    const chain = rpcMarketChain(url);
    const pools = [
      { address: '0xAAAA000000000000000000000000000000000001', version: 'V2' as const },
      { address: '0xBBBB000000000000000000000000000000000002', version: 'V3' as const },
    ];
    expect(await chain.swaps(pools, 10, 5)).toEqual([]);
    expect(await chain.swaps(pools, 10, 20)).toEqual([
      { pool: '0xaaaa000000000000000000000000000000000001', amount0: 3n, amount1: 4n },
      { pool: '0xbbbb000000000000000000000000000000000002', amount0: 6n, amount1: 2n },
    ]);
    expect(calls.filter((c) => c.method === 'eth_getLogs').at(-1)!.params).toEqual([
      { address: pools.map((p) => p.address), topics: [[V2_SWAP, V3_SWAP]], fromBlock: '0xa', toBlock: '0x14' },
    ]);
  });
});
