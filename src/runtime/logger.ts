import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/index.js';
import { chooseLogFormat, formatLogLine } from './log-format.js';

export function createLogger(config: Config, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'protoscore', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Defence in depth: nothing logs headers, but if a header object ever reaches a log line, no token leaves.
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'token'],
        censor: '[redacted]',
      },
    },
    destination ?? stdoutDestination(),
  );
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
 * stdout through a buffer: lines are written in blocks of at least 4 KiB (or after 100 ms of quiet), not one
 * write(2) per line. Measured in docs/benchmarks.md. The buffer is flushed synchronously when the process exits.
 */
function stdoutDestination(): DestinationStream {
  const dest = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => dest.flush(), 100);
  timer.unref();
  process.on('exit', () => {
    try {
      dest.flushSync();
    } catch {
      // stdout already closed: nothing left to do.
    }
  });
  return dest;
}
