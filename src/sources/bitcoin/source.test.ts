import { unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../test/helpers.js';
import { makeTempDir } from '../../../test/support/temp-dirs.js';
import { type BitcoinStandin, startBitcoinStandin } from '../../sandbox/standins/bitcoin/server.js';
import { BitcoinWorld } from '../../sandbox/standins/bitcoin/world.js';
import { AmountError, btcToSats, satsToBtc } from './amounts.js';
import {
  BitcoinAuthError,
  BitcoinError,
  BitcoinMethodUnavailableError,
  BitcoinPrunedError,
  BitcoinRpcError,
} from './errors.js';
import { BitcoinSource } from './source.js';

const clock = new TestClock(Date.UTC(2026, 10, 20, 14, 0, 0));
const dir = makeTempDir('btc-source');
let world: BitcoinWorld;
let node: BitcoinStandin;
const open: BitcoinStandin[] = [];
const noSleep = async () => undefined;

const source = (over: Partial<ConstructorParameters<typeof BitcoinSource>[0]> = {}, standin = node) =>
  new BitcoinSource({ url: standin.url, user: 'sandbox', password: 'sandbox', sleep: noSleep, ...over });

async function standin(options: Partial<Parameters<typeof startBitcoinStandin>[0]> = {}) {
  const s = await startBitcoinStandin({ seed: 7, clock, days: 1, world, ...options });
  open.push(s);
  return s;
}

beforeAll(async () => {
  world = BitcoinWorld.open({ seed: 7, nowSeconds: clock.nowMs() / 1000, days: 1 });
  node = await standin({ dir: dir.path });
});

afterAll(async () => {
  for (const s of open) await s.close();
  dir.remove();
});

/** Heights of blocks with transactions besides the coinbase. */
const busyHeights = () =>
  world.chain.entries.filter((e) => (e.block.transactions?.length ?? 0) > 3).map((e) => e.height);

describe('BitcoinSource', () => {
  it('reads the chain with JSON-RPC 2.0 and legacy 1.0 replies alike', async () => {
    for (const jsonrpc of ['2.0', '1.0'] as const) {
      const s = source({ jsonrpc });
      const info = await s.blockchainInfo();
      expect(info).toMatchObject({ chain: 'regtest', blocks: world.chain.height, pruned: false });
      const h = busyHeights()[0]!;
      const hash = await s.blockHash(h);
      expect(hash).toBe(world.chain.entry(h)!.hash);
      const block = await s.block(hash, 2);
      expect(block.tx.length).toBe(world.chain.entry(h)!.block.transactions!.length);
      expect(await s.rawBlock(hash)).toBe(Buffer.from(world.chain.entry(h)!.raw).toString('hex'));
      expect((await s.mempoolInfo()).size).toBeGreaterThanOrEqual(0);
      expect(await s.networkHashPs(144, h)).toBeGreaterThan(0);
    }
  });

  it('turns RPC errors into typed errors, in both reply forms, without retrying them', async () => {
    for (const jsonrpc of ['2.0', '1.0'] as const) {
      const s = source({ jsonrpc });
      const err = await s.blockHash(world.chain.height + 5).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BitcoinRpcError);
      expect(err).toMatchObject({ code: -8, rpcMessage: 'Block height out of range', retryable: false });
      const unknown = await s.client.call('getfrobnicated').catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(BitcoinMethodUnavailableError);
      const notFound = await s.block('00'.repeat(32), 1).catch((e: unknown) => e);
      expect(notFound).toMatchObject({ code: -5, rpcMessage: 'Block not found' });
      expect(s.client.stats.retries).toBe(0);
    }
  });

  it('refuses wrong credentials at once with an authentication error (never retried, no secret in it)', async () => {
    const s = source({ password: 'hunter2-wrong' });
    const err = await s.blockCount().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BitcoinAuthError);
    expect((err as Error).message).not.toContain('hunter2');
    expect((err as BitcoinError).retryable).toBe(false);
    expect(s.client.stats.requests).toBe(1);
  });

  it('authenticates with the cookie file and reads it again after the node rewrites it', async () => {
    const s = new BitcoinSource({ url: node.url, cookieFile: node.cookieFile, sleep: noSleep });
    expect(await s.blockCount()).toBe(world.chain.height);
    node.rotateCookie();
    expect(await s.blockCount()).toBe(world.chain.height);
    expect(s.client.stats.cookieReads).toBe(2);
    // A cookie that stays wrong after re-reading is an authentication error.
    const stale = path.join(dir.path, 'stale.cookie');
    writeFileSync(stale, '__cookie__:0000');
    const bad = new BitcoinSource({ url: node.url, cookieFile: stale, sleep: noSleep });
    await expect(bad.blockCount()).rejects.toBeInstanceOf(BitcoinAuthError);
    expect(bad.client.stats.cookieReads).toBe(2);
    unlinkSync(stale);
    await expect(bad.blockCount()).rejects.toThrow(/cannot read the cookie file/);
  });

  it('reports a pruned block as BitcoinPrunedError naming the block', async () => {
    const pruned = await standin({ pruneHeight: 50 });
    const s = source({}, pruned);
    expect((await s.blockchainInfo()).pruned).toBe(true);
    const hash = await s.blockHash(10);
    const err = await s.block(hash, 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BitcoinPrunedError);
    expect(err).toMatchObject({ block: hash, retryable: false });
    await expect(s.blockStats(10)).rejects.toBeInstanceOf(BitcoinPrunedError);
    expect((await s.blockStats(60)).height).toBe(60);
  });

  it('computes getblockstats from getblock 3 where the provider disables it, equal to the node’s own', async () => {
    const limited = await standin({ disabled: ['getblockstats'] });
    const s = source({}, limited);
    const full = source();
    const heights = busyHeights().slice(0, 12);
    expect(heights.length).toBeGreaterThan(5);
    for (const h of heights) expect(await s.blockStats(h)).toEqual(await full.blockStats(h));
    expect(s.computesBlockStats).toBe(true);
    expect(s.statsFallbacks).toBe(heights.length);
    expect(full.statsFallbacks).toBe(0);
  });

  it('retries server errors and gives up, retryable, after its attempts', async () => {
    node.faults.inject({ fault: { kind: 'server-error', status: 503 }, times: 2 });
    const s = source();
    expect(await s.blockCount()).toBe(world.chain.height);
    expect(s.client.stats.retries).toBe(2);
    node.faults.inject({ fault: { kind: 'server-error', status: 500 }, times: 10 });
    const err = await source({ maxRetries: 2 })
      .blockCount()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BitcoinError);
    expect((err as BitcoinError).retryable).toBe(true);
    node.faults.inject();
    while (node.faults.pending())
      await source()
        .blockCount()
        .catch(() => undefined);
  });
});

describe('amounts', () => {
  it('Math.round(btc * 1e8) recovers every satoshi count up to 21 M BTC from the printed decimal', () => {
    const max = 21_000_000 * 1e8;
    const samples = [0, 1, 9, 99_999_999, 100_000_001, 2_099_999_999_999_999, max, 123_456_789_012_345];
    let x = 88_172_645_463_325_252n;
    for (let i = 0; i < 20_000; i++) {
      x ^= x << 13n;
      x ^= x >> 7n;
      x ^= x << 17n;
      x &= (1n << 64n) - 1n;
      samples.push(Number(x % BigInt(max + 1)));
    }
    for (const sats of samples) {
      const printed = `${Math.floor(sats / 1e8)}.${String(sats % 1e8).padStart(8, '0')}`;
      expect(btcToSats(Number(printed))).toBe(sats);
      expect(btcToSats(satsToBtc(sats))).toBe(sats);
    }
  });

  it('refuses what is not an amount', () => {
    expect(() => btcToSats(Number.NaN)).toThrow(AmountError);
    expect(() => btcToSats(21_000_001)).toThrow(AmountError);
  });
});
