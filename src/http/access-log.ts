import type { DestinationStream, Logger } from 'pino';

/**
 * The access log: one JSON line per request, written by both the hot path and the full route.
 *
 * `fastAccessLog` writes the line pino would write for `logger.info({request_id, method, route, path, status, ms},
 * 'request')` (same keys, order and escaping; `access-log.test.ts` compares them byte for byte), straight into the
 * logger's destination: no generic serialisation of an object, one ISO time string per millisecond. pino's own
 * path cost about 3 µs of a ~25 µs request (docs/benchmarks.md). The runtime builds it for loggers it made, whose
 * format it knows; anything else (tests' loggers) gets `pinoAccessLog`.
 */
export interface AccessLog {
  write(requestId: string, method: string, route: string, url: string, status: number, ms: number): void;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Through pino, for any logger. */
export function pinoAccessLog(log: Logger): AccessLog {
  return {
    write(requestId, method, route, url, status, ms) {
      log.info({ request_id: requestId, method, route, path: pathOf(url), status, ms }, 'request');
    },
  };
}

/** What the fast writer needs to know of a logger made with ISO times, `msg` as message key and fixed bindings. */
export interface LineFormat {
  /** Where the logger writes. */
  readonly destination: DestinationStream;
  /** The bindings as pino serialises them after the time: `,"service":"protoscore","pid":1`. */
  readonly bindings: string;
}

/** Request ids the service makes (see hot.ts) and `[A-Za-z0-9._:-]` ones it accepts need no escaping. */
const PLAIN = /^[A-Za-z0-9._:-]*$/;

export function fastAccessLog(log: Logger, format: LineFormat): AccessLog {
  const { destination, bindings } = format;
  let lastMs = -1;
  let lastTime = '';
  return {
    write(requestId, method, route, url, status, ms) {
      if (!log.isLevelEnabled('info')) return;
      const now = Date.now();
      if (now !== lastMs) {
        lastMs = now;
        lastTime = new Date(now).toISOString();
      }
      const id = PLAIN.test(requestId) ? `"${requestId}"` : JSON.stringify(requestId);
      const m = PLAIN.test(method) ? `"${method}"` : JSON.stringify(method);
      destination.write(
        `{"level":30,"time":"${lastTime}"${bindings},"request_id":${id},"method":${m},"route":${JSON.stringify(route)},` +
          `"path":${JSON.stringify(pathOf(url))},"status":${status},"ms":${Number.isFinite(ms) ? ms : null},"msg":"request"}\n`,
      );
    },
  };
}
