import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ApiErrorCode, STATUS_OF } from '../core/errors.js';

/**
 * The one place where errors become wire responses: `{status:false,error:{code,message,request_id}}`.
 * ApiErrors keep their code and message; framework errors map to the nearest code; anything else is an
 * `internal` 500 whose message reveals nothing (the details go to the log).
 */
export function errorBody(code: ApiErrorCode, message: string, requestId: string): string {
  return JSON.stringify({ status: false, error: { code, message, request_id: requestId } });
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { statusCode?: number; code?: string; message?: string };
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 404) return new ApiError('unknown_route', 'no such route');
  if (status === 405) return new ApiError('method_not_allowed', 'method not allowed');
  if (status === 503) return new ApiError('overloaded', 'the service is overloaded; retry shortly');
  if (status === 429) return new ApiError('rate_limited', 'rate limit exceeded');
  if (status >= 400 && status < 500) {
    // Bad URL encoding, oversize or unparseable requests: say what is wrong without echoing internals.
    const message = e.code === 'FST_ERR_BAD_URL' ? 'the path is not valid percent-encoded UTF-8' : 'malformed request';
    return new ApiError('invalid_request', message);
  }
  return new ApiError('internal', 'internal error');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  // Errors must never be cached by clients or proxies.
  reply.header('cache-control', 'no-store');
  return reply
    .code(STATUS_OF[err.code])
    .type('application/json; charset=utf-8')
    .send(errorBody(err.code, err.message, request.id));
}

/**
 * The answer to a request Node's HTTP parser rejected before any route saw it (not HTTP, headers over the size
 * limit, too slow to arrive): the service's envelope with `invalid_request`, not Fastify's own error shape. The
 * status stays the one HTTP has for the case (408, 431, else 400).
 */
export function clientErrorResponse(err: { code?: string }): string {
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are larger than the server accepts']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, 'the request is not valid HTTP'];
  const body = errorBody('invalid_request', message, randomUUID());
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Fastify's `clientErrorHandler`: answers with `clientErrorResponse` and closes the connection. */
export function handleClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(clientErrorResponse(err));
  socket.destroy(err);
}
