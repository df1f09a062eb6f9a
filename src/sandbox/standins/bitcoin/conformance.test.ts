import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../../../../test/helpers.js';
import { BitcoinSource } from '../../../sources/bitcoin/source.js';
import { coinbase, mineBlock } from './build.js';
import { BitcoinChain, REGTEST } from './chain.js';
import { type BitcoinStandin, startBitcoinStandin, staticWorld } from './server.js';

/**
 * Conformance of the stand-in's `getblockstats` with Bitcoin Core's: the raw blocks of Core's functional test
 * `test/functional/rpc_getblockstats.py` (its data file `test/functional/data/rpc_getblockstats.json`, repository
 * bitcoin/bitcoin as stored in the reference index, commit 0c7085294339e2e768b07db2f1980ee7abb06ed3, MIT licence)
 * are connected into the stand-in's chain and served over RPC; the source reads `getblockstats` as from a node, and
 * every field must equal the `stats` the file publishes (written out below by hand). The fixture
 * (`test/fixtures/rpc-getblockstats.json`) says how the 101 coinbase-only blocks are stored; the rebuilt chain must
 * reproduce Core's block hash at height 101 and link to block 102, so a single wrong byte fails the test.
 *
 * `utxo_increase_actual` and `utxo_size_inc_actual` came after that file: their values here (OP_RETURN outputs left
 * out: one 47-byte commitment output + 41 bytes of overhead, i.e. 88 bytes, per block) are derived, not Core's.
 */
interface Fixture {
  readonly genesis: string;
  readonly coinbaseOnly: {
    readonly heights: [number, number];
    readonly version: number;
    readonly bits: number;
    readonly scriptPubKey: string;
    readonly times: number[];
    readonly nonces: number[];
  };
  readonly blocks: string[];
}

const fixture = JSON.parse(
  readFileSync(new URL('../../../../test/fixtures/rpc-getblockstats.json', import.meta.url), 'utf8'),
) as Fixture;

/** `stats` of rpc_getblockstats.json, heights 101–103. */
const EXPECTED = [
  {
    avgfee: 0,
    avgfeerate: 0,
    avgtxsize: 0,
    blockhash: '455feeec53bf4b5f6848e4d91b55eb1ee2eb7900d249207d1145382ed772b9f4',
    feerate_percentiles: [0, 0, 0, 0, 0],
    height: 101,
    ins: 0,
    maxfee: 0,
    maxfeerate: 0,
    maxtxsize: 0,
    medianfee: 0,
    mediantime: 1536411753,
    mediantxsize: 0,
    minfee: 0,
    minfeerate: 0,
    mintxsize: 0,
    outs: 2,
    subsidy: 5000000000,
    swtotal_size: 0,
    swtotal_weight: 0,
    swtxs: 0,
    time: 1536411754,
    total_out: 0,
    total_size: 0,
    total_weight: 0,
    totalfee: 0,
    txs: 1,
    utxo_increase: 2,
    utxo_size_inc: 173,
  },
  {
    avgfee: 3740,
    avgfeerate: 20,
    avgtxsize: 187,
    blockhash: 'd95ee37e9525042ca3cc8f97664700db26172667a2ee8d70ba89000e270e5d4f',
    feerate_percentiles: [20, 20, 20, 20, 20],
    height: 102,
    ins: 1,
    maxfee: 3740,
    maxfeerate: 20,
    maxtxsize: 187,
    medianfee: 3740,
    mediantime: 1536411753,
    mediantxsize: 187,
    minfee: 3740,
    minfeerate: 20,
    mintxsize: 187,
    outs: 4,
    subsidy: 5000000000,
    swtotal_size: 0,
    swtotal_weight: 0,
    swtxs: 0,
    time: 1536411754,
    total_out: 4999996260,
    total_size: 187,
    total_weight: 748,
    totalfee: 3740,
    txs: 2,
    utxo_increase: 3,
    utxo_size_inc: 234,
  },
  {
    avgfee: 18953,
    avgfeerate: 109,
    avgtxsize: 227,
    blockhash: '4ac7022a3f15b93d437c1e22b8ab5e0c8c4dd7352a35dd0de4a39c33d2efccc0',
    feerate_percentiles: [20, 20, 20, 301, 301],
    height: 103,
    ins: 3,
    maxfee: 49800,
    maxfeerate: 301,
    maxtxsize: 247,
    medianfee: 3740,
    mediantime: 1536411754,
    mediantxsize: 247,
    minfee: 3320,
    minfeerate: 20,
    mintxsize: 187,
    outs: 8,
    subsidy: 5000000000,
    swtotal_size: 494,
    swtotal_weight: 1322,
    swtxs: 2,
    time: 1536411754,
    total_out: 9999939400,
    total_size: 681,
    total_weight: 2070,
    totalfee: 56860,
    txs: 4,
    utxo_increase: 5,
    utxo_size_inc: 380,
  },
];

/** Derived (see above): each block's outputs less its OP_RETURN commitment. */
const ACTUAL = [
  { utxo_increase_actual: 1, utxo_size_inc_actual: 85 },
  { utxo_increase_actual: 2, utxo_size_inc_actual: 146 },
  { utxo_increase_actual: 4, utxo_size_inc_actual: 292 },
];

/** Core's test chain: genesis, the 101 coinbase-only blocks rebuilt, blocks 102 and 103 as published. */
function coreTestChain(): BitcoinChain {
  const chain = new BitcoinChain({ ...REGTEST, checkProofOfWork: false });
  chain.connect(Buffer.from(fixture.genesis, 'hex'));
  const c = fixture.coinbaseOnly;
  const payTo = Buffer.from(c.scriptPubKey, 'hex');
  for (let h = c.heights[0]; h <= c.heights[1]; h++) {
    const block = mineBlock({
      prevHash: chain.tip!.block.getHash(),
      time: c.times[h - 1]!,
      nonce: c.nonces[h - 1]!,
      bits: c.bits,
      version: c.version,
      txs: [coinbase({ height: h, value: 5_000_000_000, payTo })],
    });
    chain.connect(block.toBuffer());
  }
  for (const hex of fixture.blocks) chain.connect(Buffer.from(hex, 'hex'));
  return chain;
}

let standin: BitcoinStandin;
let chain: BitcoinChain;

beforeAll(async () => {
  chain = coreTestChain();
  standin = await startBitcoinStandin({ seed: 1, clock: new TestClock(), days: 1, world: staticWorld(chain) });
});
afterAll(() => standin.close());

describe("the stand-in's getblockstats and Bitcoin Core's", () => {
  it('rebuilds Core’s chain byte for byte (hash chain up to the published blocks)', () => {
    expect(chain.height).toBe(103);
    expect(chain.entry(101)!.hash).toBe(EXPECTED[0]!.blockhash);
    expect(chain.entry(103)!.hash).toBe(EXPECTED[2]!.blockhash);
  });

  it('answers every field as Core published it, for each block, by hash and by height', async () => {
    const source = new BitcoinSource({ url: standin.url, user: 'sandbox', password: 'sandbox' });
    for (const [i, expected] of EXPECTED.entries()) {
      const byHeight = await source.blockStats(expected.height);
      expect(byHeight).toEqual({ ...expected, ...ACTUAL[i] });
      expect(await source.blockStats(expected.blockhash)).toEqual(byHeight);
    }
    expect(source.statsFallbacks).toBe(0);
  });

  it('gives the same figures from getblock 3 when getblockstats is disabled (the source’s fallback)', async () => {
    const limited = await startBitcoinStandin({
      seed: 1,
      clock: new TestClock(),
      days: 1,
      world: staticWorld(chain),
      disabled: ['getblockstats'],
    });
    try {
      const source = new BitcoinSource({ url: limited.url, user: 'sandbox', password: 'sandbox' });
      for (const [i, expected] of EXPECTED.entries()) {
        expect(await source.blockStats(expected.height)).toEqual({ ...expected, ...ACTUAL[i] });
      }
      expect(source.statsFallbacks).toBe(3);
    } finally {
      await limited.close();
    }
  });

  it('selects statistics as Core does and refuses unknown ones', async () => {
    const source = new BitcoinSource({ url: standin.url, user: 'sandbox', password: 'sandbox' });
    expect(await source.client.call('getblockstats', [103, ['totalfee', 'txs']])).toEqual({ totalfee: 56860, txs: 4 });
    await expect(source.client.call('getblockstats', [103, ['nope']])).rejects.toMatchObject({ code: -8 });
  });
});
