/**
 * A thin JSON-RPC proxy on loopback in front of an L2 anvil: what `RPC_URL_OPTIMISM` / `RPC_URL_ARBITRUM` point at.
 * It forwards every read to anvil and lets a shaper add what the real node would answer (OP receipts' `l1*` fields,
 * Nitro's internal transaction). It is read-only: methods that change the chain (sending transactions, `anvil_*`,
 * `evm_*`) are refused, since only the sandbox's driver mines, straight on anvil, and a stray transaction would land
 * ahead of a block's system transaction.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Forward = (method: string, params: readonly unknown[]) => Promise<unknown>;

export interface Shaper {
  /**
   * The shaped answer of `method`: `forward` reaches anvil (it throws an RpcFailure for anvil's error answers).
   * Return `undefined` to answer anvil's result unchanged.
   */
  shape(method: string, params: readonly unknown[], forward: Forward): Promise<{ result: unknown } | undefined>;
}

export class RpcFailure extends Error {
  constructor(readonly error: { code: number; message: string; data?: unknown }) {
    super(error.message);
  }
}

const REFUSED = /^(eth_send|eth_sign|anvil_|evm_|hardhat_|debug_setHead|miner_|personal_|admin_)/;

export interface RpcProxy {
  readonly url: string;
  close(): Promise<void>;
}

interface Request {
  readonly jsonrpc?: string;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

export async function startRpcProxy(upstream: string, shaper: Shaper): Promise<RpcProxy> {
  let nextId = 1;
  const forward: Forward = async (method, params) => {
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
    if (body.error) throw new RpcFailure(body.error);
    return body.result ?? null;
  };

  const one = async (req: Request) => {
    const id = req.id ?? null;
    if (typeof req.method !== 'string') {
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } };
    }
    const params = Array.isArray(req.params) ? req.params : [];
    if (REFUSED.test(req.method)) {
      return {
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: `${req.method} is not served: this sandbox chain's proxy is read-only` },
      };
    }
    try {
      const shaped = await shaper.shape(req.method, params, forward);
      const result = shaped ? shaped.result : await forward(req.method, params);
      return { jsonrpc: '2.0', id, result };
    } catch (err) {
      if (err instanceof RpcFailure) return { jsonrpc: '2.0', id, error: err.error };
      return { jsonrpc: '2.0', id, error: { code: -32603, message: (err as Error).message } };
    }
  };

  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
        return;
      }
      const answer = Array.isArray(body)
        ? await Promise.all(body.map((r) => one(r as Request)))
        : await one(body as Request);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
