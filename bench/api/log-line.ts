/**
 * What one access-log line costs the API's process, by writer and sink (CPU µs per line, user + system), writing
 * to a file as `npm start > file` would:
 *
 *   node --import tsx bench/api/log-line.ts [--lines 300000]
 *
 * Writers: pino's `info(obj, msg)` (the access log before issue 12) and `fastAccessLog` (src/http/access-log.ts).
 * Sinks: pino's asynchronous destination (sonic-boom, 4 KiB blocks, as before) and `LineSink`
 * (src/runtime/log-sink.ts, 64 Ki blocks with writeSync). Lines are written 50 at a time between event-loop turns,
 * as requests arrive, and every sink is flushed before the clock stops.
 */
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino, { type DestinationStream } from 'pino';
import { type AccessLog, fastAccessLog, pinoAccessLog } from '../../src/http/access-log.js';
import { LineSink } from '../../src/runtime/log-sink.js';

const { values } = parseArgs({ options: { lines: { type: 'string', default: '300000' } } });
const N = Number(values.lines);
const dir = mkdtempSync(path.join(os.tmpdir(), 'protoscore-log-line-'));
const BINDINGS = ',"service":"protoscore","pid":1';

async function measure(writer: 'pino' | 'fast', sink: 'sonic-boom' | 'line-sink'): Promise<number> {
  const fd = openSync(path.join(dir, `${writer}-${sink}.log`), 'w');
  const dest: DestinationStream & { flushSync(): void } =
    sink === 'sonic-boom' ? pino.destination({ dest: fd, sync: false, minLength: 4096 }) : new LineSink(fd);
  const logger = pino(
    { level: 'info', base: { service: 'protoscore', pid: 1 }, timestamp: pino.stdTimeFunctions.isoTime },
    dest,
  );
  const log: AccessLog =
    writer === 'pino' ? pinoAccessLog(logger) : fastAccessLog(logger, { destination: dest, bindings: BINDINGS });
  const route = '/data/liquidity/dex/pool-analytics/<pool>';
  const url = '/data/liquidity/dex/pool-analytics/0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640';
  const c0 = process.cpuUsage();
  let i = 0;
  await new Promise<void>((resolve) => {
    const step = () => {
      for (let k = 0; k < 50 && i < N; k++, i++)
        log.write(`5d41402abc4b-${i.toString(36)}`, 'GET', route, url, 200, 0.1234);
      if (i < N) setImmediate(step);
      else resolve();
    };
    step();
  });
  dest.flushSync();
  const c = process.cpuUsage(c0);
  if (dest instanceof LineSink) dest.end();
  closeSync(fd);
  return (c.user + c.system) / N;
}

const rows: string[] = [];
for (const writer of ['pino', 'fast'] as const) {
  for (const sink of ['sonic-boom', 'line-sink'] as const) {
    await measure(writer, sink); // warm-up
    const us = await measure(writer, sink);
    rows.push(`| ${writer === 'pino' ? 'pino `info()`' : '`fastAccessLog`'} | ${sink} | ${us.toFixed(2)} µs |`);
  }
}
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`| Writer | Sink | CPU per line |\n| --- | --- | ---: |\n${rows.join('\n')}\n`);
process.stdout.write(`(${N} lines each, Node ${process.version}, ${os.cpus()[0]?.model ?? 'unknown CPU'})\n`);
