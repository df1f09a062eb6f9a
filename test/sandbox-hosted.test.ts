/**
 * A protocol hosted on a layer-2 sandbox chain (issue 25 item 2): a small protocol of the test's own
 * (test/fixtures/sandbox-ticker: one folder, one entry of the list this test passes) on the Arbitrum chain, whose
 * contract emits an event each step. It is deployed and animated through the world's deployment, chain session and
 * agents; its transactions join the chain's Nitro-shaped blocks beside the generic traffic; it shows in the address
 * book of Arbitrum, in `sandbox info --json`, and a small area part finds it from its entry point in the book and
 * ingests its events through the EVM source, as an area reads a protocol on Ethereum.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type AddressBook, bookEntry } from '../src/registry/address-book.js';
import { deploymentAnnouncement, l2Announcement, sandboxManifests } from '../src/runtime/sources.js';
import { jsonRpc } from '../src/sandbox/chain/anvil.js';
import { type L2Chains, openL2Chains } from '../src/sandbox/l2/index.js';
import { ARBITRUM_CHAIN_ID } from '../src/sandbox/l2/nitro.js';
import { PROTOCOLS } from '../src/sandbox/protocols/index.js';
import { addressBookFromManifests } from '../src/sandbox/world/address-book.js';
import type { WorldManifest } from '../src/sandbox/world/manifest.js';
import { openWorld, type World, type WorldDriver } from '../src/sandbox/world/world.js';
import { EvmChains } from '../src/sources/evm/chains.js';
import { TICK_TOPIC, TICKER_BOOK_KEY, type TickerSection, ticker } from './fixtures/sandbox-ticker/protocol.js';
import { cli } from './helpers.js';
import { useTempDirs } from './support/temp-dirs.js';

const log = pino({ level: 'silent' });
const worlds: World[] = [];
const l2s: L2Chains[] = [];
const tempDir = useTempDirs(async () => {
  await Promise.all(l2s.map((c) => c.stop()));
  await Promise.all(worlds.map((w) => w.stop()));
});

const GENESIS = 1_790_000_000 - (1_790_000_000 % 3600);
/** 3 h 2 min after genesis: three hourly blocks and two one-minute blocks after the setup block. */
const clock = { nowMs: () => (GENESIS + 3 * 3600 + 120) * 1000 };
const STEPS = 5;
/**
 * The list of this test: the production list without its own Arbitrum protocols (GMX, whose blocks and counts are
 * its own test's: protocols/gmx/gmx.test.ts), and the ticker last on its chain.
 */
const LIST = [...PROTOCOLS.filter((p) => p.chain !== 'arbitrum'), ticker];

/** The Ethereum world is not what this test is about: a manifest without contracts, one empty block per step. */
const emptyWorld: WorldDriver = {
  async deployWorld(_rpcUrl, { seed, startTimestamp }) {
    const manifest: WorldManifest = {
      seed,
      chain: 'ethereum',
      chainId: 31337,
      genesisTimestamp: startTimestamp,
      deployer: '0x0000000000000000000000000000000000000001',
      weth: '0x0000000000000000000000000000000000000002',
      tokens: [],
      dex: [],
      pools: [],
    };
    return { manifest, state: { lastTimestamp: startTimestamp, prices: {}, step: 0 } };
  },
  async simulate(rpcUrl, _manifest, state, until, { stepSeconds }) {
    let { lastTimestamp } = state;
    while (lastTimestamp + stepSeconds <= until) {
      lastTimestamp += stepSeconds;
      await jsonRpc(rpcUrl, 'evm_mine', [lastTimestamp]);
    }
    return { ...state, lastTimestamp };
  },
};

/**
 * The small area part: it knows the protocol by its book key only, takes the entry point from the address book of
 * the chain and reads the events through the chain's EVM source (the proxy's Nitro-shaped answers).
 */
async function ingestTicks(book: AddressBook, chains: EvmChains, chain: string) {
  const entry = bookEntry(book, chain, TICKER_BOOK_KEY);
  if (!entry) return [];
  const source = chains.source(chain);
  const head = await source.blockNumber();
  const logs = await source.getLogs({
    addresses: [entry.address as `0x${string}`],
    topics: [TICK_TOPIC],
    fromBlock: entry.startBlock ?? 0,
    toBlock: head,
  });
  return logs.map((l) => ({
    block: l.blockNumber,
    tx: l.transactionHash,
    index: l.transactionIndex,
    step: BigInt(l.data),
  }));
}

type Json = Record<string, unknown>;

describe('a protocol hosted on the Arbitrum sandbox chain', () => {
  it('deploys and ticks in the chain blocks, shows in the address book and sandbox info, and is ingested', async () => {
    const dataDir = tempDir('sandbox-hosted-');
    const world = await openWorld({
      dataDir,
      seed: 5,
      days: 1,
      blockSeconds: 60,
      scale: 1,
      live: false,
      driver: emptyWorld,
      clock,
      genesisTimestamp: GENESIS,
      log,
    });
    worlds.push(world);
    await world.caughtUp;
    const l2 = await openL2Chains({
      dataDir,
      seed: 5,
      genesisTimestamp: GENESIS,
      blockSeconds: 60,
      log,
      clock,
      live: false,
      kinds: ['arbitrum', 'optimism'],
      protocols: LIST,
    });
    l2s.push(l2);
    await l2.caughtUp;
    const arbitrum = l2.chains.find((c) => c.kind === 'arbitrum')!;
    const optimism = l2.chains.find((c) => c.kind === 'optimism')!;
    // Only the chain the protocol declares hosts a world; the other keeps its generic traffic alone.
    expect(optimism.manifest).toBeUndefined();
    expect(arbitrum.manifest).toMatchObject({
      chain: 'arbitrum',
      chainId: ARBITRUM_CHAIN_ID,
      genesisTimestamp: GENESIS,
    });
    const section = arbitrum.manifest!.sections?.ticker as TickerSection;
    expect(section.startBlock).toBe(1);

    // The address book: per chain, the ticker under Arbitrum's, found from its entry point as on Ethereum.
    const manifests = sandboxManifests(world, l2);
    const book = addressBookFromManifests(manifests, LIST);
    expect(Object.keys(book.chains).sort()).toEqual(['arbitrum', 'ethereum']);
    expect(book.chains.arbitrum!.chainId).toBe(ARBITRUM_CHAIN_ID);
    expect(bookEntry(book, 'arbitrum', TICKER_BOOK_KEY)).toEqual({ address: section.address.toLowerCase() });
    expect(bookEntry(book, 'ethereum', TICKER_BOOK_KEY)).toBeUndefined();
    // The hosted world's tokens are Arbitrum's (its own WETH and the plan's tokens, on that chain).
    expect(book.chains.arbitrum!.tokens.WETH?.address).toBe(arbitrum.manifest!.weth.toLowerCase());

    // Its transactions are in the chain's blocks: after the internal transaction and the generic traffic, one per
    // step, with Nitro's receipt fields.
    const url = arbitrum.rpcUrl;
    const head = Number(await jsonRpc<string>(url, 'eth_blockNumber', []));
    expect(head).toBe(1 + STEPS);
    let traffic = 0;
    for (let n = 2; n <= head; n++) {
      const block = await jsonRpc<Json & { transactions: Json[] }>(url, 'eth_getBlockByNumber', [
        `0x${n.toString(16)}`,
        true,
      ]);
      expect(Number(block.transactions[0]!.type)).toBe(0x6a);
      const last = block.transactions.at(-1)!;
      expect(String(last.to).toLowerCase()).toBe(section.address.toLowerCase());
      traffic += block.transactions.length - 2;
      const receipt = await jsonRpc<Json>(url, 'eth_getTransactionReceipt', [last.hash]);
      expect(receipt.status).toBe('0x1');
      expect(BigInt(receipt.gasUsedForL1 as string)).toBeGreaterThan(0n);
      expect(BigInt(receipt.gasUsed as string)).toBeLessThanOrEqual(BigInt(last.gas as string));
    }
    expect(traffic).toBeGreaterThan(0);
    // The genesis block's deployments (the world's tokens, the ticker) and one tick per step.
    expect(arbitrum.status().stats.hosted).toBe(arbitrum.manifest!.tokens.length + 1 + STEPS);
    expect(arbitrum.manifest!.tokens.every((t) => BigInt(t.address) !== 0n)).toBe(true);

    // The area part: the book's entry point, the EVM source, one event per step, each step's number in order.
    const chains = new EvmChains([{ id: 'arbitrum', rpcUrl: url, finalityDepth: 0 }]);
    const ticks = await ingestTicks(book, chains, 'arbitrum');
    expect(ticks.map((t) => t.step)).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(ticks.map((t) => t.block)).toEqual([2, 3, 4, 5, 6]);
    // Nitro's indices: the internal transaction is index 0, so no hosted transaction is.
    for (const t of ticks) expect(t.index).toBeGreaterThan(0);
    // On Ethereum's book, the same part finds nothing to read.
    expect(await ingestTicks(book, chains, 'ethereum')).toEqual([]);

    // `sandbox info --json`: every chain's contracts, and the address book, as `start` announces them.
    await world.announce({ ...l2Announcement(l2), ...deploymentAnnouncement(manifests, LIST) });
    const [info, text] = await Promise.all([
      cli(['sandbox', 'info', '--json'], { DATA_DIR: dataDir }),
      cli(['sandbox', 'info'], { DATA_DIR: dataDir }),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`ticker Ticker  ${section.address.toLowerCase()}`);
    expect(info.code).toBe(0);
    const doc = JSON.parse(info.stdout);
    expect(doc.chains.arbitrum).toMatchObject({ rpc_url: url, chain_id: ARBITRUM_CHAIN_ID });
    expect(doc.chains.arbitrum.contracts).toContainEqual({
      address: section.address.toLowerCase(),
      name: 'Ticker',
      protocol: 'ticker',
    });
    expect(doc.chains.optimism.contracts).toBeUndefined();
    expect(doc.address_book.chains.arbitrum.entries[TICKER_BOOK_KEY]).toEqual({
      address: section.address.toLowerCase(),
    });

    // Saved and resumed with the chain: the hosted world goes on where it stopped.
    await l2.stop();
    const later = { nowMs: () => (GENESIS + 4 * 3600 + 120) * 1000 };
    const again = await openL2Chains({
      dataDir,
      seed: 5,
      genesisTimestamp: GENESIS,
      blockSeconds: 60,
      log,
      clock: later,
      live: false,
      kinds: ['arbitrum'],
      protocols: LIST,
    });
    l2s.push(again);
    await again.caughtUp;
    const resumed = again.chains[0]!;
    expect(resumed.manifest).toEqual(arbitrum.manifest);
    const more = await ingestTicks(
      book,
      new EvmChains([{ id: 'arbitrum', rpcUrl: resumed.rpcUrl, finalityDepth: 0 }]),
      'arbitrum',
    );
    expect(more.map((t) => t.step)).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
  }, 240_000);

  it("on Optimism: the hosted transactions follow the L1-attributes deposit and carry op-geth's fee fields", async () => {
    const dataDir = tempDir('sandbox-hosted-op-');
    const onOptimism = { ...ticker, chain: 'optimism' as const };
    const l2 = await openL2Chains({
      dataDir,
      seed: 5,
      genesisTimestamp: GENESIS,
      blockSeconds: 60,
      log,
      clock,
      live: false,
      kinds: ['optimism'],
      protocols: [...PROTOCOLS, onOptimism],
    });
    l2s.push(l2);
    await l2.caughtUp;
    const op = l2.chains[0]!;
    const section = op.manifest!.sections?.ticker as TickerSection;
    const book = addressBookFromManifests([op.manifest!], [onOptimism]);
    expect(bookEntry(book, 'optimism', TICKER_BOOK_KEY)).toEqual({ address: section.address.toLowerCase() });
    const url = op.rpcUrl;
    for (let n = 2; n <= 1 + STEPS; n++) {
      const block = await jsonRpc<Json & { transactions: Json[] }>(url, 'eth_getBlockByNumber', [
        `0x${n.toString(16)}`,
        true,
      ]);
      expect(Number(block.transactions[0]!.type)).toBe(0x7e);
      const last = block.transactions.at(-1)!;
      expect(String(last.to).toLowerCase()).toBe(section.address.toLowerCase());
      const receipt = await jsonRpc<Json>(url, 'eth_getTransactionReceipt', [last.hash]);
      expect(receipt.status).toBe('0x1');
      expect(BigInt(receipt.l1Fee as string)).toBeGreaterThan(0n);
      expect(receipt.l1BaseFeeScalar).toBeDefined();
    }
    const ticks = await ingestTicks(
      book,
      new EvmChains([{ id: 'optimism', rpcUrl: url, finalityDepth: 0 }]),
      'optimism',
    );
    expect(ticks.map((t) => t.step)).toEqual([1n, 2n, 3n, 4n, 5n]);
  }, 240_000);
});
