import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockchainArea } from '../src/areas/blockchain/index.js';
import { BLOCKCHAIN_COMPUTATION } from '../src/areas/blockchain/public.js';
import type { AreaEnv } from '../src/areas/kit/module.js';
import { loadConfig } from '../src/config/index.js';
import { registry } from '../src/registry/index.js';
import { EvmChains } from '../src/sources/evm/chains.js';
import { SourceMap } from '../src/sources/index.js';
import { type TestApp, testApp } from './helpers.js';
import { type AnvilLite, sendTx, startAnvil } from './support/anvil-lite.js';
import { areaRunner } from './support/areas.js';

/**
 * Two chains read at once (an anvil as Ethereum, another as Optimism): a reorg rolls back exactly the facts of the
 * abandoned blocks (transactions and senders); one chain's node stopping leaves its documents as published while
 * the other chain's move on; a layer 2 without its system transactions reports the violations and subtracts nothing.
 */

type Hex = `0x${string}`;

interface Tx {
  date: string;
  tx_count: number | null;
  active_senders: number | null;
  active_addresses: number | null;
  fees_total_wei: string | null;
}
interface L2 extends Tx {
  stack: string;
  system_tx_count: number | null;
  system_tx_violations: number | null;
  block_count: number | null;
  l1_data_fee_wei: string | null;
}

describe('blockchain: several chains, reorgs and a stopped node', () => {
  let eth: AnvilLite;
  let op: AnvilLite;
  let t: TestApp;
  let accounts: Hex[];
  let env: AreaEnv;

  const get = async <T>(url: string) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
    return res.json() as { data: T[]; meta: { as_of: string } };
  };
  const runner = () => areaRunner(blockchainArea, env, t.store, t.clock, () => t.sync());
  const ingestAndCompute = async () => {
    const summary = await runner().run('blockchain.ingest');
    await runner().run(BLOCKCHAIN_COMPUTATION);
    await t.sync();
    return summary;
  };
  const today = <T extends { date: string }>(doc: { data: T[] }) => doc.data[0]!;

  beforeAll(async () => {
    [eth, op] = await Promise.all([startAnvil(), startAnvil()]);
    accounts = await eth.rpc<Hex[]>('eth_accounts');
    for (const a of [eth, op]) {
      await sendTx(a, { from: accounts[0]!, to: accounts[1]!, data: '0x' });
      await sendTx(a, { from: accounts[1]!, to: accounts[2]!, data: '0x' });
    }
    t = await testApp();
    t.clock.ms = Date.now();
    env = {
      config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
      registry,
      book: { origin: 'registry', chains: {} },
      sources: new SourceMap({
        evm: new EvmChains(
          [
            { id: 'ethereum', rpcUrl: eth.url, finalityDepth: 8, maxRetries: 0 },
            { id: 'optimism', rpcUrl: op.url, finalityDepth: 8, maxRetries: 0, timeoutMs: 1000 },
          ],
          { log: pino({ level: 'silent' }) },
        ),
      }),
    };
    expect(await ingestAndCompute()).toMatch(/ethereum: .*optimism: /);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await eth?.stop();
    await op?.stop();
  });

  it('a layer 2 without its system transactions counts the violations and subtracts nothing', async () => {
    const r = today(await get<L2>('/data/blockchain/optimism'));
    expect(r.stack).toBe('op');
    expect(r.tx_count).toBe(2);
    expect(r.system_tx_count).toBe(0);
    // Every block but the genesis (which holds no transaction) lacks its system transaction.
    expect(r.block_count).toBe(3);
    expect(r.system_tx_violations).toBe(2);
    expect(r.l1_data_fee_wei).toBe('0');
  });

  it('a reorg rolls back the abandoned blocks’ transactions, senders and recipients', async () => {
    const before = today(await get<Tx>('/data/blockchain/ethereum/transaction-statistics'));
    const snapshot = await eth.rpc<Hex>('evm_snapshot');
    await sendTx(eth, { from: accounts[5]!, to: accounts[6]!, data: '0x' });
    await ingestAndCompute();
    const forked = today(await get<Tx>('/data/blockchain/ethereum/transaction-statistics'));
    expect(forked.tx_count).toBe(before.tx_count! + 1);
    expect(forked.active_senders).toBe(before.active_senders! + 1);
    expect(forked.active_addresses).toBe(before.active_addresses! + 2);
    // The fork is abandoned: the same height now holds another sender's two transactions.
    await eth.rpc('evm_revert', [snapshot]);
    await eth.rpc('evm_setAutomine', [false]);
    await sendTx(eth, { from: accounts[0]!, to: accounts[1]!, data: '0x' });
    await sendTx(eth, { from: accounts[1]!, to: accounts[2]!, data: '0x' });
    await eth.rpc('evm_mine');
    await eth.rpc('evm_setAutomine', [true]);
    expect(await ingestAndCompute()).toMatch(/reorg: rolled back from block/);
    const after = today(await get<Tx>('/data/blockchain/ethereum/transaction-statistics'));
    expect(after.tx_count).toBe(before.tx_count! + 2);
    // accounts[5] sent to accounts[6] only on the abandoned fork: neither is active on the day any more.
    expect(after.active_senders).toBe(before.active_senders);
    expect(after.active_addresses).toBe(before.active_addresses);
  });

  it('one chain’s node stopping leaves its documents intact while the other chain moves on', async () => {
    const opBefore = await get<L2>('/data/blockchain/optimism');
    const ethBefore = today(await get<Tx>('/data/blockchain/ethereum/transaction-statistics'));
    await op.stop();
    await sendTx(eth, { from: accounts[3]!, to: accounts[1]!, data: '0x' });
    await expect(runner().run('blockchain.ingest')).rejects.toThrow(
      /1 of 2 failed \(optimism: .*\); done: ethereum: 1 blocks/,
    );
    expect(await runner().run(BLOCKCHAIN_COMPUTATION)).toMatch(/published/);
    await t.sync();
    const opAfter = await get<L2>('/data/blockchain/optimism');
    expect(opAfter.data).toEqual(opBefore.data);
    expect(opAfter.meta.as_of).toBe(opBefore.meta.as_of);
    const ethAfter = today(await get<Tx>('/data/blockchain/ethereum/transaction-statistics'));
    expect(ethAfter.tx_count).toBe(ethBefore.tx_count! + 1);
  });
});
