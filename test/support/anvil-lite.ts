import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';

/**
 * A minimal anvil for the EVM engine's tests: a free loopback port, a spawned platform binary, a readiness wait and
 * a kill. The real sandbox lives in `src/sandbox/`; this helper only exists so engine tests need nothing from it.
 */
export interface AnvilLite {
  readonly url: string;
  readonly port: number;
  /** Sends one JSON-RPC call straight to anvil (no retries): test set-up only. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/** The platform binary itself: the npm wrapper forwards only SIGINT/SIGTERM, so killing it could leave anvil running. */
function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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

export async function startAnvil(options: { timestamp?: number; args?: string[] } = {}): Promise<AnvilLite> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const args = ['--host', '127.0.0.1', '--port', String(port), '--silent'];
    if (options.timestamp !== undefined) args.push('--timestamp', String(options.timestamp));
    args.push(...(options.args ?? []));
    const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitReady(child, url);
    } catch (err) {
      child.kill('SIGKILL');
      // Another process may have taken the port between the probe and the spawn: try a new one.
      if (attempt < 3) continue;
      throw err;
    }
    return {
      url,
      port,
      rpc: (method, params) => rawRpc(url, method, params),
      stop: () => stopChild(child),
    };
  }
}

async function waitReady(child: ChildProcess, url: string): Promise<void> {
  let exited: string | undefined;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.once('exit', (code, signal) => {
    exited = `anvil exited (${code ?? signal}): ${stderr.trim()}`;
  });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(exited);
    try {
      await rawRpc(url, 'eth_chainId');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`anvil did not become ready at ${url}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
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
