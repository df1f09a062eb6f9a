import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/index.js';
import { type AccessLog, fastAccessLog, type LineFormat } from '../http/access-log.js';
import { chooseLogFormat, formatLogLine } from './log-format.js';
import { LineSink } from './log-sink.js';

/** The line format of each logger made here, for the access log's direct writer. */
const FORMATS = new WeakMap<Logger, LineFormat>();

/** The access log for a logger made by `createLogger` (direct lines), or undefined (the API then uses pino). */
export function accessLogFor(logger: Logger): AccessLog | undefined {
  const format = FORMATS.get(logger);
  return format ? fastAccessLog(logger, format) : undefined;
}

export function createLogger(config: Config, destination?: DestinationStream): Logger {
  const dest = destination ?? stdoutDestination();
  const logger = pino(
    {
      level: config.logLevel,
      // Keep in step with the bindings of FORMATS below (access-log.test.ts checks the line against pino's).
      base: { service: 'protoscore', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Defence in depth: nothing logs headers, but if a header object ever reaches a log line, no token leaves.
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'token'],
        censor: '[redacted]',
      },
    },
    dest,
  );
  FORMATS.set(logger, { destination: dest, bindings: `,"service":"protoscore","pid":${process.pid}` });
  return logger;
}

/**
 * Where the log lines of a long-running role go: JSON lines to stdout as ever, or, when LOG_FORMAT asks for it (or
 * is `auto` and stdout is a terminal), readable lines written through `out` (which knows about a progress bar).
 */
export function logDestination(
  config: Config,
  options: { terminal: boolean; out: (text: string) => void },
): { format: 'json' | 'pretty'; destination: DestinationStream } {
  const format = chooseLogFormat(config.logFormat, options.terminal);
  if (format === 'json') return { format, destination: stdoutDestination() };
  const colour = options.terminal;
  return { format, destination: { write: (line: string) => options.out(`${formatLogLine(line, { colour })}\n`) } };
}

/**
 * stdout through a buffer: lines are written in blocks of up to 64 Ki characters (or after 100 ms), with
 * `writeSync`, not one write(2) per line (`log-sink.ts`; measured in docs/benchmarks.md). What is buffered is
 * written when the process exits.
 */
function stdoutDestination(): DestinationStream {
  const sink = new LineSink(1, {
    droppedLine: (count) =>
      `${JSON.stringify({ level: 40, time: new Date().toISOString(), service: 'protoscore', pid: process.pid, dropped: count, msg: 'stdout did not take log lines: some were dropped' })}\n`,
  });
  process.on('exit', () => sink.end());
  return sink;
}
