/**
 * Benchmark child: a bare Fastify 5 server with one GET route that answers the same body bytes and content type
 * the service serves. No logging, no plugins, no hooks. Started by bench/api/run.ts through `fork` (IPC channel);
 * sends `{ type: 'ready', port }`.
 *
 * Env: BENCH_BODIES (JSON: URL path → file of the exact body bytes), BENCH_CONTENT_TYPE, BENCH_ROUTE (the route
 * shape; the route answers the body of the requested path, as the service's route looks its document up).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

const bodyFiles = process.env.BENCH_BODIES;
const route = process.env.BENCH_ROUTE;
if (!bodyFiles || !route) throw new Error('BENCH_BODIES and BENCH_ROUTE must be set');
if (!process.send) throw new Error('bench/api/bare.ts must be started with an IPC channel (fork)');
const contentType = process.env.BENCH_CONTENT_TYPE ?? 'application/json; charset=utf-8';
// Strings, as the service sends its cached renderings (Fastify computes content-length the same way).
const bodies = new Map(
  Object.entries(JSON.parse(bodyFiles) as Record<string, string>).map(([p, file]) => [p, readFileSync(file, 'utf8')]),
);

const app = Fastify({ logger: false });
app.get(route, (request, reply) => {
  const body = bodies.get(request.url);
  if (body === undefined) return reply.code(404).send();
  reply.type(contentType).send(body);
});
await app.listen({ port: 0, host: '127.0.0.1' });

const close = () => {
  app.close().finally(() => process.exit(0));
};
process.once('SIGINT', close);
process.once('SIGTERM', close);
process.on('disconnect', close);

process.send({ type: 'ready', port: (app.server.address() as AddressInfo).port });
