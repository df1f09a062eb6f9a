import { readFileSync } from 'node:fs';
import { address, Block, networks } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BitcoinL1Record, BitcoinTransactionRecord } from '../src/areas/blockchain/bitcoin/schema.js';
import { blockchainArea } from '../src/areas/blockchain/index.js';
import { PATHS } from '../src/areas/index.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { DAY, isoSeconds, startOfUtcDay, utcDate } from '../src/core/time.js';
import { registry } from '../src/registry/index.js';
import type { BitcoinStandin } from '../src/sandbox/standins/bitcoin/server.js';
import { EvmChains } from '../src/sources/evm/chains.js';
import { DatasetRepository } from '../src/store/datasets.js';
import type { Store } from '../src/store/db.js';
import { TestClock, testStore } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { startTestSources, type TestSources } from './support/sources.js';
import { checkDocument, modelPathsOf } from './support/vocabulary.js';

/**
 * Bitcoin end to end: the stand-in (2 days of real regtest blocks) read by the blockchain area's Bitcoin jobs, and
 * the published daily records checked against a recount made here from the raw blocks alone (`getblock <hash> 0`
 * parsed with bitcoinjs-lib; fees from the outputs of the parsed earlier blocks): counts equal, satoshis exact.
 * Then the node stops answering: the days already published keep their figures, the new day is null with
 * `source_error`.
 */
const clock = new TestClock(Date.UTC(2026, 10, 20, 15, 30, 0));
let opened: TestSources;
let node: BitcoinStandin;
let store: Store;
let cleanup: () => Promise<void>;
let runner: ReturnType<typeof areaRunner>;

async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('sandbox:sandbox').toString('base64')}` },
    body: JSON.stringify({ jsonrpc: '1.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result: unknown; error: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

async function documentOf(path: string) {
  const row = await new DatasetRepository(store.db).get(path);
  if (!row) throw new Error(`no document ${path}`);
  return { data: JSON.parse(row.payload) as unknown[], meta: JSON.parse(row.meta) as Record<string, unknown>, row };
}

/** The address of an output script (none for OP_RETURN and other non-standard scripts). */
function addressOf(script: Uint8Array): string | undefined {
  // Taproot (OP_1 <32 bytes>): bitcoinjs-lib wants an ECC library for it, which the bech32m encoding does not need.
  if (script.length === 34 && script[0] === 0x51 && script[1] === 0x20) {
    return address.toBech32(script.subarray(2), 1, networks.regtest.bech32);
  }
  try {
    return address.fromOutputScript(script, networks.regtest);
  } catch {
    return undefined;
  }
}

interface DayTruth {
  txs: number;
  fees: bigint;
  blocks: number;
  /** Distinct addresses of the outputs created and the outputs spent. */
  addresses: Set<string>;
  /** Distinct addresses of the outputs spent. */
  senders: Set<string>;
}

/** Per UTC day: transactions, fees and addresses recounted from the raw blocks. */
async function recount(): Promise<Map<string, DayTruth>> {
  const outputs = new Map<string, { value: bigint; address: string | undefined }>();
  const days = new Map<string, DayTruth>();
  const tip = (await rpc('getblockcount')) as number;
  for (let h = 0; h <= tip; h++) {
    const hash = (await rpc('getblockhash', [h])) as string;
    const block = Block.fromHex((await rpc('getblock', [hash, 0])) as string);
    const day = utcDate(block.timestamp);
    const entry = days.get(day) ?? {
      txs: 0,
      fees: 0n,
      blocks: 0,
      addresses: new Set<string>(),
      senders: new Set<string>(),
    };
    entry.blocks++;
    for (const [i, tx] of (block.transactions ?? []).entries()) {
      entry.txs++;
      const txid = tx.getId();
      if (i > 0) {
        let valueIn = 0n;
        for (const input of tx.ins) {
          const key = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
          const spent = outputs.get(key);
          if (spent === undefined) throw new Error(`block ${h}: spends unknown output ${key}`);
          outputs.delete(key);
          valueIn += spent.value;
          if (spent.address) {
            entry.addresses.add(spent.address);
            entry.senders.add(spent.address);
          }
        }
        entry.fees += valueIn - tx.outs.reduce((s, o) => s + o.value, 0n);
      }
      for (const [n, out] of tx.outs.entries()) {
        const a = addressOf(out.script);
        if (a) entry.addresses.add(a);
        outputs.set(`${txid}:${n}`, { value: out.value, address: a });
      }
    }
    days.set(day, entry);
  }
  return days;
}

async function ingestAll() {
  for (let i = 0; i < 10; i++) {
    const summary = await runner.run('blockchain.bitcoin.ingest');
    if (summary?.startsWith('no new block')) return;
  }
}

beforeAll(async () => {
  // Bitcoin Core's stand-in started and its source opened as `start` does.
  opened = await startTestSources({ kinds: ['bitcoin'], clock, seed: 11, days: 2 });
  node = opened.server('bitcoin');
  // Its chain is built on a thread into the data directory, as in the sandbox; the recount reads it whole.
  await node.ready;
  ({ store, cleanup } = testStore());
  await store.migrate();
  const env: AreaEnv = {
    config: opened.config,
    registry,
    book: { origin: 'registry', chains: {} },
    // The area also reads an EVM chain here (never reached: only the Bitcoin part's jobs run), so that the test
    // holds Bitcoin's documents to their own part's label rather than the area's (which would name ethereum:1 too).
    sources: opened.sources.with(
      'evm',
      new EvmChains([{ id: 'ethereum', rpcUrl: 'http://127.0.0.1:9', finalityDepth: 64 }]),
    ),
  };
  runner = areaRunner(blockchainArea, env, store, clock);
}, 60_000);

afterAll(async () => {
  await opened?.close();
  await cleanup();
});

describe('Bitcoin on the sandbox, end to end', () => {
  it('publishes 7 daily records whose transaction counts and fees equal a recount from raw blocks', async () => {
    await ingestAll();
    expect(await runner.run('blockchain.bitcoin.compute')).toMatch(/^published 3 documents/);
    const tx = await documentOf('/data/blockchain/bitcoin/transaction-statistics');
    expect(tx.meta).toMatchObject({ methodology: 'blockchain.bitcoin-counting@1.2.0' });
    expect(tx.row.meta).toContain('sandbox:bitcoin:regtest');
    const records = tx.data as BitcoinTransactionRecord[];
    const today = startOfUtcDay(clock.nowMs() / 1000);
    expect(records.map((r) => r.date)).toEqual(Array.from({ length: 7 }, (_, i) => utcDate(today - i * DAY)));
    expect(records.map((r) => r.partial)).toEqual([true, false, false, false, false, false, false]);

    const truth = await recount();
    let checked = 0;
    for (const record of records) {
      const day = truth.get(record.date);
      if (!day) {
        // A day without blocks: null figures with a reason.
        expect(record).toMatchObject({ tx_count: null, fees_total_sat: null, gap_reason: 'no_data' });
        continue;
      }
      expect(record.tx_count).toBe(day.txs);
      expect(record.block_count).toBe(day.blocks);
      expect(record.coinbase_tx_count).toBe(day.blocks);
      expect(record.fees_total_sat).toBe(day.fees.toString());
      expect(record.active_senders).toBe(day.senders.size);
      expect(record.active_addresses).toBe(day.addresses.size);
      expect(record.fees_total_usd).toBeNull();
      // The price the USD figures use, named as on EVM records: here none (no BTC-USD feed, no WBTC pool).
      expect(record.native_price).toBeNull();
      expect(record.gap_reasons).toMatchObject({
        fees_total_usd: 'no_price',
        native_price: 'no_price',
        new_contracts: 'not_applicable',
      });
      checked++;
    }
    // Today, the two days of history and, three days back, the genesis block and the bootstrap blocks of its last
    // hour (they mature the first coinbases): the older days have no block.
    expect(checked).toBe(4);
    expect(records.slice(4).every((r) => r.gap_reason === 'no_data')).toBe(true);
    expect(records[1]!.tx_count! - records[1]!.block_count!).toBeGreaterThan(100);
    expect(BigInt(records[1]!.fees_total_sat!)).toBeGreaterThan(0n);
    expect(records[1]!.tx_type_mix!.outputs).toHaveProperty('p2wpkh');
    expect(records[1]!.tx_type_mix!.inputs).toHaveProperty('p2pkh');
    expect(records[1]!.active_addresses).toBeGreaterThan(20);
    // Senders are some of the day's addresses, not all: outputs are paid to addresses that have not spent.
    expect(records[1]!.active_senders).toBeGreaterThan(0);
    expect(records[1]!.active_senders).toBeLessThan(records[1]!.active_addresses!);

    // Every document follows the vocabulary (docs/vocabulary.md), as test/vocabulary.test.ts checks the others.
    const modelPaths = modelPathsOf(readFileSync('docs/methodology/README.md', 'utf8'));
    for (const path of [
      '/data/blockchain/bitcoin',
      '/data/blockchain/bitcoin/transaction-statistics',
      '/data/blockchain/bitcoin/network-statistics',
    ]) {
      const doc = await documentOf(path);
      const published = {
        path,
        area: 'blockchain',
        data: doc.data,
        meta: { ...(doc.meta as { source: string; methodology?: string }), as_of: isoSeconds(doc.row.as_of) },
      };
      const def = PATHS.find(
        (p) => p.id === (path.endsWith('statistics') ? `blockchain.${path.split('/').at(-1)}` : 'blockchain.l1'),
      );
      expect(checkDocument(published, def, { source: 'sandbox:bitcoin:regtest', modelPaths })).toEqual([]);
    }

    const l1 = (await documentOf('/data/blockchain/bitcoin')).data as BitcoinL1Record[];
    const net1 = l1[1]!.network_statistics;
    // The chain's own document holds both records of each day, as Ethereum's does.
    expect(l1.map((d) => d.transaction_statistics)).toEqual(records);
    expect(l1[1]!.network_statistics).toMatchObject({ final_confirmations: 6 });
    expect(l1[0]!.network_statistics.mempool_tx_count).not.toBeNull();
    expect(l1[1]!.network_statistics.hashrate_144).toBeGreaterThan(0);
    // The hash rates are the node's own at the day's last block.
    for (const window of [144, 2016] as const) {
      const atLast = (await rpc('getnetworkhashps', [window, net1.block_height])) as number;
      const published = net1[`hashrate_${window}`]!;
      expect(Math.abs(published - atLast) / atLast).toBeLessThan(1e-9);
    }
    const net = l1[1]!.network_statistics;
    expect(BigInt(net.chain_work!)).toBe(BigInt(net.block_height! + 1) * 2n);
  }, 60_000);

  it('keeps published days when the node stops answering, and marks the days after with source_error', async () => {
    const before = (await documentOf('/data/blockchain/bitcoin/transaction-statistics'))
      .data as BitcoinTransactionRecord[];
    await node.close();
    clock.advance(DAY);
    await expect(runner.run('blockchain.bitcoin.ingest')).rejects.toThrow();
    expect(await runner.run('blockchain.bitcoin.compute')).toMatch(/^published/);
    const after = (await documentOf('/data/blockchain/bitcoin/transaction-statistics'))
      .data as BitcoinTransactionRecord[];
    expect(after[0]).toMatchObject({ partial: true, tx_count: null, gap_reason: 'source_error' });
    // Yesterday's record (the running day before) is now closed; the full days are unchanged.
    expect(after.slice(2)).toEqual(before.slice(1, 6));
    expect(after[1]!.tx_count).toBeGreaterThanOrEqual(before[0]!.tx_count!);
  }, 60_000);
});
