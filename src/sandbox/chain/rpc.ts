/**
 * The JSON-RPC client the sandbox's sessions talk to the node with: single calls and batches over fetch (a batch
 * is what makes an hour of trading one HTTP round trip). `jsonRpc` in anvil.ts is the one-shot call used while a
 * node starts.
 */
export interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

export interface RpcResponse {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** A minimal JSON-RPC client over fetch: batches are what make an hour of trading one HTTP round trip. */
export class RpcClient {
  private nextId = 1;

  constructor(readonly url: string) {}

  async request<T>(method: string, params: readonly unknown[] = []): Promise<T> {
    const [response] = await this.post([{ method, params }]);
    if (response?.error) throw new Error(`${method}: ${response.error.message}`);
    return response?.result as T;
  }

  /** Responses in call order; errors are returned, not thrown. */
  async batch(calls: readonly RpcCall[]): Promise<RpcResponse[]> {
    if (calls.length === 0) return [];
    return this.post(calls);
  }

  /** Results in call order; throws on the first error. */
  async batchResults<T>(calls: readonly RpcCall[]): Promise<T[]> {
    const responses = await this.batch(calls);
    return responses.map((r, i) => {
      if (r.error) throw new Error(`${calls[i]!.method}: ${r.error.message}`);
      return r.result as T;
    });
  }

  private async post(calls: readonly RpcCall[]): Promise<RpcResponse[]> {
    const first = this.nextId;
    this.nextId += calls.length;
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })),
    );
    const res = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    if (!res.ok) throw new Error(`RPC ${this.url}: HTTP ${res.status}`);
    const json = (await res.json()) as RpcResponse | RpcResponse[];
    const list = Array.isArray(json) ? json : [json];
    const ordered = new Array<RpcResponse>(calls.length);
    for (const r of list) ordered[r.id - first] = r;
    for (let i = 0; i < ordered.length; i++) {
      ordered[i] ??= { id: first + i, error: { code: -1, message: 'no response in batch' } };
    }
    return ordered;
  }
}
