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

/** Cached route-and-path fragments, at most this many (then forgotten and made again). */
const MAX_FRAGMENTS = 10_000;

/** `000`…`999`: the milliseconds of an ISO time. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

export function fastAccessLog(log: Logger, format: LineFormat): AccessLog {
  const { destination, bindings } = format;
  // The line's time is built from the ISO string of its second (made once a second) and its milliseconds.
  let lastSecond = -1;
  let secondPrefix = '';
  // `,"route":…,"path":…` by URL: a served URL repeats, and its JSON is made once, not at every request.
  let fragments = new Map<string, { route: string; text: string }>();
  return {
    write(requestId, method, route, url, status, ms) {
      if (!log.isLevelEnabled('info')) return;
      const now = Date.now();
      const second = Math.floor(now / 1000);
      if (second !== lastSecond) {
        lastSecond = second;
        // "2026-11-28T07:40:19.000Z" without its last five characters (".000Z").
        secondPrefix = `{"level":30,"time":"${new Date(second * 1000).toISOString().slice(0, -4)}`;
      }
      let fragment = fragments.get(url);
      if (fragment === undefined || fragment.route !== route) {
        if (fragments.size >= MAX_FRAGMENTS) fragments = new Map();
        fragment = { route, text: `,"route":${JSON.stringify(route)},"path":${JSON.stringify(pathOf(url))}` };
        fragments.set(url, fragment);
      }
      const id = PLAIN.test(requestId) ? `"${requestId}"` : JSON.stringify(requestId);
      const m = method === 'GET' ? '"GET"' : PLAIN.test(method) ? `"${method}"` : JSON.stringify(method);
      destination.write(
        `${secondPrefix}${MILLIS[now - second * 1000]}Z"${bindings},"request_id":${id},"method":${m}${fragment.text},` +
          `"status":${status},"ms":${Number.isFinite(ms) ? ms : null},"msg":"request"}\n`,
      );
    },
  };
}
