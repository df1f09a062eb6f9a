import { ServiceError } from '../../core/errors.js';

/**
 * Failures of a Bitcoin Core JSON-RPC call. Bitcoin Core's error codes (src/rpc/protocol.h) that the source acts on
 * get their own class; the others are `BitcoinRpcError` with the code.
 */
export const RPC_CODES = {
  /** RPC_MISC_ERROR: also "Block not available (pruned data)". */
  MISC: -1,
  /** RPC_METHOD_NOT_FOUND (JSON-RPC's own code). */
  METHOD_NOT_FOUND: -32601,
  /** RPC_INVALID_PARAMETER. */
  INVALID_PARAMETER: -8,
  /** RPC_INVALID_ADDRESS_OR_KEY: "Block not found", "Block height out of range" in older versions. */
  INVALID_ADDRESS_OR_KEY: -5,
  /** RPC_IN_WARMUP: the node is starting (loading the block index): retry. */
  IN_WARMUP: -28,
  /** RPC_CLIENT_NOT_CONNECTED / RPC_CLIENT_IN_INITIAL_DOWNLOAD. */
  NOT_CONNECTED: -9,
  IN_INITIAL_DOWNLOAD: -10,
  /** RPC_METHOD_DEPRECATED. */
  METHOD_DEPRECATED: -32,
  /** RPC_FORBIDDEN_BY_SAFE_MODE, also used by providers for disabled methods. */
  FORBIDDEN: -2,
} as const;

export class BitcoinError extends ServiceError {
  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, retryable, options);
    this.name = 'BitcoinError';
  }
}

/** An RPC error reply: `code` and `message` as the node sent them. */
export class BitcoinRpcError extends BitcoinError {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    retryable = false,
  ) {
    super(`bitcoin RPC ${method}: error ${code}: ${rpcMessage}`, retryable);
    this.name = 'BitcoinRpcError';
  }
}

/** The method does not exist or the provider disabled it (method not found, 403, "disabled", "not allowed"). */
export class BitcoinMethodUnavailableError extends BitcoinRpcError {
  constructor(method: string, code: number, rpcMessage: string) {
    super(method, code, rpcMessage, false);
    this.name = 'BitcoinMethodUnavailableError';
  }
}

/** A pruned node no longer has the block's data ("Block not available (pruned data)"). */
export class BitcoinPrunedError extends BitcoinRpcError {
  constructor(
    method: string,
    code: number,
    rpcMessage: string,
    readonly block: string | number,
  ) {
    super(method, code, rpcMessage, false);
    this.name = 'BitcoinPrunedError';
  }
}

/** HTTP 401: wrong user/password or a stale cookie. Not retried beyond one cookie re-read. */
export class BitcoinAuthError extends BitcoinError {
  constructor(url: string, how: string) {
    super(`bitcoin RPC at ${url}: authentication refused (HTTP 401, ${how})`, false);
    this.name = 'BitcoinAuthError';
  }
}

/** A reply that is not what the method returns (schema mismatch, not JSON): retrying cannot help. */
export class BitcoinSchemaError extends BitcoinError {
  constructor(
    readonly method: string,
    readonly field: string,
    detail: string,
  ) {
    super(`bitcoin RPC ${method}: invalid reply at ${field || '/'}: ${detail}`, false);
    this.name = 'BitcoinSchemaError';
  }
}

const PRUNED = /pruned data|not available \(pruned|block not available/i;
const UNAVAILABLE = /method not found|disabled|not allowed|not whitelisted|not supported|forbidden/i;

/** The error a reply `{ code, message }` means for `method`. */
export function rpcError(method: string, code: number, message: string, block?: string | number): BitcoinRpcError {
  if (PRUNED.test(message)) return new BitcoinPrunedError(method, code, message, block ?? '');
  if (code === RPC_CODES.METHOD_NOT_FOUND || (code === RPC_CODES.FORBIDDEN && UNAVAILABLE.test(message))) {
    return new BitcoinMethodUnavailableError(method, code, message);
  }
  if (UNAVAILABLE.test(message) && !/block/i.test(message))
    return new BitcoinMethodUnavailableError(method, code, message);
  const transient = code === RPC_CODES.IN_WARMUP || code === RPC_CODES.NOT_CONNECTED;
  return new BitcoinRpcError(method, code, message, transient);
}
