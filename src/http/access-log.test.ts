import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fastAccessLog, pinoAccessLog } from './access-log.js';

function sink() {
  const lines: string[] = [];
  return { lines, write: (s: string) => lines.push(s) };
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]*"/, '"time":"T"');

describe('access log', () => {
  const cases: [string, string, string, string, number, number][] = [
    [
      '3f2a9c1e-1b',
      'GET',
      '/data/liquidity/dex/pool-analytics/<pool>',
      '/data/liquidity/dex/pool-analytics/0xabc',
      200,
      0.123,
    ],
    ['my.id:1', 'HEAD', '/health', '/health?x=1', 304, 12],
    ['x', 'GET', 'unknown', '/a"b\\c\u0001é/\u2028', 404, 1.5e-7],
  ];

  it('writes, byte for byte, the line pino writes for the same fields (time aside)', () => {
    const base = { service: 'protoscore', pid: 4242 };
    const viaPino = sink();
    const viaFast = sink();
    const opts = { level: 'info', base, timestamp: pino.stdTimeFunctions.isoTime };
    const pinoLog = pinoAccessLog(pino(opts, viaPino));
    const fast = fastAccessLog(pino(opts, viaFast), {
      destination: viaFast,
      bindings: ',"service":"protoscore","pid":4242',
    });
    for (const c of cases) {
      pinoLog.write(...c);
      fast.write(...c);
    }
    expect(viaFast.lines.map(withoutTime)).toEqual(viaPino.lines.map(withoutTime));
    for (const line of viaFast.lines) expect(JSON.parse(line).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stamps each line with the time it is written, to the millisecond', () => {
    const out = sink();
    const fast = fastAccessLog(pino({ level: 'info' }, out), { destination: out, bindings: '' });
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      fast.write('a', 'GET', '/x', i % 2 ? '/x' : '/y', 200, 1);
      const after = Date.now();
      const at = Date.parse(JSON.parse(out.lines.at(-1)!).time);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
    }
  });

  it('names the route it is given for a URL seen before under another route', () => {
    const out = sink();
    const fast = fastAccessLog(pino({ level: 'info' }, out), { destination: out, bindings: '' });
    fast.write('a', 'GET', '/data/<pool>', '/data/0xabc?x=1', 200, 1);
    fast.write('b', 'GET', 'unknown', '/data/0xabc?x=1', 404, 1);
    expect(out.lines.map((l) => [JSON.parse(l).route, JSON.parse(l).path])).toEqual([
      ['/data/<pool>', '/data/0xabc'],
      ['unknown', '/data/0xabc'],
    ]);
  });

  it('writes nothing below its level', () => {
    const out = sink();
    const fast = fastAccessLog(pino({ level: 'warn' }, out), { destination: out, bindings: '' });
    fast.write('a', 'GET', '/x', '/x', 200, 1);
    expect(out.lines).toEqual([]);
  });
});
