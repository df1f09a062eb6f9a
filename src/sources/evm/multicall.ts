import {
  type ContractFunctionParameters,
  decodeFunctionResult,
  encodeFunctionData,
  type MulticallParameters,
  type MulticallReturnType,
  type PublicClient,
} from 'viem';
import { ServiceError } from '../../core/errors.js';
import type { RpcClient } from './rpc.js';
import { type EvmLogger, toHexQuantity } from './types.js';

export type MulticallMode = 'deployless' | 'eth_call';

export type MulticallArgs<contracts extends readonly unknown[], allowFailure extends boolean> = Pick<
  MulticallParameters<contracts, allowFailure>,
  'contracts' | 'allowFailure' | 'blockNumber' | 'batchSize'
>;

type CallResult =
  | { readonly status: 'success'; readonly result: unknown; readonly error?: undefined }
  | { readonly status: 'failure'; readonly result?: undefined; readonly error: Error };

/** The engine's own error somewhere in a viem error's cause chain: a transport problem, not a contract failure. */
function transportErrorIn(err: unknown): ServiceError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ServiceError) return e;
  }
  return undefined;
}

/**
 * State reads at a block through viem's multicall. A fresh chain (anvil) has no Multicall3 deployed, so the
 * default is viem's deployless mode: Multicall3's bytecode travels with each `eth_call` (measured to work on
 * anvil, historical blocks included). Endpoints that refuse code-only calls get batched plain `eth_call`s.
 *
 * viem turns a failed transport request into per-call failures when failures are allowed; here a transport
 * failure always throws (a retryable `ServiceError`), so "reverted" never hides "RPC down".
 */
export class MulticallReader {
  private mode: MulticallMode;

  constructor(
    private readonly client: PublicClient,
    private readonly rpc: RpcClient,
    private readonly options: { chain: string; mode?: MulticallMode; log?: EvmLogger },
  ) {
    this.mode = options.mode ?? 'deployless';
  }

  get currentMode(): MulticallMode {
    return this.mode;
  }

  async multicall<const contracts extends readonly unknown[], allowFailure extends boolean = true>(
    args: MulticallArgs<contracts, allowFailure>,
  ): Promise<MulticallReturnType<contracts, allowFailure>> {
    const contracts = args.contracts as unknown as readonly ContractFunctionParameters[];
    let results: CallResult[] | undefined;
    if (this.mode === 'deployless') results = await this.viaDeployless(contracts, args);
    if (!results) results = await this.viaEthCall(contracts, args.blockNumber);
    if (args.allowFailure === false) {
      const failed = results.find((r) => r.status === 'failure');
      if (failed) throw failed.error;
      return results.map((r) => r.result) as unknown as MulticallReturnType<contracts, allowFailure>;
    }
    return results as unknown as MulticallReturnType<contracts, allowFailure>;
  }

  private async viaDeployless(
    contracts: readonly ContractFunctionParameters[],
    args: { blockNumber?: bigint | undefined; batchSize?: number | undefined },
  ): Promise<CallResult[] | undefined> {
    const params: MulticallParameters = {
      contracts: contracts as ContractFunctionParameters[],
      allowFailure: true,
      deployless: true,
      ...(args.blockNumber === undefined ? {} : { blockNumber: args.blockNumber }),
      ...(args.batchSize === undefined ? {} : { batchSize: args.batchSize }),
    };
    const results = (await this.client.multicall(params)) as CallResult[];
    for (const r of results) {
      if (r.status !== 'failure') continue;
      const transport = transportErrorIn(r.error);
      if (!transport) continue;
      if (transport.retryable) throw transport;
      // The endpoint refused the aggregate call itself: try plain calls, and keep using them if they work.
      const plain = await this.viaEthCall(contracts, args.blockNumber);
      if (plain.some((p) => p.status === 'success')) {
        this.mode = 'eth_call';
        this.options.log?.warn(
          { chain: this.options.chain, reason: transport.message },
          'deployless multicall refused: using batched eth_call',
        );
      }
      return plain;
    }
    return results;
  }

  private async viaEthCall(
    contracts: readonly ContractFunctionParameters[],
    blockNumber: bigint | undefined,
  ): Promise<CallResult[]> {
    const blockTag = blockNumber === undefined ? 'latest' : toHexQuantity(blockNumber);
    const results: (CallResult | undefined)[] = new Array(contracts.length);
    const calls: { index: number; data: `0x${string}` }[] = [];
    contracts.forEach((c, index) => {
      try {
        calls.push({ index, data: encodeFunctionData({ abi: c.abi, functionName: c.functionName, args: c.args }) });
      } catch (err) {
        results[index] = { status: 'failure', error: err as Error };
      }
    });
    const outcomes = await this.rpc.batch(
      calls.map((c) => ({ method: 'eth_call', params: [{ to: contracts[c.index]!.address, data: c.data }, blockTag] })),
    );
    outcomes.forEach((outcome, k) => {
      const { index } = calls[k]!;
      const c = contracts[index]!;
      if (!outcome.ok) {
        results[index] = { status: 'failure', error: outcome.error };
        return;
      }
      const data = outcome.result;
      if (typeof data !== 'string' || data === '0x') {
        results[index] = { status: 'failure', error: new Error(`${c.functionName} returned no data`) };
        return;
      }
      try {
        const result = decodeFunctionResult({
          abi: c.abi,
          functionName: c.functionName,
          args: c.args,
          data: data as `0x${string}`,
        });
        results[index] = { status: 'success', result };
      } catch (err) {
        results[index] = { status: 'failure', error: err as Error };
      }
    });
    return results as CallResult[];
  }
}
