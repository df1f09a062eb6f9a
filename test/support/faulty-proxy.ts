import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-server.js';
import { seededRandom } from './random.js';

/**
 * A loopback JSON-RPC proxy that misbehaves on a seeded schedule, in front of a real node (anvil): HTTP 500s,
 * 429s with `Retry-After`, hangs (the client must time out), truncated JSON bodies, answers without `result`, and
 * "too many results" refusals of `eth_getLogs` over more than `maxLogRange` blocks. The same seed and the same
 * order of requests give the same faults.
 */

export interface FaultRates {
  /** Probability per HTTP request of each fault; the rest is forwarded. */
  readonly error500?: number;
  readonly rateLimit?: number;
  readonly timeout?: number;
  readonly truncate?: number;
  /** A well-formed JSON-RPC answer without `result` (single requests; batches lose one entry). */
  readonly missingResult?: number;
}

export interface FaultyProxyOptions {
  readonly seed: number;
  readonly rates?: FaultRates;
  /** `eth_getLogs` over more blocks than this is refused like Infura does (-32005, "more than 10000 results"). */
  readonly maxLogRange?: number;
  /** `Retry-After` of the 429s, in seconds (default 1). */
  readonly retryAfterSeconds?: number;
}

export interface FaultyProxyStats {
  requests: number;
  forwarded: number;
  error500: number;
  rateLimited: number;
  timeouts: number;
  truncated: number;
  missingResult: number;
  /** `eth_getLogs` calls refused for their range. */
  tooManyResults: number;
  /** Block spans of the `eth_getLogs` calls forwarded to the node, in arrival order. */
  getLogsSpans: number[];
  /** Calls forwarded, per method. */
  methods: Record<string, number>;
}

export interface FaultyProxy {
  readonly url: string;
  readonly stats: FaultyProxyStats;
  /** Changes the fault rates from now on (e.g. 0 to stop misbehaving). */
  setRates(rates: FaultRates): void;
  setMaxLogRange(blocks: number | undefined): void;
  close(): Promise<void>;
}

interface RpcBody {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: unknown[];
}

function blockNumberOf(value: unknown): number | undefined {
  return typeof value === 'string' && value.startsWith('0x') ? Number.parseInt(value, 16) : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFaultyProxy(targetUrl: string, options: FaultyProxyOptions): Promise<FaultyProxy> {
  const random = seededRandom(options.seed);
  let rates: FaultRates = options.rates ?? {};
  let maxLogRange = options.maxLogRange;
  const stats: FaultyProxyStats = {
    requests: 0,
    forwarded: 0,
    error500: 0,
    rateLimited: 0,
    timeouts: 0,
    truncated: 0,
    missingResult: 0,
    tooManyResults: 0,
    getLogsSpans: [],
    methods: {},
  };
  const hanging = new Set<ServerResponse>();

  /** The refusal for a too-wide `eth_getLogs`, or undefined to forward the call. */
  function refusal(call: RpcBody): unknown {
    if (call.method !== 'eth_getLogs' || maxLogRange === undefined) return undefined;
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown };
    const from = blockNumberOf(filter.fromBlock);
    const to = blockNumberOf(filter.toBlock);
    if (from === undefined || to === undefined || to - from + 1 <= maxLogRange) return undefined;
    stats.tooManyResults++;
    return { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'query returned more than 10000 results' } };
  }

  function count(call: RpcBody): void {
    const method = call.method ?? '?';
    stats.methods[method] = (stats.methods[method] ?? 0) + 1;
    if (method === 'eth_getLogs') {
      const filter = (call.params?.[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown };
      const from = blockNumberOf(filter.fromBlock);
      const to = blockNumberOf(filter.toBlock);
      if (from !== undefined && to !== undefined) stats.getLogsSpans.push(to - from + 1);
    }
  }

  async function forward(calls: RpcBody[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const res = await fetch(targetUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(calls),
    });
    return (await res.json()) as unknown[];
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    stats.requests++;
    // One draw per request decides its fate; the thresholds stack in a fixed order.
    const r = random();
    let edge = 0;
    const hit = (p: number | undefined) => {
      edge += p ?? 0;
      return r < edge;
    };
    if (hit(rates.error500)) {
      stats.error500++;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal server error');
      return;
    }
    if (hit(rates.rateLimit)) {
      stats.rateLimited++;
      res
        .writeHead(429, { 'content-type': 'text/plain', 'retry-after': String(options.retryAfterSeconds ?? 1) })
        .end('too many requests');
      return;
    }
    if (hit(rates.timeout)) {
      // Never answered: the client's timeout fires; `close()` ends the socket.
      stats.timeouts++;
      hanging.add(res);
      return;
    }
    const truncate = hit(rates.truncate);
    const dropResult = !truncate && hit(rates.missingResult);

    let parsed: RpcBody | RpcBody[];
    try {
      parsed = JSON.parse(text) as RpcBody | RpcBody[];
    } catch {
      res.writeHead(400).end('bad json');
      return;
    }
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    const answers: unknown[] = new Array(calls.length);
    const toForward: number[] = [];
    calls.forEach((call, i) => {
      const refused = refusal(call);
      if (refused) answers[i] = refused;
      else toForward.push(i);
    });
    const forwarded = await forward(toForward.map((i) => calls[i]!));
    stats.forwarded++;
    const byId = new Map((forwarded as RpcBody[]).map((a) => [a.id, a]));
    for (const i of toForward) {
      count(calls[i]!);
      answers[i] = byId.get(calls[i]!.id);
    }
    if (dropResult) {
      stats.missingResult++;
      const victim = answers[0] as { jsonrpc?: string; id?: unknown };
      answers[0] = { jsonrpc: victim?.jsonrpc ?? '2.0', id: victim?.id };
    }
    let out = JSON.stringify(Array.isArray(parsed) ? answers : answers[0]);
    if (truncate) {
      stats.truncated++;
      out = out.slice(0, Math.max(1, Math.floor(out.length / 2)));
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${err.message}`);
    });
  });
  const listening = await listenOnLoopback(server);

  return {
    url: listening.url,
    stats,
    setRates(next) {
      rates = next;
    },
    setMaxLogRange(blocks) {
      maxLogRange = blocks;
    },
    close: () => {
      for (const res of hanging) res.destroy();
      return listening.close();
    },
  };
}
