import { launchAnvil } from './anvil.js';

/**
 * anvil for the EVM engine's tests, as anvil comes (its own base fee and gas limit, automine), started by the one
 * test launcher (./anvil.ts); plus a hand-assembled log emitter and the transaction helpers those tests use.
 */
export interface AnvilLite {
  readonly url: string;
  readonly port: number;
  /** Sends one JSON-RPC call straight to anvil (no retries): test set-up only. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

async function rawRpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function startAnvil(options: { timestamp?: number } = {}): Promise<AnvilLite> {
  const anvil = await launchAnvil({
    anvilDefaults: true,
    ...(options.timestamp !== undefined ? { genesisTimestamp: options.timestamp } : {}),
  });
  return {
    url: anvil.rpcUrl,
    port: anvil.port,
    rpc: (method, params) => rawRpc(anvil.rpcUrl, method, params),
    stop: () => anvil.stop(),
  };
}

type Hex = `0x${string}`;

/**
 * A hand-assembled log emitter (no compiler needed): its code reads the calldata as 64-byte records
 * `(topic0, word)` and emits `LOG1(topic0)` with `word` as data for each, so one transaction can emit many logs
 * with chosen topics. Runtime (32 bytes):
 *   PUSH1 0; loop: JUMPDEST; CALLDATASIZE DUP2 LT ISZERO PUSH1 end JUMPI; PUSH1 64 DUP2 PUSH1 0 CALLDATACOPY;
 *   PUSH1 0 MLOAD; PUSH1 32 PUSH1 32 LOG1; PUSH1 64 ADD; PUSH1 loop JUMP; end: JUMPDEST STOP
 * Init code copies the runtime to memory and returns it.
 */
export const EMITTER_RUNTIME: Hex = '0x60005b36811015601e5760408160003760005160206020a16040016002565b00';
export const EMITTER_INIT: Hex = `0x602080600b6000396000f3${EMITTER_RUNTIME.slice(2)}`;

/** Calldata for the emitter: one log per record. */
export function emitterCalldata(records: readonly { topic: Hex; word: Hex | bigint }[]): Hex {
  const body = records
    .map((r) => {
      const word = typeof r.word === 'bigint' ? r.word.toString(16) : r.word.slice(2);
      return r.topic.slice(2).padStart(64, '0') + word.padStart(64, '0');
    })
    .join('');
  return `0x${body}`;
}

/** Sends from one of anvil's unlocked accounts; anvil fills nonce and fees (works with automine off too). */
export function sendTx(anvil: AnvilLite, tx: { from: Hex; to?: Hex; data: Hex; gas?: number }): Promise<Hex> {
  return anvil.rpc<Hex>('eth_sendTransaction', [
    { from: tx.from, ...(tx.to ? { to: tx.to } : {}), data: tx.data, gas: `0x${(tx.gas ?? 3_000_000).toString(16)}` },
  ]);
}

export async function receiptOf(
  anvil: AnvilLite,
  hash: Hex,
): Promise<{ contractAddress: Hex | null; blockNumber: Hex; status: Hex }> {
  for (let i = 0; i < 200; i++) {
    const r = await anvil.rpc<{ contractAddress: Hex | null; blockNumber: Hex; status: Hex } | null>(
      'eth_getTransactionReceipt',
      [hash],
    );
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no receipt for ${hash}`);
}

/** Deploys the emitter (automine on) and returns its address. */
export async function deployEmitter(anvil: AnvilLite, from: Hex): Promise<Hex> {
  const hash = await sendTx(anvil, { from, data: EMITTER_INIT, gas: 200_000 });
  const receipt = await receiptOf(anvil, hash);
  if (!receipt.contractAddress || receipt.status !== '0x1') throw new Error('emitter deployment failed');
  return receipt.contractAddress.toLowerCase() as Hex;
}
