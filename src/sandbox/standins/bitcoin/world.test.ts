import { schnorr, secp256k1 } from '@noble/curves/secp256k1';
import { crypto, script, Transaction } from 'bitcoinjs-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../../test/support/temp-dirs.js';
import { BitcoinChain, REGTEST } from './chain.js';
import { classify } from './script.js';
import { BitcoinWorld } from './world.js';

const NOW = Date.UTC(2026, 10, 20, 9, 30, 0) / 1000;
const dir = makeTempDir('btc-world');
afterAll(() => dir.remove());

const world = BitcoinWorld.open({ seed: 5, nowSeconds: NOW, days: 1 });

describe('the Bitcoin stand-in world', () => {
  it('is a function of the seed and the clock: the same bytes again, a later clock only adds blocks', () => {
    const again = BitcoinWorld.open({ seed: 5, nowSeconds: NOW, days: 1 });
    expect(again.chain.tip!.hash).toBe(world.chain.tip!.hash);
    const later = BitcoinWorld.open({ seed: 5, nowSeconds: NOW + 7200, days: 1 });
    expect(later.chain.height).toBeGreaterThan(world.chain.height);
    expect(later.chain.entry(world.chain.height)!.hash).toBe(world.chain.tip!.hash);
    expect(BitcoinWorld.open({ seed: 6, nowSeconds: NOW, days: 1 }).chain.tip!.hash).not.toBe(world.chain.tip!.hash);
  });

  it('keeps its chain on disk and continues it on the next start as one run would have', () => {
    const first = BitcoinWorld.open({ seed: 5, nowSeconds: NOW, days: 1, dir: dir.path });
    expect(first.chain.tip!.hash).toBe(world.chain.tip!.hash);
    const second = BitcoinWorld.open({ seed: 5, nowSeconds: NOW + 7200, days: 1, dir: dir.path });
    const straight = BitcoinWorld.open({ seed: 5, nowSeconds: NOW + 7200, days: 1 });
    expect(second.chain.tip!.hash).toBe(straight.chain.tip!.hash);
  });

  it('builds valid blocks: a fresh chain with every check accepts them, at ~10-minute intervals over the history', () => {
    const check = new BitcoinChain(REGTEST);
    for (const e of world.chain.entries) check.connect(e.raw);
    expect(check.tip!.hash).toBe(world.chain.tip!.hash);
    const regular = world.chain.entries.filter((e) => e.height > 111);
    const gaps = regular.map((e) => e.time - world.chain.entry(e.height - 1)!.time);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(mean).toBeGreaterThan(400);
    expect(mean).toBeLessThan(800);
    expect(world.chain.tip!.time).toBeLessThanOrEqual(NOW);
    expect(world.chain.tip!.time).toBeGreaterThan(NOW - 3 * 3600);
  });

  it('spends real coins with valid signatures, on P2WPKH, P2PKH and P2TR', () => {
    const seen = new Set<string>();
    let verified = 0;
    for (const entry of world.chain.entries.slice(-60)) {
      const txs = entry.block.transactions ?? [];
      for (const [i, tx] of txs.entries()) {
        if (i === 0) continue;
        const coins = entry.undo[i]!;
        const scripts = coins.map((c) => c.script);
        const values = coins.map((c) => BigInt(c.value));
        for (const [n, coin] of coins.entries()) {
          const type = classify(coin.script);
          seen.add(type);
          const input = tx.ins[n]!;
          if (type === 'witness_v1_taproot') {
            const hash = tx.hashForWitnessV1(n, scripts, values, Transaction.SIGHASH_DEFAULT);
            expect(schnorr.verify(input.witness[0]!, hash, coin.script.subarray(2))).toBe(true);
          } else {
            const [sig, pub] =
              type === 'witness_v0_keyhash' ? input.witness : (script.decompile(input.script) as Uint8Array[]);
            expect(crypto.hash160(pub!)).toEqual(
              coin.script.subarray(type === 'pubkeyhash' ? 3 : 2, type === 'pubkeyhash' ? 23 : 22),
            );
            const pkh = Uint8Array.from([0x76, 0xa9, 0x14, ...crypto.hash160(pub!), 0x88, 0xac]);
            const hash =
              type === 'witness_v0_keyhash'
                ? tx.hashForWitnessV0(n, pkh, values[n]!, Transaction.SIGHASH_ALL)
                : tx.hashForSignature(n, pkh, Transaction.SIGHASH_ALL);
            const decoded = script.signature.decode(sig!);
            expect(secp256k1.verify(decoded.signature, hash, pub!)).toBe(true);
          }
          verified++;
        }
      }
    }
    expect(verified).toBeGreaterThan(50);
    expect([...seen].sort()).toEqual(['pubkeyhash', 'witness_v0_keyhash', 'witness_v1_taproot']);
  });

  it('has a mempool of the next block’s transactions that have arrived', () => {
    const next = world.blockTime(world.chain.height + 1);
    const all = world.mempool(next);
    expect(all.length).toBeGreaterThan(0);
    const half = world.mempool(Math.floor((world.chain.tip!.time + next) / 2));
    expect(half.length).toBeLessThanOrEqual(all.length);
    expect(world.mempool(world.chain.tip!.time).length).toBe(0);
  });
});

describe('the stand-in on a first start', () => {
  it('builds its chain on a thread, answers "warming up" (-28) meanwhile, and serves it once built', async () => {
    const { STANDINS } = await import('../index.js');
    const { configWith, loadConfig } = await import('../../../config/index.js');
    const { BitcoinSource } = await import('../../../sources/bitcoin/source.js');
    const fresh = makeTempDir('btc-first');
    const clock = { nowMs: () => NOW * 1000 };
    const entry = STANDINS.find((s) => s.kind === 'bitcoin')!;
    const started = await entry.start({ seed: 5, clock, dataDir: fresh.path, days: 1 });
    try {
      expect(started).toMatchObject({
        service: 'bitcoin',
        label: 'sandbox:bitcoin:regtest',
        info: { url: started.url, rpc_user: 'sandbox', rpc_password: 'sandbox' },
        chain: { id: 'bitcoin', rpc_url: started.url, rpc_user: 'sandbox', rpc_password: 'sandbox' },
      });
      // The production keys, as an operator would set them.
      const config = configWith(loadConfig({}), started.config);
      expect(config.bitcoin).toMatchObject({ rpcUrl: started.url, user: 'sandbox', password: 'sandbox' });
      const early = await fetch(started.url, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getblockcount' }),
      });
      // Still building: Core's RPC_IN_WARMUP (the thread takes a second or more for a day of history).
      expect(((await early.json()) as { error?: { code: number } }).error?.code).toBe(-28);
      const source = new BitcoinSource({
        url: started.url,
        user: 'sandbox',
        password: 'sandbox',
        baseDelayMs: 200,
        maxDelayMs: 500,
        maxRetries: 60,
      });
      expect(await source.blockCount()).toBe(world.chain.height);
      expect(await source.blockHash(world.chain.height)).toBe(world.chain.tip!.hash);
    } finally {
      await started.close();
      fresh.remove();
    }
  });
});
