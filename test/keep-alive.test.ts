import { type AddressInfo, connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, testApp } from './helpers.js';

/**
 * Idle keep-alive connections over real HTTP (issue 31, item 5). The API's server comes from the hot path's server
 * factory (src/http/app.ts), so it gets Fastify's connection timeouts only because `withFastifyTimeouts` applies
 * them: an idle connection must outlive a load balancer's 60 s idle timeout (Fastify's default is 72 s, Node's 5 s),
 * and `KEEP_ALIVE_TIMEOUT_MS` must apply. One raw socket per case, so "the same connection" is the socket itself;
 * the server's count of accepted connections says the same from its side.
 */

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Reads HTTP/1.1 responses off one socket, in order. */
class Conn {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  closedAt: number | undefined;

  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => {
      this.closedAt = performance.now();
      this.waiting?.();
    });
  }

  static open(port: number): Promise<Conn> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new Conn(socket)));
      socket.once('error', reject);
    });
  }

  async get(path: string): Promise<Answer> {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
    for (;;) {
      const answer = this.take();
      if (answer) return answer;
      if (this.closedAt !== undefined) throw new Error('the server closed the connection');
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = undefined;
    }
  }

  private take(): Answer | undefined {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine, ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    const length = Number(headers['content-length']);
    if (!Number.isInteger(length)) throw new Error(`no content-length in ${JSON.stringify(headers)}`);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }

  /** Resolves when the server closes the connection, or after `ms`. */
  async closedWithin(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    while (this.closedAt === undefined && performance.now() < deadline) await sleep(20);
    return this.closedAt !== undefined;
  }
}

async function listening(t: TestApp): Promise<{ port: number; connections: () => number }> {
  let accepted = 0;
  t.app.server.on('connection', () => accepted++);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (t.app.server.address() as AddressInfo).port, connections: () => accepted };
}

describe('keep-alive connections', () => {
  let t: TestApp;
  let port: number;
  let connections: () => number;

  beforeAll(async () => {
    t = await testApp();
    ({ port, connections } = await listening(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  it("has Fastify's connection timeouts by default: 72 s keep-alive, no request or socket timeout", () => {
    expect(t.config.keepAliveTimeoutMs).toBe(72_000);
    expect(t.app.server.keepAliveTimeout).toBe(72_000);
    expect(t.app.server.requestTimeout).toBe(0);
    expect(t.app.server.timeout).toBe(0);
    // Node's limit on receiving a request's headers stays, as under Fastify.
    expect(t.app.server.headersTimeout).toBe(60_000);
  });

  it('answers on the same connection after it was idle for 61 s', { timeout: 90_000 }, async () => {
    const conn = await Conn.open(port);
    try {
      const first = await conn.get('/health');
      expect(first.status).toBe(200);
      expect(first.headers.connection).toBe('keep-alive');
      expect(first.headers['keep-alive']).toBe('timeout=72');
      const before = connections();
      await sleep(61_000);
      expect(conn.closedAt).toBeUndefined();
      const second = await conn.get('/health');
      expect(second.status).toBe(200);
      expect(JSON.parse(second.body)).toMatchObject({ status: true, data: { status: 'ok' } });
      // The same socket, and the server accepted no other connection meanwhile.
      expect(conn.socket.destroyed).toBe(false);
      expect(connections()).toBe(before);
    } finally {
      conn.socket.destroy();
    }
  });
});

describe('KEEP_ALIVE_TIMEOUT_MS', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await testApp({ env: { KEEP_ALIVE_TIMEOUT_MS: '3000' } });
    ({ port } = await listening(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('closes an idle connection once the configured time has passed, not before', async () => {
    expect(t.app.server.keepAliveTimeout).toBe(3000);
    const conn = await Conn.open(port);
    try {
      const answer = await conn.get('/health');
      const answeredAt = performance.now();
      expect(answer.status).toBe(200);
      expect(answer.headers['keep-alive']).toBe('timeout=3');
      // Still usable well inside the timeout, on the same socket.
      await sleep(1000);
      expect((await conn.get('/health')).status).toBe(200);
      const reusedAt = performance.now();
      expect(reusedAt - answeredAt).toBeLessThan(3000);
      // Then idle: closed by the server after 3 s (Node may add up to a second of grace), well before the 72 s default.
      expect(await conn.closedWithin(15_000)).toBe(true);
      const idle = conn.closedAt! - reusedAt;
      expect(idle).toBeGreaterThanOrEqual(2900);
      expect(idle).toBeLessThan(10_000);
    } finally {
      conn.socket.destroy();
    }
  });
});
