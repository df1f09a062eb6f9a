/**
 * The one error vocabulary of the service. Internal code throws these; `http/errors.ts` maps them to the wire
 * (status, code, message) in one place. Anything else that reaches the HTTP layer is an `internal` 500.
 */
export type ApiErrorCode =
  | 'invalid_parameter'
  | 'invalid_request'
  | 'missing_token'
  | 'malformed_authorization'
  | 'invalid_token'
  | 'revoked_token'
  | 'expired_token'
  | 'unknown_route'
  | 'unknown_entity'
  | 'no_data'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'internal'
  | 'overloaded'
  | 'not_ready';

export const STATUS_OF: Record<ApiErrorCode, number> = {
  invalid_parameter: 400,
  invalid_request: 400,
  missing_token: 401,
  malformed_authorization: 401,
  invalid_token: 401,
  revoked_token: 401,
  expired_token: 401,
  unknown_route: 404,
  unknown_entity: 404,
  no_data: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  internal: 500,
  overloaded: 503,
  not_ready: 503,
};

/** An error meant for the API client: its message is safe to show. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS_OF[code];
  }
}

/**
 * An internal failure (a source, the store, a job). `retryable` tells the job runner whether trying again can
 * help (timeouts, 429s, 5xx) or not (bad data, bad config).
 */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ServiceError';
  }
}

export function isRetryable(err: unknown): boolean {
  return err instanceof ServiceError ? err.retryable : true;
}
