import { describe, expect, it } from 'vitest';
import { createEvmSource } from './source.js';
import type { EvmChainConfig, EvmLogger } from './types.js';

/**
 * The final block per finality model, against a JSON-RPC node in memory whose `finalized` answer each test sets:
 * a block, an error (a node that does not know the tag), or null (no finalized block yet).
 */

const HASH = `0x${'ab'.repeat(32)}`;

type Answer = { result: unknown } | { error: { code: number; message: string } };

function node(finalized: () => Answer) {
  const asked: unknown[][] = [];
  const fetchFn = (async (_url: string, init: { body: string }) => {
    const body = JSON.parse(init.body) as { id: number; method: string; params: unknown[] } | unknown[];
    const one = (call: { id: number; method: string; params: unknown[] }) => {
      asked.push([call.method, ...call.params]);
      if (call.method === 'eth_getBlockByNumber' && call.params[0] === 'finalized') {
        return { jsonrpc: '2.0', id: call.id, ...finalized() };
      }
      return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'not in this test' } };
    };
    const out = Array.isArray(body) ? body.map((c) => one(c as never)) : one(body);
    return new Response(JSON.stringify(out), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { fetchFn, asked };
}

function block(n: number): Answer {
  return {
    result: {
      number: `0x${n.toString(16)}`,
      hash: HASH,
      parentHash: HASH,
      timestamp: '0x64',
      gasLimit: '0x1c9c380',
    },
  };
}

function recorder() {
  const lines: { level: string; msg: string; obj: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (obj: Record<string, unknown>, msg: string): void => {
      lines.push({ level, msg, obj });
    };
  const log: EvmLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}

function source(answer: () => Answer, config: Partial<EvmChainConfig> = {}) {
  const n = node(answer);
  const r = recorder();
  const s = createEvmSource(
    { id: 'l2', rpcUrl: 'http://node.invalid', finalityDepth: 900, finality: 'tag', maxRetries: 0, ...config },
    { fetch: n.fetchFn, log: r.log, sleep: async () => {} },
  );
  return { s, asked: n.asked, lines: r.lines };
}

describe('EvmSource.finalBlock', () => {
  it("the tag model: the node's finalized block, one counted call per resolution", async () => {
    const { s, asked, lines } = source(() => block(95_000));
    const before = s.stats.rpc.calls;
    expect(await s.finalBlock(100_000)).toEqual({ number: 95_000, by: 'tag' });
    expect(asked).toEqual([['eth_getBlockByNumber', 'finalized', false]]);
    expect(s.stats.rpc.calls).toBe(before + 1);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('runs asking with the same head share one call; a new head asks again', async () => {
    let answer: Answer = block(95_000);
    const { s, asked } = source(() => answer);
    const [a, b] = await Promise.all([s.finalBlock(100_000), s.finalBlock(100_000)]);
    expect(a).toEqual({ number: 95_000, by: 'tag' });
    expect(b).toEqual(a);
    expect(await s.finalBlock(100_000)).toEqual(a);
    expect(asked).toHaveLength(1);
    answer = block(95_010);
    expect(await s.finalBlock(100_001)).toEqual({ number: 95_010, by: 'tag' });
    expect(asked).toHaveLength(2);
  });

  it('a failed resolution is not kept: the next run with the same head asks again', async () => {
    let answer: Answer = { error: { code: -32603, message: 'internal error' } };
    const { s } = source(() => answer, { maxRetries: 1 });
    await expect(s.finalBlock(100)).rejects.toThrow();
    answer = block(90);
    expect(await s.finalBlock(100)).toEqual({ number: 90, by: 'tag' });
  });

  it('the depth model asks the node nothing', async () => {
    const { s, asked } = source(() => block(1), { finality: 'depth', finalityDepth: 64 });
    expect(await s.finalBlock(1000)).toEqual({ number: 936, by: 'depth' });
    expect(asked).toEqual([]);
  });

  it.each([
    [
      '-32602 (invalid params)',
      { error: { code: -32602, message: 'invalid argument 0: hex string without 0x prefix' } },
    ],
    ['-32000 (unknown block)', { error: { code: -32000, message: 'finalized block not found' } }],
    ['null (no finalized block yet)', { result: null }],
  ] as const)('a node that answers %s: the fallback depth, warned once, never thrown', async (_, answer) => {
    const { s, lines } = source(() => answer);
    const first = await s.finalBlock(10_000);
    expect(first).toMatchObject({ number: 9100, by: 'fallback' });
    expect(first.reason).toMatch(/^l2: /);
    expect(await s.finalBlock(10_010)).toMatchObject({ number: 9110, by: 'fallback' });
    expect(await s.finalBlock(10_020)).toMatchObject({ number: 9120, by: 'fallback' });
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(/finalized tag not usable/);
    expect(warnings[0]!.obj).toMatchObject({ chain: 'l2', latest: 10_000, finalityDepth: 900 });
    expect(lines.filter((l) => l.level === 'debug')).toHaveLength(2);
  });

  it('a finalized block above the head (another node answered): the fallback depth, warned once per kind', async () => {
    let answer: Answer = block(10_500);
    const { s, lines } = source(() => answer);
    expect(await s.finalBlock(10_000)).toMatchObject({ number: 9100, by: 'fallback' });
    expect((await s.finalBlock(10_001)).reason).toMatch(/finalized block 10500 is above the head 10001/);
    // The node then answers properly: the tag again, with no warning.
    answer = block(9_990);
    expect(await s.finalBlock(10_002)).toEqual({ number: 9_990, by: 'tag' });
    // A different reason later is warned about once more.
    answer = { result: null };
    expect(await s.finalBlock(10_003)).toMatchObject({ by: 'fallback' });
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.obj.reason)).toEqual([
      expect.stringMatching(/above the head/),
      'l2: no finalized block yet',
    ]);
  });

  it('the head itself finalized (a chain that finalises instantly) is the tag', async () => {
    const { s } = source(() => block(500));
    expect(await s.finalBlock(500)).toEqual({ number: 500, by: 'tag' });
  });

  it('a transient failure that outlasts the retries throws, as any call of the run would', async () => {
    const { s } = source(() => ({ error: { code: -32603, message: 'internal error' } }), { maxRetries: 1 });
    await expect(s.finalBlock(100)).rejects.toThrow();
  });

  it('an unknown model is a configuration error', () => {
    expect(() => source(() => block(1), { finality: 'safe' as never })).toThrow(/finality must be depth or tag/);
  });
});
