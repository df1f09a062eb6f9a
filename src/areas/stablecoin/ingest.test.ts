import { encodeAbiParameters, encodeEventTopics, type Hex, stringToHex } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import type { BlockInfo, EvmLog } from '../../sources/evm/index.js';
import { type EvmSource, STATE_CALL_BATCH } from '../../sources/evm/source.js';
import type { Dialect, Store } from '../../store/db.js';
import { DOG_ABI, TOKEN_ABI, TOPICS, TROVE_MANAGER_ABI, VAT_NOTE_TOPICS } from './events.js';
import type { MakerSnapshot } from './facts.js';
import { StableSink, stableCheckpointKey, stableTransfersKey } from './ingest.js';
import {
  borrowersOfEvents,
  keptUrns,
  makerVaults,
  readLiquitySnapshot,
  readMakerSnapshot,
  URN_NOTE_KINDS,
  urnsOfNotes,
} from './ingest-snapshot.js';
import { fromJson, StablecoinRepository, toJson } from './repo.js';
import type { StablecoinTarget } from './targets.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const E18 = 10n ** 18n;
const RAY = 10n ** 27n;

const CHAINLOG: Hex = '0x9ef05f7f6deb616fd37ac3c959a2ddd25a54e4f5';
const VAT: Hex = '0x00000000000000000000000000000000000000a1';
const DAI: Hex = '0x00000000000000000000000000000000000000a2';
const SPOT: Hex = '0x00000000000000000000000000000000000000a3';
const JUG: Hex = '0x00000000000000000000000000000000000000a4';
const DOG: Hex = '0x00000000000000000000000000000000000000a5';
const REG: Hex = '0x00000000000000000000000000000000000000a6';
const JOIN_DAI: Hex = '0x00000000000000000000000000000000000000a7';
const PSM: Hex = '0x00000000000000000000000000000000000000a8';
const VOW: Hex = '0x00000000000000000000000000000000000000a9';
const PSM_JOIN: Hex = '0x00000000000000000000000000000000000000aa';
const USDC: Hex = '0x00000000000000000000000000000000000000ab';
const WETH: Hex = '0x00000000000000000000000000000000000000b1';
const ETH_JOIN: Hex = '0x00000000000000000000000000000000000000b2';
const CLIP: Hex = '0x00000000000000000000000000000000000000b3';
const CALC: Hex = '0x00000000000000000000000000000000000000b4';
const ZERO_ADDR: Hex = '0x0000000000000000000000000000000000000000';
const URN: Hex = '0x0000000000000000000000000000000000000c01';
const URN2: Hex = '0x0000000000000000000000000000000000000c02';
const URN3: Hex = '0x0000000000000000000000000000000000000c03';
const URN4: Hex = '0x0000000000000000000000000000000000000c04';
const TM: Hex = '0xa39739ef8b0231dbfa0dcda07d7e29faabcf4bb2';
const SP: Hex = '0x00000000000000000000000000000000000000d1';
const LUSD: Hex = '0x00000000000000000000000000000000000000d2';
const FEED: Hex = '0x00000000000000000000000000000000000000d3';
const BO: Hex = '0x00000000000000000000000000000000000000d4';
const GAS: Hex = '0x00000000000000000000000000000000000000d5';

const ETH_A = stringToHex('ETH-A', { size: 32 });
const word = (x: bigint) => (x < 0n ? (1n << 256n) + x : x).toString(16).padStart(64, '0');
const addr = (a: string) => a.slice(2).padStart(64, '0');

let logIndex = 0;
function evmLog(address: Hex, topics: Hex[], data: Hex, block: number): EvmLog {
  return {
    address,
    topics,
    data,
    blockNumber: block,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    logIndex: logIndex++,
    transactionHash: `0x${(block + 1000).toString(16).padStart(64, '0')}`,
    transactionIndex: 0,
  };
}

/** A Vat LogNote exactly as vat.sol's `note` writes it (see events.test.ts). */
function vatNote(kind: keyof typeof VAT_NOTE_TOPICS, words: string[], block: number): EvmLog {
  const selector = VAT_NOTE_TOPICS[kind].slice(2, 10);
  const calldata = (selector + words.join('')).padEnd(448, '0').slice(0, 448);
  const topic = (i: number) => `0x${words[i] ?? '0'.repeat(64)}` as Hex;
  return evmLog(
    VAT,
    [VAT_NOTE_TOPICS[kind], topic(0), topic(1), topic(2)],
    `0x${word(32n)}${word(224n)}${calldata}`,
    block,
  );
}

function event(address: Hex, abi: readonly unknown[], eventName: string, args: Record<string, unknown>, block: number) {
  const ev = (
    abi as { type: string; name: string; inputs: { name: string; type: string; indexed?: boolean }[] }[]
  ).find((x) => x.type === 'event' && x.name === eventName)!;
  const topics = encodeEventTopics({ abi: [ev], eventName, args } as never) as Hex[];
  const data = ev.inputs.filter((i) => !i.indexed);
  return evmLog(address, topics, encodeAbiParameters(data as never, data.map((i) => args[i.name]) as never), block);
}

const maker: StablecoinTarget = {
  chain: 'ethereum',
  protocol: 'makerdao',
  name: 'MakerDAO',
  design: 'maker-mcd',
  entryPoint: CHAINLOG,
  symbol: 'DAI',
  quotes: [],
  wrappedNative: WETH,
};
const liquity: StablecoinTarget = {
  ...maker,
  protocol: 'liquity',
  name: 'Liquity',
  design: 'liquity-v1',
  entryPoint: TM,
};

describe.each(dialects)('the stablecoin sink on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(() => cleanup());

  const blocks = new Map<number, BlockInfo>(
    [1, 2, 3, 4].map((n) => [n, { number: n, hash: '0x00', parentHash: '0x00', timestamp: 1000 + n }]),
  );
  const ctx = { chain: 'ethereum', blocks, senders: new Map() };

  it('decodes the Vat’s notes and the other events, stores them exactly and idempotently, and rolls back', async () => {
    const sources = { vat: VAT, events: [SPOT, DOG, CLIP], token: DAI };
    const sink = new StableSink(maker, 1, sources);
    expect(sink.key).toBe(stableCheckpointKey('ethereum', 'makerdao'));
    const queries = await sink.queries();
    expect(queries.map((q) => q.addresses)).toEqual([[VAT], [SPOT, DOG, CLIP]]);
    // The stablecoin's transfers are a part of their own, with their own checkpoint.
    const transfers = new StableSink(maker, 1, sources, 'transfers');
    expect(transfers.key).toBe(stableTransfersKey('ethereum', 'makerdao'));
    expect(await transfers.queries()).toEqual([{ addresses: [DAI], topics: [[TOPICS.transfer]] }]);
    expect(queries[0]!.topics[0]).toContain(VAT_NOTE_TOPICS.frob);
    expect(queries[0]!.topics[0]).not.toContain(VAT_NOTE_TOPICS.move);
    const logs = [
      vatNote('init', [ETH_A.slice(2)], 1),
      vatNote('frob', [ETH_A.slice(2), addr(URN), addr(URN), addr(URN), word(10n * E18), word(5000n * E18)], 2),
      vatNote('frob', [ETH_A.slice(2), addr(URN), addr(URN), addr(URN), word(-2n * E18), word(-1000n * E18)], 3),
      vatNote('fork', [ETH_A.slice(2), addr(URN), addr(URN2), word(E18), word(100n * E18)], 3),
      event(DAI, TOKEN_ABI, 'Transfer', { from: `0x${'0'.repeat(40)}`, to: URN, value: 5000n * E18 }, 2),
      event(DAI, TOKEN_ABI, 'Transfer', { from: URN, to: URN2, value: 10n * E18 }, 4),
      event(
        DOG,
        DOG_ABI,
        'Bark',
        { ilk: ETH_A, urn: URN, ink: E18, art: 10n * E18, due: 11n * 10n ** 45n, clip: CLIP, id: 7n },
        4,
      ),
    ];
    const write = () => store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 4 }, [logs], ctx));
    expect(await write()).toBe(7);
    expect(await write()).toBe(7);
    const repo = new StablecoinRepository(store.db);
    const stored = await repo.events('ethereum', 'makerdao', { to: 2000 });
    expect(stored.map((e) => e.event.kind)).toEqual(['init', 'frob', 'transfer', 'frob', 'fork', 'transfer', 'bark']);
    expect(stored[3]!.event).toMatchObject({ source: 'vat_note', kind: 'frob', dink: -2n * E18, dart: -1000n * E18 });
    expect(stored[6]!.event).toMatchObject({
      source: 'event',
      kind: 'bark',
      ilk: 'ETH-A',
      due: 11n * 10n ** 45n,
      id: 7n,
    });
    expect(urnsOfNotes(stored)).toEqual([
      { ilk: 'ETH-A', urn: URN },
      { ilk: 'ETH-A', urn: URN2 },
    ]);
    // Each part rolls back only its own facts: the protocol's leaves the transfer of block 4, the transfers' takes it.
    const kept = async () =>
      (await repo.events('ethereum', 'makerdao', { to: 2000 })).map((e) => `${e.blockNumber}:${e.event.kind}`);
    await store.db.transaction().execute((trx) => sink.rollback(trx, 2));
    expect(await kept()).toEqual(['1:init', '2:frob', '2:transfer', '4:transfer']);
    await store.db.transaction().execute((trx) => transfers.rollback(trx, 2));
    expect(await kept()).toEqual(['1:init', '2:frob', '2:transfer']);
  });

  it('Maker: a snapshot’s base is the nearest stored one that kept its set; the notes between name what changed', async () => {
    const sink = new StableSink(maker, 1, { vat: VAT, events: [], token: DAI });
    const frob = (u: Hex, b: number) =>
      vatNote('frob', [ETH_A.slice(2), addr(u), addr(u), addr(u), word(E18), word(E18)], b);
    const logs = [
      frob(URN, 1),
      frob(URN2, 2),
      vatNote('fork', [ETH_A.slice(2), addr(URN), addr(URN3), word(E18), word(E18)], 3),
      // `fold` changes the ilk's rate, no vault's art.
      vatNote('fold', [ETH_A.slice(2), addr(VOW), word(10n ** 24n)], 3),
      vatNote('grab', [ETH_A.slice(2), addr(URN4), addr(CLIP), addr(VOW), word(-E18), word(-E18)], 4),
    ];
    await store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 4 }, [logs], ctx));
    const repo = new StablecoinRepository(store.db);
    const vault = (urn: Hex) => ({ ilk: 'ETH-A', urn });
    // No snapshot yet: every vault the notes up to the block named, read from the store in pages.
    expect(await makerVaults(repo, maker, 3)).toEqual({ base: null, touched: [URN, URN2, URN3].map(vault) });
    const pages: number[][] = [];
    await repo.eachEventsPage(
      'ethereum',
      'makerdao',
      { from: 1, to: 4 },
      URN_NOTE_KINDS,
      (p) => {
        pages.push(p.map((e) => e.blockNumber));
      },
      1,
    );
    expect(pages).toEqual([[2], [3], [4]]);

    const snapshot = { design: 'maker-mcd', chain: 'ethereum', protocol: 'makerdao' } as const;
    await repo.saveSnapshot({
      ...snapshot,
      blockNumber: 2,
      timestamp: 1002,
      urns: [{ ilk: 'ETH-A', urn: URN, ink: E18, art: E18 }],
      emptyUrns: [vault(URN2)],
      urnRead: { full: true, base: null, reconciledAt: 1002, read: 2, drift: 0 },
    } as never);
    // Above the snapshot: the notes in (2, 4] (the fork's two sides, the grab's vault); the base's set and values.
    const above = await makerVaults(repo, maker, 4);
    expect(above.touched).toEqual([URN, URN3, URN4].map(vault));
    expect(above.base?.blockNumber).toBe(2);
    expect([...above.base!.kept.keys]).toEqual([`ETH-A/${URN}`, `ETH-A/${URN2}`]);
    expect(above.base!.kept.values.get(`ETH-A/${URN}`)).toEqual({ ink: E18, art: E18 });
    expect(above.base!.kept.reconciledAt).toBe(1002);
    // Below it (a past day's snapshot taken after the head's): carried back over the notes in (1, 2].
    expect(await makerVaults(repo, maker, 1)).toMatchObject({ base: { blockNumber: 2 }, touched: [vault(URN2)] });
    // A snapshot stored before the set was kept is no base: every vault named is read, once.
    await repo.saveSnapshot({ ...snapshot, blockNumber: 4, timestamp: 1004, urns: [] } as never);
    expect(await makerVaults(repo, maker, 4)).toEqual({ base: null, touched: [URN, URN2, URN3, URN4].map(vault) });
  });

  it('Liquity: TroveUpdated from the TroveManager and BorrowerOperations name the borrowers', async () => {
    const sink = new StableSink(liquity, 1, { events: [TM, BO, SP, FEED], token: LUSD });
    const logs = [
      event(
        BO,
        TROVE_MANAGER_ABI,
        'TroveUpdated',
        { _borrower: URN, _debt: 2000n * E18, _coll: 2n * E18, _stake: 2n * E18, _operation: 0 },
        1,
      ),
      event(
        TM,
        TROVE_MANAGER_ABI,
        'TroveUpdated',
        { _borrower: URN2, _debt: 0n, _coll: 0n, _stake: 0n, _operation: 1 },
        2,
      ),
      event(
        TM,
        TROVE_MANAGER_ABI,
        'Redemption',
        { _attemptedLUSDAmount: 5n, _actualLUSDAmount: 4n, _ETHSent: 3n, _ETHFee: 1n },
        2,
      ),
    ];
    expect(await store.db.transaction().execute((trx) => sink.apply(trx, { from: 1, to: 2 }, [logs], ctx))).toBe(3);
    const repo = new StablecoinRepository(store.db);
    expect(borrowersOfEvents(await repo.eventsUpTo('ethereum', 'liquity', 2, ['trove_updated']))).toEqual([URN, URN2]);
  });

  it('snapshots round-trip with exact big integers; pruning keeps the newest three and one per day', async () => {
    const repo = new StablecoinRepository(store.db);
    const base = { design: 'maker-mcd', chain: 'ethereum', protocol: 'makerdao' } as const;
    const times = [10, 20, 30, 40, 86_400 + 10, 2 * 86_400 + 10, 2 * 86_400 + 20, 2 * 86_400 + 30];
    for (const [i, t] of times.entries()) {
      await repo.saveSnapshot({
        ...base,
        blockNumber: i + 1,
        timestamp: t,
        totalSupply: 2n ** 200n + BigInt(i),
      } as never);
    }
    const [newest] = await repo.snapshots('ethereum', 'makerdao', 2 * 86_400 + 30);
    expect((newest as MakerSnapshot).totalSupply).toBe(2n ** 200n + 7n);
    await repo.pruneSnapshots('ethereum', 'makerdao');
    expect((await repo.snapshotHeads('ethereum', 'makerdao')).map((h) => h.blockNumber)).toEqual([8, 7, 6, 5, 4]);
  });
});

describe('JSON with exact big integers', () => {
  it('round-trips negative and huge values and leaves other strings alone', () => {
    const value = { a: -(2n ** 255n), b: 'ETH-A', c: [1n, '12'], d: 0n };
    expect(fromJson(toJson(value))).toEqual(value);
  });
});

type Answer = unknown | ((args: readonly unknown[]) => unknown);

/** A source answering recorded multicall results by `address.functionName`; anything else reverts. */
function recordedSource(answers: Record<string, Answer>): EvmSource {
  return {
    multicall: async ({ contracts }: { contracts: { address: string; functionName: string; args?: unknown[] }[] }) =>
      contracts.map((c) => {
        const a = answers[`${c.address.toLowerCase()}.${c.functionName}`];
        if (a === undefined) return { status: 'failure', error: new Error('reverted') };
        return { status: 'success', result: typeof a === 'function' ? a(c.args ?? []) : a };
      }),
  } as unknown as EvmSource;
}

const key = (name: string) => stringToHex(name, { size: 32 });
const NO_VAULTS = { base: null, touched: [] };

describe('readMakerSnapshot (recorded answers)', () => {
  const chainlog: Record<string, Hex> = {
    MCD_VAT: VAT,
    MCD_DAI: DAI,
    MCD_SPOT: SPOT,
    MCD_JUG: JUG,
    MCD_DOG: DOG,
    ILK_REGISTRY: REG,
    MCD_JOIN_DAI: JOIN_DAI,
    MCD_PSM_USDC_A: PSM,
    MCD_VOW: VOW,
  };
  const answers: Record<string, Answer> = {
    [`${CHAINLOG}.list`]: Object.keys(chainlog).map(key),
    [`${CHAINLOG}.getAddress`]: ([k]: readonly unknown[]) =>
      chainlog[Object.keys(chainlog).find((n) => key(n) === k)!] ?? '0x0000000000000000000000000000000000000000',
    [`${REG}.list`]: [ETH_A],
    [`${REG}.info`]: ['Ether', 'WETH', 1n, 18n, WETH, '0x00000000000000000000000000000000000000f1', ETH_JOIN, CLIP],
    [`${VAT}.ilks`]: [100n * E18, (11n * RAY) / 10n, RAY, 10n ** 51n, 0n],
    [`${VAT}.debt`]: 110n * 10n ** 45n,
    [`${VAT}.vice`]: 0n,
    [`${VAT}.dai`]: ([a]: readonly unknown[]) => (a === VOW ? 7n * 10n ** 45n : 0n),
    [`${VAT}.sin`]: ([a]: readonly unknown[]) => (a === VOW ? 2n * 10n ** 45n : 0n),
    [`${VAT}.Line`]: 10n ** 52n,
    [`${VAT}.urns`]: ([, u]: readonly unknown[]) => (u === URN ? [5n * E18, 100n * E18] : [0n, 0n]),
    [`${SPOT}.ilks`]: ['0x00000000000000000000000000000000000000f1', (3n * RAY) / 2n],
    [`${SPOT}.par`]: RAY,
    [`${JUG}.ilks`]: [RAY, 0n],
    [`${JUG}.base`]: 0n,
    [`${DOG}.ilks`]: [CLIP, 113n * 10n ** 16n, 10n ** 50n, 0n],
    [`${DOG}.Hole`]: 10n ** 53n,
    [`${DOG}.Dirt`]: 3n * 10n ** 45n,
    [`${CLIP}.buf`]: (12n * RAY) / 10n,
    [`${CLIP}.tail`]: 8400n,
    [`${CLIP}.cusp`]: (45n * RAY) / 100n,
    [`${CLIP}.calc`]: CALC,
    // The Abacus asked for its curve at the tail from a start of one RAY.
    [`${CALC}.price`]: ([top, dur]: readonly unknown[]) => (top === RAY && dur === 8400n ? (39n * RAY) / 100n : 0n),
    [`${DAI}.totalSupply`]: 110n * E18,
    [`${DAI}.balanceOf`]: ([a]: readonly unknown[]) => (a === PSM ? 10n * E18 : 0n),
    [`${WETH}.balanceOf`]: 5n * E18,
    [`${PSM}.ilk`]: key('PSM-USDC-A'),
    [`${PSM}.tin`]: 0n,
    [`${PSM}.tout`]: 10n ** 15n,
    [`${PSM}.vat`]: VAT,
    [`${PSM}.gemJoin`]: PSM_JOIN,
    [`${PSM_JOIN}.gem`]: USDC,
    [`${PSM_JOIN}.dec`]: 6n,
    [`${PSM_JOIN}.ilk`]: key('PSM-USDC-A'),
    [`${USDC}.balanceOf`]: ([a]: readonly unknown[]) => (a === PSM_JOIN ? 25n * 10n ** 6n : 0n),
  };

  it('reads the Chainlog, the IlkRegistry’s ilks, their Vat/Spot/Jug/Dog parameters, the PSMs and the vaults', async () => {
    const s = await readMakerSnapshot(
      recordedSource(answers),
      maker,
      { number: 10, timestamp: 5000 },
      {
        base: null,
        touched: [
          { ilk: 'ETH-A', urn: URN },
          { ilk: 'ETH-A', urn: URN2 },
        ],
      },
    );
    expect(s).toMatchObject({
      vat: VAT,
      token: DAI,
      totalSupply: 110n * E18,
      protocolHeld: 10n * E18,
      debt: 110n * 10n ** 45n,
      vice: 0n,
      vowDai: 7n * 10n ** 45n,
      vowSin: 2n * 10n ** 45n,
      par: RAY,
      // Found by its interface (psms.test.ts holds each kind to the real contracts' ABI), its gems in its GemJoin.
      psms: [
        {
          key: 'MCD_PSM_USDC_A',
          address: PSM,
          ilk: 'PSM-USDC-A',
          tin: 0n,
          tout: 10n ** 15n,
          kind: 'classic',
          gem: USDC,
          dec: 6,
          holder: PSM_JOIN,
          held: 25n * 10n ** 6n,
          buf: null,
          aliases: [],
        },
      ],
      urns: [{ ilk: 'ETH-A', urn: URN, ink: 5n * E18, art: 100n * E18 }],
    });
    expect(s.ilks).toEqual([
      expect.objectContaining({
        ilk: 'ETH-A',
        gem: WETH,
        join: ETH_JOIN,
        clip: CLIP,
        Art: 100n * E18,
        rate: (11n * RAY) / 10n,
        mat: (3n * RAY) / 2n,
        chop: 113n * 10n ** 16n,
        joinBalance: 5n * E18,
        clipper: {
          calc: CALC,
          buf: (12n * RAY) / 10n,
          tail: 8400n,
          cusp: (45n * RAY) / 100n,
          curveAtTail: (39n * RAY) / 100n,
        },
      }),
    ]);
    expect(s).toMatchObject({ Hole: 10n ** 53n, Dirt: 3n * 10n ** 45n });
  });

  it('a type the Dog does not auction has no Clipper; a Clipper that does not answer is a clear error', async () => {
    const unknown = await readMakerSnapshot(
      recordedSource({ ...answers, [`${DOG}.ilks`]: [ZERO_ADDR, 0n, 0n, 0n] }),
      maker,
      { number: 10, timestamp: 5000 },
      NO_VAULTS,
    );
    expect(unknown.ilks[0]!.clipper).toBeNull();
    const { [`${CLIP}.cusp`]: _, ...noCusp } = answers;
    await expect(
      readMakerSnapshot(recordedSource(noCusp), maker, { number: 10, timestamp: 5000 }, NO_VAULTS),
    ).rejects.toThrow(/Clipper\(ETH-A\)\.cusp\(\): the call reverted/);
  });

  /**
   * Issue 30 item 3 at the size of mainnet (the vault count a parameter): a fake Vat holds `count` vaults; a snapshot
   * over a base reads `Vat.urns` only for the vaults the notes since the base touched and equals a full read at the
   * same block; the daily reconciliation reads them all, and names a vault changed without a note.
   */
  it.each([20_000])(
    '%i vaults: a snapshot after one block reads only the changed ones; the reconciliation all',
    async (count) => {
      const urnAt = (i: number) => `0x${(0xc0000 + i).toString(16).padStart(40, '0')}` as Hex;
      const vat = new Map<string, [bigint, bigint]>();
      // Every tenth vault empty (closed, or opened and never used): in the set, never in `urns`.
      for (let i = 0; i < count; i++)
        vat.set(urnAt(i), i % 10 === 0 ? [0n, 0n] : [BigInt(i + 1) * E18, BigInt(i) * E18]);
      const counted = { urns: 0, requests: 0 };
      const inner = recordedSource({
        ...answers,
        // The vaults' reads counted (the PSMs' own urn, read apart by psms.ts, is not one of them).
        [`${VAT}.urns`]: ([w, u]: readonly unknown[]) => {
          if (w !== ETH_A) return [0n, 0n];
          counted.urns++;
          return vat.get(u as string) ?? [0n, 0n];
        },
      });
      const source = {
        multicall: (args: never) => {
          counted.requests++;
          return inner.multicall(args);
        },
      } as unknown as EvmSource;
      const measure = async (
        block: { number: number; timestamp: number },
        vaults: Parameters<typeof readMakerSnapshot>[3],
      ) => {
        counted.urns = 0;
        counted.requests = 0;
        const s = await readMakerSnapshot(source, maker, block, vaults);
        return { s, urns: counted.urns, requests: counted.requests };
      };
      const all = [...vat.keys()].map((urn) => ({ ilk: 'ETH-A', urn }));

      // The first snapshot: no base, every vault named is read, in batches of STATE_CALL_BATCH.
      const first = await measure({ number: 10, timestamp: 5000 }, { base: null, touched: all });
      expect(first.urns).toBe(count);
      expect(first.s.urnRead).toEqual({ full: true, base: null, reconciledAt: 5000, read: count, drift: 0 });
      expect(first.s.urns).toHaveLength(count - count / 10);
      expect(first.s.emptyUrns).toHaveLength(count / 10);

      // Block 11: one vault repaid and closed, one drawn, one forked into a vault never seen, one empty one reopened.
      const changed = [urnAt(1), urnAt(2), urnAt(count), urnAt(10)];
      vat.set(urnAt(1), [0n, 0n]);
      vat.set(urnAt(2), [3n * E18, 2n * E18]);
      vat.set(urnAt(count), [7n * E18, 1n * E18]);
      vat.set(urnAt(10), [9n * E18, 4n * E18]);
      const touched = changed.map((urn) => ({ ilk: 'ETH-A', urn }));
      const next = await measure({ number: 11, timestamp: 5012 }, { base: keptUrns(first.s), touched });
      expect(next.urns).toBe(changed.length);
      expect(next.s.urnRead).toEqual({ full: false, base: 10, reconciledAt: 5000, read: changed.length, drift: 0 });
      // Exactly what reading every vault at block 11 gives.
      const whole = await measure({ number: 11, timestamp: 5012 }, { base: null, touched: [...all, touched[2]!] });
      expect(next.s.urns).toEqual(whole.s.urns);
      expect(next.s.emptyUrns).toEqual(whole.s.emptyUrns);
      expect(next.s.urns).toContainEqual({ ilk: 'ETH-A', urn: urnAt(count), ink: 7n * E18, art: 1n * E18 });
      expect(next.s.emptyUrns).toContainEqual({ ilk: 'ETH-A', urn: urnAt(1) });

      // Nothing touched: not one Vat.urns call.
      const quiet = await measure({ number: 12, timestamp: 5024 }, { base: keptUrns(next.s), touched: [] });
      expect(quiet.urns).toBe(0);
      // The vaults read after one block ride in the snapshot's one multicall of the system's state.
      expect(next.requests).toBe(quiet.requests);
      expect(quiet.s.urns).toEqual(next.s.urns);

      // A day after the last full read: the reconciliation reads every vault of the set, and finds the one that moved
      // without a note (it would otherwise be carried wrong).
      vat.set(urnAt(5), [1n, 1n]);
      const day = await measure({ number: 7200, timestamp: 5000 + 86_400 }, { base: keptUrns(quiet.s), touched: [] });
      expect(day.urns).toBe(count + 1);
      // In batches of STATE_CALL_BATCH: ⌈vaults / 400⌉ requests (the first may share the system's multicall).
      expect(day.requests - quiet.requests).toBeGreaterThanOrEqual(Math.ceil((count + 1) / STATE_CALL_BATCH) - 1);
      expect(day.requests - quiet.requests).toBeLessThanOrEqual(Math.ceil((count + 1) / STATE_CALL_BATCH));
      expect(day.s.urnRead).toEqual({ full: true, base: 12, reconciledAt: 5000 + 86_400, read: count + 1, drift: 1 });
      expect(day.s.urns).toContainEqual({ ilk: 'ETH-A', urn: urnAt(5), ink: 1n, art: 1n });
    },
  );

  it('a contract the figures need that reverts is a clear error, never a zero', async () => {
    const { [`${VAT}.debt`]: _, ...without } = answers;
    await expect(
      readMakerSnapshot(recordedSource(without), maker, { number: 10, timestamp: 5000 }, NO_VAULTS),
    ).rejects.toThrow(/Vat.debt\(\): the call reverted/);
  });
});

describe('readLiquitySnapshot (recorded answers)', () => {
  const answers: Record<string, Answer> = {
    [`${TM}.stabilityPool`]: SP,
    [`${TM}.activePool`]: '0x00000000000000000000000000000000000000e1',
    [`${TM}.defaultPool`]: '0x00000000000000000000000000000000000000e2',
    [`${TM}.lusdToken`]: LUSD,
    [`${TM}.sortedTroves`]: '0x00000000000000000000000000000000000000e3',
    [`${TM}.priceFeed`]: FEED,
    [`${TM}.borrowerOperationsAddress`]: BO,
    [`${TM}.gasPoolAddress`]: GAS,
    [`${FEED}.lastGoodPrice`]: 2000n * E18,
    [`${TM}.getEntireSystemColl`]: 10n * E18,
    [`${TM}.getEntireSystemDebt`]: 15_000n * E18,
    [`${TM}.getTCR`]: ([p]: readonly unknown[]) => (10n * E18 * (p as bigint)) / (15_000n * E18),
    [`${TM}.checkRecoveryMode`]: true,
    [`${SP}.getTotalLUSDDeposits`]: 5000n * E18,
    [`${TM}.getBorrowingRate`]: 5n * 10n ** 15n,
    [`${TM}.getRedemptionRate`]: 5n * 10n ** 15n,
    [`${TM}.getRedemptionRateWithDecay`]: 6n * 10n ** 15n,
    [`${TM}.BETA`]: 2n,
    [`${TM}.REDEMPTION_FEE_FLOOR`]: 5n * 10n ** 15n,
    [`${TM}.MCR`]: 11n * 10n ** 17n,
    [`${TM}.CCR`]: 15n * 10n ** 17n,
    [`${LUSD}.totalSupply`]: 15_000n * E18,
    [`${LUSD}.balanceOf`]: 400n * E18,
    [`${TM}.getEntireDebtAndColl`]: ([b]: readonly unknown[]) =>
      b === URN ? [15_000n * E18, 10n * E18, 0n, 0n] : [0n, 0n, 0n, 0n],
  };

  it('resolves the contracts from the TroveManager and reads the system at the last good price', async () => {
    const s = await readLiquitySnapshot(recordedSource(answers), liquity, { number: 10, timestamp: 5000 }, [URN, URN2]);
    expect(s).toMatchObject({
      troveManager: TM,
      token: LUSD,
      price: 2000n * E18,
      tcr: 1_333333333333333333n,
      recoveryMode: true,
      spDeposits: 5000n * E18,
      protocolHeld: 400n * E18,
      redemptionRateWithDecay: 6n * 10n ** 15n,
      redemptionBeta: 2n,
      redemptionFeeFloor: 5n * 10n ** 15n,
      collateralToken: WETH,
      troves: [{ owner: URN, debt: 15_000n * E18, coll: 10n * E18 }],
    });
    expect(s.addresses).toMatchObject({ stabilityPool: SP, gasPoolAddress: GAS, borrowerOperationsAddress: BO });
  });
});
