import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';

/**
 * A loopback HTTP proxy in front of a JSON stand-in (dYdX's indexer, Synthetix's info API) that spoils chosen
 * answers: what the stand-ins' own fault injectors cannot send (they answer 429s and 5xx in their service's words),
 * a body that is not JSON (an HTML error page with 200), one cut short, or the service's own answer rewritten into
 * valid JSON of the wrong shape (a number where the wire has a string, a field missing). Faults are scripted and
 * consumed in order by the next requests they match (path and query, or the request body for a POST API).
 */

export type ProxyFault =
  /** An answer of the proxy's own (a 429 with `Retry-After`, a 5xx), in the service's words. */
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body: unknown;
    }
  /** 200 with an error page in front of the API. */
  | { readonly kind: 'not-json' }
  /** The service's answer cut in half. */
  | { readonly kind: 'truncate' }
  /** The service's answer, parsed, changed by `rewrite` and sent as JSON with its status. */
  | { readonly kind: 'rewrite'; readonly rewrite: (body: unknown) => unknown }
  /** No answer: the request hangs until its client goes away (a worker killed in the middle of a read). */
  | { readonly kind: 'hold' };

export interface ScriptedProxyFault {
  readonly fault: ProxyFault;
  /** Only requests whose path and query, or body, contain this (default: any). */
  readonly match?: string;
  /** How many matching requests get it (default 1). */
  readonly times?: number;
  /** How many matching requests pass untouched before it applies (default 0). */
  readonly after?: number;
}

export interface JsonFaultProxy {
  readonly url: string;
  /** The faults delivered, in order (`<kind or status> <method> <path> <body>`). */
  readonly delivered: string[];
  /** Every request (`<method> <path> <body>`) and when it arrived (wall clock, ms). */
  readonly requests: { readonly what: string; readonly atMs: number }[];
  /** Where requests go (set once the stand-in is up). */
  setTarget(url: string): void;
  inject(...faults: readonly ScriptedProxyFault[]): void;
  /** Scripted faults not yet delivered. */
  pending(): number;
  /** Requests held (`hold`) so far. */
  held(): number;
  /** Drops the faults not yet delivered. */
  clear(): void;
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'content-encoding', 'host']);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startJsonFaultProxy(): Promise<JsonFaultProxy> {
  let target: string | undefined;
  const script: { fault: ProxyFault; match: string | undefined; left: number; skip: number }[] = [];
  let held = 0;
  const delivered: string[] = [];
  const requests: { what: string; atMs: number }[] = [];

  const server = createServer((req, res) => {
    (async () => {
      const body = await readBody(req);
      const what = `${req.method} ${req.url ?? '/'}${body ? ` ${body}` : ''}`;
      requests.push({ what, atMs: Date.now() });
      if (!target) throw new Error('no target yet');
      const index = script.findIndex((s) => s.match === undefined || what.includes(s.match));
      let entry = index >= 0 ? script[index]! : undefined;
      if (entry && entry.skip > 0) {
        entry.skip--;
        entry = undefined;
      } else if (entry && --entry.left <= 0) script.splice(index, 1);
      if (entry?.fault.kind === 'hold') {
        delivered.push(`hold ${what}`);
        held++;
        return;
      }
      if (entry?.fault.kind === 'answer') {
        delivered.push(`${entry.fault.status} ${what}`);
        res
          .writeHead(entry.fault.status, { 'content-type': 'application/json', ...entry.fault.headers })
          .end(JSON.stringify(entry.fault.body));
        return;
      }
      if (entry?.fault.kind === 'not-json') {
        delivered.push(`not-json ${what}`);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><body><h1>502 Bad Gateway</h1>cloudflare</body></html>');
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && typeof v === 'string') headers[k] = v;
      const upstream = await fetch(`${target}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body && req.method !== 'GET' ? { body } : {}),
      });
      let text = await upstream.text();
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!HOP.has(k)) out[k] = v;
      });
      if (entry?.fault.kind === 'truncate') {
        delivered.push(`truncate ${what}`);
        text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
      } else if (entry?.fault.kind === 'rewrite') {
        delivered.push(`rewrite ${what}`);
        text = JSON.stringify(entry.fault.rewrite(JSON.parse(text)));
      }
      res.writeHead(upstream.status, { ...out, 'content-length': String(Buffer.byteLength(text)) }).end(text);
    })().catch((err: Error) => {
      if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' }).end(`proxy: ${err.message}`);
    });
  });
  const listening = await listenOnLoopback(server);
  return {
    url: listening.url,
    delivered,
    requests,
    setTarget(url) {
      target = url;
    },
    inject(...faults) {
      for (const f of faults) script.push({ fault: f.fault, match: f.match, left: f.times ?? 1, skip: f.after ?? 0 });
    },
    pending: () => script.reduce((n, s) => n + s.left, 0),
    held: () => held,
    clear() {
      script.length = 0;
    },
    close: listening.close,
  };
}
