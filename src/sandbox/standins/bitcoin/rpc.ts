import { satsToBtc } from '../../../sources/bitcoin/amounts.js';
import { type BitcoinChain, type BlockEntry, difficultyOf } from './chain.js';
import type { MempoolTx } from './world.js';

/**
 * Bitcoin Core's RPC methods the service reads, answered from a chain: the same names, parameters, error codes and
 * messages as Core (src/rpc/blockchain.cpp, mining.cpp, mempool.cpp). Verbose replies carry Core's fields except
 * `asm` and `desc` of scripts (no reader here uses them).
 */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface RpcContext {
  readonly chain: BitcoinChain;
  readonly nowSeconds: number;
  readonly mempool: readonly MempoolTx[];
  /** Blocks below this height have no data (a pruned node). */
  readonly pruneHeight?: number;
  /** Methods this "provider" does not offer. */
  readonly disabled?: ReadonlySet<string>;
}

const PRUNED = 'Block not available (pruned data)';

function blockParam(ctx: RpcContext, value: unknown, method: string): BlockEntry {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > ctx.chain.height) {
      throw new RpcFailure(-8, `Target block height ${value} after current tip ${ctx.chain.height}`);
    }
    return ctx.chain.entry(value)!;
  }
  if (typeof value !== 'string' || !/^[0-9a-fA-F]{64}$/.test(value)) {
    throw new RpcFailure(-8, `${method}: blockhash must be of length 64 (not ${String(value).length})`);
  }
  const entry = ctx.chain.entry(value.toLowerCase());
  if (!entry) throw new RpcFailure(-5, 'Block not found');
  return entry;
}

function requireData(ctx: RpcContext, entry: BlockEntry): void {
  if (ctx.pruneHeight !== undefined && entry.height < ctx.pruneHeight) throw new RpcFailure(-1, PRUNED);
}

const int = (v: unknown, fallback: number): number => (v === undefined || v === null ? fallback : Number(v));

export function dispatch(ctx: RpcContext, method: string, params: readonly unknown[]): unknown {
  if (ctx.disabled?.has(method)) throw new RpcFailure(-32601, 'Method not found');
  const chain = ctx.chain;
  const tip = chain.tip!;
  switch (method) {
    case 'getblockcount':
      return chain.height;
    case 'getbestblockhash':
      return tip.hash;
    case 'getblockhash': {
      const h = params[0];
      if (typeof h !== 'number' || !Number.isInteger(h) || h < 0 || h > chain.height) {
        throw new RpcFailure(-8, 'Block height out of range');
      }
      return chain.entry(h)!.hash;
    }
    case 'getblockchaininfo':
      return {
        chain: chain.params.name,
        blocks: chain.height,
        headers: chain.height,
        bestblockhash: tip.hash,
        bits: (tip.block.bits >>> 0).toString(16).padStart(8, '0'),
        difficulty: difficultyOf(tip.block.bits),
        time: tip.time,
        mediantime: tip.mediantime,
        verificationprogress: 1,
        initialblockdownload: false,
        chainwork: tip.chainwork.toString(16).padStart(64, '0'),
        size_on_disk: chain.entries.reduce((s, e) => s + e.raw.length, 0),
        pruned: ctx.pruneHeight !== undefined,
        ...(ctx.pruneHeight !== undefined ? { pruneheight: ctx.pruneHeight, automatic_pruning: false } : {}),
        warnings: [],
      };
    case 'getblockheader': {
      const entry = blockParam(ctx, params[0], method);
      if (params[1] === false) return Buffer.from(entry.block.toBuffer(true)).toString('hex');
      return chain.headerJson(entry);
    }
    case 'getblock': {
      const entry = blockParam(ctx, params[0], method);
      requireData(ctx, entry);
      const v = params[1] === true ? 1 : params[1] === false ? 0 : int(params[1], 1);
      if (v === 0) return Buffer.from(entry.raw).toString('hex');
      if (v === 1 || v === 2 || v === 3) return chain.blockJson(entry, v);
      throw new RpcFailure(-8, 'Verbosity must be in range 0..3');
    }
    case 'getblockstats': {
      const entry = blockParam(ctx, params[0], method);
      requireData(ctx, entry);
      const stats = chain.stats(entry) as unknown as Record<string, unknown>;
      const wanted = params[1];
      if (!Array.isArray(wanted) || !wanted.length) return stats;
      const out: Record<string, unknown> = {};
      for (const key of wanted) {
        if (typeof key !== 'string' || !(key in stats)) throw new RpcFailure(-8, `Invalid selected statistic '${key}'`);
        out[key] = stats[key];
      }
      return out;
    }
    case 'getchaintxstats': {
      const final = params[1] === undefined || params[1] === null ? tip : blockParam(ctx, params[1], method);
      const month = Math.floor((30 * 24 * 3600) / 600);
      const nblocks = int(params[0], Math.max(0, Math.min(month, final.height - 1)));
      if (nblocks < 0 || (nblocks > 0 && nblocks >= final.height)) {
        throw new RpcFailure(-8, "Invalid block count: should be between 0 and the block's height - 1");
      }
      const txcount = chain.entries
        .slice(0, final.height + 1)
        .reduce((s, e) => s + (e.block.transactions?.length ?? 0), 0);
      const out: Record<string, unknown> = {
        time: final.time,
        txcount,
        window_final_block_hash: final.hash,
        window_final_block_height: final.height,
        window_block_count: nblocks,
      };
      if (nblocks > 0) {
        const start = chain.entry(final.height - nblocks)!;
        const windowTx = chain.entries
          .slice(start.height + 1, final.height + 1)
          .reduce((s, e) => s + (e.block.transactions?.length ?? 0), 0);
        const interval = final.mediantime - start.mediantime;
        Object.assign(out, { window_tx_count: windowTx, window_interval: interval });
        if (interval > 0) out.txrate = windowTx / interval;
      }
      return out;
    }
    case 'getnetworkhashps':
      return chain.networkHashPs(int(params[0], 120), int(params[1], -1));
    case 'getmininginfo':
      return {
        blocks: chain.height,
        bits: (tip.block.bits >>> 0).toString(16).padStart(8, '0'),
        difficulty: difficultyOf(tip.block.bits),
        target: '7fffff0000000000000000000000000000000000000000000000000000000000',
        networkhashps: chain.networkHashPs(120, -1),
        pooledtx: ctx.mempool.length,
        chain: chain.params.name,
        warnings: [],
      };
    case 'getmempoolinfo': {
      const bytes = ctx.mempool.reduce((s, t) => s + t.vsize, 0);
      const fees = ctx.mempool.reduce((s, t) => s + t.fee, 0);
      return {
        loaded: true,
        size: ctx.mempool.length,
        bytes,
        usage: bytes * 4,
        total_fee: satsToBtc(fees),
        maxmempool: 300_000_000,
        mempoolminfee: 0.00001,
        minrelaytxfee: 0.00001,
        incrementalrelayfee: 0.00001,
        unbroadcastcount: 0,
        fullrbf: true,
      };
    }
    default:
      throw new RpcFailure(-32601, 'Method not found');
  }
}

interface Request {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: unknown;
}

/**
 * One JSON-RPC request (or a batch) → Core's reply and HTTP status: a request with `"jsonrpc": "2.0"` gets a 2.0
 * reply (`result` or `error`, HTTP 200; Bitcoin Core ≥ 28), any other the legacy one (`result`, `error` and `id`,
 * with HTTP 500 on error, 404 for an unknown method).
 */
export function handleRpc(body: string, call: (method: string, params: readonly unknown[]) => unknown) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { status: 500, body: { result: null, error: { code: -32700, message: 'Parse error' }, id: null } };
  }
  const one = (req: Request) => {
    const v2 = req.jsonrpc === '2.0';
    const id = req.id ?? null;
    try {
      if (typeof req.method !== 'string') throw new RpcFailure(-32600, 'Method must be a string');
      const params = Array.isArray(req.params) ? req.params : req.params === undefined ? [] : null;
      if (params === null) throw new RpcFailure(-32600, 'Params must be an array');
      const result = call(req.method, params);
      return { status: 200, body: v2 ? { jsonrpc: '2.0', result, id } : { result, error: null, id } };
    } catch (err) {
      if (!(err instanceof RpcFailure)) throw err;
      const error = { code: err.code, message: err.message };
      if (v2) return { status: 200, body: { jsonrpc: '2.0', error, id } };
      const status = err.code === -32601 ? 404 : err.code === -32600 ? 400 : 500;
      return { status, body: { result: null, error, id } };
    }
  };
  if (Array.isArray(parsed)) return { status: 200, body: parsed.map((r) => one(r as Request).body) };
  if (typeof parsed !== 'object' || parsed === null) {
    return {
      status: 400,
      body: { result: null, error: { code: -32600, message: 'Invalid Request object' }, id: null },
    };
  }
  return one(parsed as Request);
}
