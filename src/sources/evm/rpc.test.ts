import { describe, expect, it } from 'vitest';
import { isRetryable } from '../../core/errors.js';
import { AdaptiveWindow, mergeLogs, normaliseLog } from './logs.js';
import {
  isLogRangeMessage,
  isTransientRpcError,
  RpcClient,
  type RpcClientOptions,
  RpcError,
  RpcUnavailableError,
} from './rpc.js';
import type { EvmLog, Hex } from './types.js';

/** What the scripted endpoint answers to one HTTP request. */
type Reply = { status?: number; headers?: Record<string, string>; body: string | unknown } | 'hang' | 'network-error';
type Handler = (body: unknown) => Reply;

interface JsonRpcRequest {
  id: number;
  method: string;
  params: unknown[];
}

/** A fetch that answers from a script, one handler per HTTP request (the last one repeats). */
function scriptedFetch(handlers: Handler[]) {
  const requests: unknown[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fetchFn = (async (_url: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body));
    const handler = handlers[Math.min(requests.length, handlers.length - 1)]!;
    requests.push(body);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await new Promise((r) => setTimeout(r, 1));
      const reply = handler(body);
      if (reply === 'network-error') throw new TypeError('fetch failed');
      if (reply === 'hang') {
        return await new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        });
      }
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      return new Response(text, { status: reply.status ?? 200, headers: reply.headers ?? {} });
    } finally {
      inFlight--;
    }
  }) as typeof fetch;
  return {
    fetchFn,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
  };
}

/** Answers every call of the request with `result(method)`. */
function ok(result: (call: JsonRpcRequest) => unknown = () => '0x1'): Handler {
  return (body) =>
    Array.isArray(body)
      ? { body: (body as JsonRpcRequest[]).map((c) => ({ jsonrpc: '2.0', id: c.id, result: result(c) })) }
      : { body: { jsonrpc: '2.0', id: (body as JsonRpcRequest).id, result: result(body as JsonRpcRequest) } };
}

function rpcError(code: number, message: string): Handler {
  return (body) => ({ body: { jsonrpc: '2.0', id: (body as JsonRpcRequest).id, error: { code, message } } });
}

function client(handlers: Handler[], options: Partial<RpcClientOptions> = {}) {
  const script = scriptedFetch(handlers);
  const waits: number[] = [];
  const logs: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: Record<string, unknown>, msg: string) => logs.push({ level, msg });
  const rpc = new RpcClient({
    url: 'http://rpc.test',
    chain: 'test',
    timeoutMs: 50,
    maxRetries: 4,
    maxConcurrency: 4,
    fetch: script.fetchFn,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0,
    log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    ...options,
  });
  return { rpc, script, waits, logs };
}

describe('RpcClient', () => {
  it('honours Retry-After of a 429 exactly (seconds and HTTP dates)', async () => {
    const date = new Date(Date.now() + 3000).toUTCString();
    const { rpc, waits } = client([
      () => ({ status: 429, headers: { 'retry-after': '2' }, body: 'slow down' }),
      () => ({ status: 503, headers: { 'retry-after': date }, body: 'maintenance' }),
      ok(),
    ]);
    expect(await rpc.call('eth_blockNumber')).toBe('0x1');
    expect(waits[0]).toBe(2000);
    // An HTTP date is relative to now: within the second the date format can express.
    expect(waits[1]).toBeGreaterThan(1000);
    expect(waits[1]).toBeLessThanOrEqual(3000);
    expect(rpc.stats).toMatchObject({ requests: 3, retries: 2, rateLimited: 2 });
  });

  it('backs off exponentially with jitter on 5xx, network errors and timeouts', async () => {
    const { rpc, waits } = client(
      [
        () => ({ status: 500, body: 'oops' }),
        () => 'network-error',
        () => 'hang',
        () => ({ status: 502, body: '' }),
        ok(),
      ],
      { baseDelayMs: 100, random: () => 0.5 },
    );
    expect(await rpc.call('eth_chainId')).toBe('0x1');
    // Equal jitter with random 0.5: three quarters of 100·2^attempt.
    expect(waits).toEqual([75, 150, 300, 600]);
  });

  it('retries malformed bodies: invalid JSON, a missing result, a wrong id', async () => {
    const { rpc, waits } = client([
      () => ({ body: '{"jsonrpc":"2.0","id":1,"resu' }),
      (b) => ({ body: { jsonrpc: '2.0', id: (b as JsonRpcRequest).id } }),
      (b) => ({ body: { jsonrpc: '2.0', id: (b as JsonRpcRequest).id + 1000, result: '0x2' } }),
      ok(() => null),
    ]);
    // `null` is a valid result (e.g. a block beyond the head).
    expect(await rpc.call('eth_getBlockByNumber', ['0x99', false])).toBeNull();
    expect(waits).toHaveLength(3);
  });

  it('retries transient JSON-RPC errors but returns refusals at once', async () => {
    const transient = client([rpcError(-32000, 'header not found'), rpcError(-32603, 'internal error'), ok()]);
    expect(await transient.rpc.call('eth_getBlockByNumber', ['latest', false])).toBe('0x1');
    expect(transient.script.requests).toHaveLength(3);

    const refused = client([rpcError(-32602, 'invalid params'), ok()]);
    const err = await refused.rpc.call('eth_call', [{}]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32602, rpcMessage: 'invalid params', retryable: false });
    expect(refused.script.requests).toHaveLength(1);
  });

  it('does not retry HTTP statuses that retrying cannot fix', async () => {
    const { rpc, script } = client([() => ({ status: 401, body: 'bad key' })]);
    const err = await rpc.call('eth_blockNumber').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ httpStatus: 401, retryable: false });
    expect(script.requests).toHaveLength(1);
  });

  it('gives up after maxRetries with a retryable RpcUnavailableError, logging each retry', async () => {
    const { rpc, script, waits, logs } = client([() => ({ status: 500, body: 'down' })], { maxRetries: 3 });
    const err = await rpc.call('eth_blockNumber').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect(isRetryable(err)).toBe(true);
    expect(String((err as Error).message)).toMatch(/after 4 attempts \(eth_blockNumber\): HTTP 500/);
    expect(script.requests).toHaveLength(4);
    expect(waits).toHaveLength(3);
    expect(logs.map((l) => `${l.level}:${l.msg}`)).toEqual(['debug:RPC retry', 'debug:RPC retry', 'warn:RPC retry']);
  });

  it('fails fast (retryable) when Retry-After asks for longer than it is willing to wait', async () => {
    const { rpc, waits } = client([() => ({ status: 429, headers: { 'retry-after': '3600' }, body: '' })]);
    await expect(rpc.call('eth_blockNumber')).rejects.toBeInstanceOf(RpcUnavailableError);
    expect(waits).toEqual([]);
  });

  it('batches calls, resends only the calls that failed transiently, and reports refusals per call', async () => {
    let round = 0;
    const { rpc, script } = client([
      (body) => {
        round++;
        const calls = body as JsonRpcRequest[];
        return {
          body: calls.map((c) => {
            const n = Number(c.params[0]);
            if (n === 2 && round === 1) return { jsonrpc: '2.0', id: c.id, error: { code: -32603, message: 'busy' } };
            if (n === 3) return { jsonrpc: '2.0', id: c.id, error: { code: -32602, message: 'bad block' } };
            // Entry 4 is missing from the first answer: answered on the retry.
            if (n === 4 && round === 1) return null;
            return { jsonrpc: '2.0', id: c.id, result: `r${n}` };
          }),
        };
      },
    ]);
    const outcomes = await rpc.batch([1, 2, 3, 4].map((n) => ({ method: 'x', params: [n] })));
    expect(outcomes.map((o) => (o.ok ? o.result : o.error.rpcMessage))).toEqual(['r1', 'r2', 'bad block', 'r4']);
    expect((script.requests[1] as JsonRpcRequest[]).map((c) => c.params[0])).toEqual([2, 4]);
  });

  it('splits batches by maxBatchSize and keeps the concurrency limit', async () => {
    const { rpc, script } = client([ok((c) => c.params[0])], { maxBatchSize: 3, maxConcurrency: 2 });
    const outcomes = await rpc.batch(Array.from({ length: 20 }, (_, i) => ({ method: 'x', params: [i] })));
    expect(outcomes.map((o) => (o.ok ? o.result : undefined))).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(script.requests).toHaveLength(7);
    expect(script.maxInFlight).toBe(2);
    await Promise.all(Array.from({ length: 10 }, (_, i) => rpc.call('y', [i])));
    expect(script.maxInFlight).toBe(2);
  });

  it('falls back to single calls when the endpoint refuses batches', async () => {
    const { rpc, script, logs } = client([
      () => ({ body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests not supported' } } }),
      ok((c) => c.params[0]),
    ]);
    const outcomes = await rpc.batch([
      { method: 'x', params: [1] },
      { method: 'x', params: [2] },
    ]);
    expect(outcomes.map((o) => (o.ok ? o.result : undefined))).toEqual([1, 2]);
    expect(script.requests.slice(1).every((r) => !Array.isArray(r))).toBe(true);
    expect(logs.some((l) => l.level === 'warn')).toBe(true);
  });
});

describe('error classification', () => {
  it.each([
    [-32005, 'query returned more than 10000 results', false, true],
    [-32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range', false, true],
    [-32000, 'block range is too wide', false, true],
    [-32600, 'exceed maximum block range: 5000', false, true],
    [-32005, 'daily request count exceeded, request rate limited', true, false],
    [429, 'Too Many Requests', true, false],
    [-32000, 'header not found', true, false],
    [-32603, 'internal error', true, false],
    [3, 'execution reverted', false, false],
    [-32602, 'invalid argument 0: hex string without 0x prefix', false, false],
    [-32000, 'query timeout exceeded', false, true],
  ])('eth_getLogs, code %i "%s": transient %s, log range %s', (code, message, transient, range) => {
    expect(isTransientRpcError(code, message, 'eth_getLogs')).toBe(transient);
    expect(isLogRangeMessage(message)).toBe(range);
  });

  it('treats size complaints as transient or refused only by what they mean outside eth_getLogs', () => {
    expect(isTransientRpcError(-32000, 'query timeout exceeded', 'eth_call')).toBe(true);
    expect(isTransientRpcError(-32005, 'query returned more than 10000 results', 'eth_getLogs')).toBe(false);
  });
});

describe('AdaptiveWindow', () => {
  it('halves on refusal and grows back by a quarter per full-size success', () => {
    const w = new AdaptiveWindow(2000);
    w.onRefused(2000, 'query returned more than 10000 results');
    expect(w.size).toBe(1000);
    w.onRefused(1000, 'query returned more than 10000 results');
    expect(w.size).toBe(500);
    w.onSuccess(500);
    expect(w.size).toBe(625);
    // A shorter tail range says nothing about the window.
    w.onSuccess(10);
    expect(w.size).toBe(625);
    for (let i = 0; i < 20; i++) w.onSuccess(w.size);
    expect(w.size).toBe(2000);
  });

  it('never goes below one block and always grows by at least one', () => {
    const w = new AdaptiveWindow(10);
    for (let i = 0; i < 10; i++) w.onRefused(w.size, 'too many results');
    expect(w.size).toBe(1);
    w.onSuccess(1);
    expect(w.size).toBe(2);
  });

  it('keeps a block-range cap the provider names as a ceiling', () => {
    const w = new AdaptiveWindow(2000);
    w.onRefused(2000, 'exceed maximum block range: 500');
    expect(w.size).toBe(500);
    for (let i = 0; i < 10; i++) w.onSuccess(w.size);
    expect(w.size).toBe(500);
  });

  it('follows a suggested range', () => {
    const w = new AdaptiveWindow(2000);
    w.onRefused(2000, 'Log response size exceeded. this block range should work: [0x10, 0x4f]');
    expect(w.size).toBe(64);
  });
});

describe('logs', () => {
  const base = {
    address: '0xAbC0000000000000000000000000000000000001',
    topics: ['0xAA'],
    data: '0x',
    blockHash: `0x${'ab'.repeat(32)}`,
    transactionHash: `0x${'cd'.repeat(32)}`,
    transactionIndex: '0x0',
  };

  it('normalises raw logs to lowercase hex and numbers, dropping removed and pending ones', () => {
    expect(normaliseLog({ ...base, blockNumber: '0x10', logIndex: '0x2' })).toEqual({
      address: '0xabc0000000000000000000000000000000000001',
      topics: ['0xaa'],
      data: '0x',
      blockNumber: 16,
      blockHash: `0x${'ab'.repeat(32)}`,
      logIndex: 2,
      transactionHash: `0x${'cd'.repeat(32)}`,
      transactionIndex: 0,
    });
    expect(normaliseLog({ ...base, blockNumber: '0x10', logIndex: '0x2', removed: true })).toBeUndefined();
    expect(normaliseLog({ ...base, blockNumber: null, blockHash: null, logIndex: null })).toBeUndefined();
    expect(() => normaliseLog({ ...base, blockNumber: 'x', logIndex: '0x1' })).toThrow(/malformed/);
  });

  it('merges lists sorted by (block, index) without duplicates', () => {
    const log = (blockNumber: number, logIndex: number) =>
      ({ ...base, address: '0xa' as Hex, blockNumber, logIndex }) as unknown as EvmLog;
    const merged = mergeLogs([
      [log(2, 1), log(1, 5)],
      [log(1, 5), log(1, 0), log(2, 0)],
    ]);
    expect(merged.map((l) => [l.blockNumber, l.logIndex])).toEqual([
      [1, 0],
      [1, 5],
      [2, 0],
      [2, 1],
    ]);
  });
});
