import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

type Encoding = 'br' | 'gzip' | 'deflate';

/**
 * A JSON document that never changes while the process runs (the API description, 330 KB): serialised once and
 * compressed once per encoding, rather than per request. Serialising and compressing it per request took
 * 50–130 ms of the event loop each time (measured during issue 12 on a loaded 2-core machine), which delayed every
 * other request in the meantime.
 */
export class StaticJson {
  private body: Buffer | undefined;
  private readonly encoded = new Map<Encoding, Buffer>();

  constructor(private readonly produce: () => unknown) {}

  /** Serialises the document and compresses it as browsers and HTTP clients ask (at start-up, before they do). */
  warm(): void {
    this.bytes();
    this.bytes('gzip');
    this.bytes('br');
  }

  private bytes(encoding?: Encoding): Buffer {
    this.body ??= Buffer.from(JSON.stringify(this.produce()));
    if (!encoding) return this.body;
    let compressed = this.encoded.get(encoding);
    if (!compressed) {
      compressed =
        encoding === 'br'
          ? brotliCompressSync(this.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } })
          : encoding === 'gzip'
            ? gzipSync(this.body)
            : deflateSync(this.body);
      this.encoded.set(encoding, compressed);
    }
    return compressed;
  }

  send(request: FastifyRequest, reply: FastifyReply, headers: Readonly<Record<string, string>> = {}): FastifyReply {
    const encoding = preferred(request.headers['accept-encoding']);
    const bytes = this.bytes(encoding);
    if (encoding) reply.header('content-encoding', encoding);
    return reply
      .headers({ ...headers, vary: 'accept-encoding' })
      .type('application/json; charset=utf-8')
      .send(bytes);
  }
}

function preferred(header: string | string[] | undefined): Encoding | undefined {
  const accepted = new Set<string>();
  for (const part of String(header ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  for (const encoding of ['br', 'gzip', 'deflate'] as const) if (accepted.has(encoding)) return encoding;
  return undefined;
}
