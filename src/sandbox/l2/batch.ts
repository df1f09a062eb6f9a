/** One JSON-RPC batch to a layer-2 chain's node: the answers in call order; an error answer throws, naming its method. */
export async function batch(url: string, calls: readonly [string, readonly unknown[]][]): Promise<unknown[]> {
  if (!calls.length) return [];
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))),
    signal: AbortSignal.timeout(120_000),
  });
  const body = (await res.json()) as { id: number; result?: unknown; error?: { message: string } }[];
  const out: unknown[] = [];
  for (const r of body) {
    if (r.error) throw new Error(`${calls[r.id]?.[0]}: ${r.error.message}`);
    out[r.id] = r.result;
  }
  return out;
}
