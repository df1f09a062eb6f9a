/**
 * Benchmark child: a bare Fastify 5 server with one GET route that answers the same body bytes and content type
 * the service serves. No logging, no plugins, no hooks. Started by bench/api/run.ts through `fork` (IPC channel);
 * sends `{ type: 'ready', port }`.
 *
 * Env: BENCH_BODY_FILE (the exact body bytes), BENCH_CONTENT_TYPE, BENCH_ROUTE (the URL to answer).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

const bodyFile = process.env.BENCH_BODY_FILE;
const route = process.env.BENCH_ROUTE;
if (!bodyFile || !route) throw new Error('BENCH_BODY_FILE and BENCH_ROUTE must be set');
if (!process.send) throw new Error('bench/api/bare.ts must be started with an IPC channel (fork)');
const contentType = process.env.BENCH_CONTENT_TYPE ?? 'application/json; charset=utf-8';
// A string, as the service sends its cached rendering (Fastify computes content-length the same way).
const body = readFileSync(bodyFile, 'utf8');

const app = Fastify({ logger: false });
app.get(route, (_request, reply) => {
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
