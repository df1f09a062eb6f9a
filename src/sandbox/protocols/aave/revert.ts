/** Why an Aave transaction reverted, from the node's call trace, with Aave's numeric error codes named. */
import { decodeErrorResult, type Hex } from 'viem';
import { RpcClient } from '../../chain/rpc.js';
import { aaveErrorName } from './artifacts.js';

/**
 * Why a mined transaction reverted, with Aave's numeric code named (`36 COLLATERAL_CANNOT_COVER_NEW_BORROW`), from
 * the node's call trace. Receipts carry no reason, and Aave's reasons are bare numbers.
 */
export async function explainRevert(rpcUrl: string, hash: Hex): Promise<string> {
  try {
    const trace = await new RpcClient(rpcUrl).request<{ output?: Hex; error?: string }>('debug_traceTransaction', [
      hash,
      { tracer: 'callTracer' },
    ]);
    return describeRevertData(trace.output) ?? trace.error ?? 'no reason';
  } catch (err) {
    return `no trace: ${(err as Error).message}`;
  }
}

/** `Error(string)` revert data as `code NAME` for Aave's numeric codes, else the string; undefined if not one. */
export function describeRevertData(data: Hex | undefined): string | undefined {
  if (!data || data.length < 10) return undefined;
  try {
    const decoded = decodeErrorResult({
      abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }],
      data,
    });
    const message = String(decoded.args[0]);
    const name = aaveErrorName(message);
    return name ? `${message} ${name}` : message;
  } catch {
    return undefined;
  }
}
