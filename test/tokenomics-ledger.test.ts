import pino from 'pino';
import { createPublicClient, http, parseAbi, parseAbiItem } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenomicsIngest } from '../src/areas/tokenomics/ingest.js';
import { TokenomicsRepository } from '../src/areas/tokenomics/repo.js';
import { type TokenTarget, tokenomicsTargets } from '../src/areas/tokenomics/targets.js';
import type { JobContext } from '../src/jobs/types.js';
import { runWithStop } from '../src/sources/http.js';
import type { Store } from '../src/store/db.js';
import { testStore } from './helpers.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';

/**
 * The holder ledger on a sandbox world, recounted without the pipeline: every `Transfer` of each token read with
 * viem from block 0 and replayed, and `balanceOf` of every holder at the ledger's block.
 */
const ZERO = '0x0000000000000000000000000000000000000000';

describe('the tokenomics holder ledger on the sandbox', () => {
  let w: TestWorld;
  let store: Store;
  let cleanup: () => Promise<void>;
  let targets: TokenTarget[];
  let summary: string;
  const client = () => createPublicClient({ transport: http(w.world.rpcUrl) });

  const ctx = (): JobContext => ({
    store,
    clock: w.clock,
    log: pino({ level: 'warn' }),
    signal: new AbortController().signal,
    attempt: 1,
    notifyPublished: async () => {},
  });

  beforeAll(async () => {
    w = await smallWorld({ days: 3 });
    ({ store, cleanup } = testStore());
    await store.migrate();
    targets = tokenomicsTargets(w.env);
    const ingest = new TokenomicsIngest(w.env.sources.get('evm')!, targets);
    const c = ctx();
    summary = await runWithStop(c.signal, () => ingest.run(c));
  }, 240_000);

  afterAll(async () => {
    await cleanup?.();
    await w?.close();
  });

  it('reads the registry tokens the world deploys', () => {
    expect(targets.map((t) => t.symbol)).toEqual(expect.arrayContaining(['UNI', 'AAVE', 'LINK']));
    expect(summary).toMatch(/UNI: blocks 0–\d+/);
  });

  it('holds the balances a replay of every Transfer gives, and each equals balanceOf at the ledger block', async () => {
    const repo = new TokenomicsRepository(store.db);
    for (const t of targets) {
      const ledger = (await repo.balances(t.chain, t.address))!;
      const logs = await client().getLogs({
        address: t.address,
        event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
        fromBlock: 0n,
        toBlock: BigInt(ledger.block),
      });
      const replay = new Map<string, bigint>();
      for (const l of logs) {
        const { from, to, value } = l.args as { from: string; to: string; value: bigint };
        const f = from.toLowerCase();
        const d = to.toLowerCase();
        if (f !== ZERO) replay.set(f, (replay.get(f) ?? 0n) - value);
        if (d !== ZERO) replay.set(d, (replay.get(d) ?? 0n) + value);
      }
      for (const [a, v] of replay) if (v === 0n) replay.delete(a);
      expect(ledger.balances, t.symbol).toEqual(replay);
      expect(ledger.balances.size, t.symbol).toBeGreaterThan(3);
      const onchain = await Promise.all(
        [...ledger.balances.keys()].map((a) =>
          client().readContract({
            address: t.address,
            abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
            functionName: 'balanceOf',
            args: [a as `0x${string}`],
            blockNumber: BigInt(ledger.block),
          }),
        ),
      );
      expect(onchain, t.symbol).toEqual([...ledger.balances.values()]);
    }
  });

  it('snapshots the head and past day ends: totalSupply equals the replayed supply, the sample agrees', async () => {
    const repo = new TokenomicsRepository(store.db);
    for (const t of targets) {
      const snaps = await repo.snapshots(t.chain, t.address, 0);
      // The head and the world's past day ends (3 days).
      expect(snaps.length, t.symbol).toBeGreaterThanOrEqual(3);
      for (const s of snaps) {
        expect(s.replayedSupply, `${t.symbol} at ${s.blockNumber}`).toBe(s.totalSupply);
        expect(s.sample.length).toBeGreaterThan(0);
        for (const x of s.sample) expect(x.ledger, `${t.symbol} ${x.address} at ${s.blockNumber}`).toBe(x.onchain);
        const supply = await client().readContract({
          address: t.address,
          abi: parseAbi(['function totalSupply() view returns (uint256)']),
          functionName: 'totalSupply',
          blockNumber: BigInt(s.blockNumber),
        });
        expect(s.totalSupply).toBe(supply);
      }
    }
  });

  it('a second run reads nothing new on a chain that did not move', async () => {
    const ingest = new TokenomicsIngest(w.env.sources.get('evm')!, targets);
    const c = ctx();
    const again = await runWithStop(c.signal, () => ingest.run(c));
    expect(again).not.toMatch(/[1-9]\d* transfers,/);
  });
});
