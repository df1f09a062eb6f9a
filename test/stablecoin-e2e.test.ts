import {
  type Address,
  createPublicClient,
  decodeEventLog,
  type Hex,
  hexToBigInt,
  hexToString,
  http,
  type Log,
  parseAbi,
  parseAbiItem,
  stringToHex,
  toEventSelector,
  toFunctionSelector,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import type { MakerSnapshot } from '../src/areas/stablecoin/facts.js';
import { stablecoinArea } from '../src/areas/stablecoin/index.js';
import { StablecoinRepository } from '../src/areas/stablecoin/repo.js';
import { addressBookFromManifest } from '../src/sandbox/world/address-book.js';
import type { ManifestLiquity, ManifestMaker } from '../src/sandbox/world/manifest.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';

/**
 * End to end on a small seeded world with MakerDAO and Liquity: the sandbox's contracts → stablecoin.ingest (and the
 * DEX jobs for prices and pools) → stablecoin.compute → API. Every key figure is recounted here with viem alone —
 * the contracts' own getters at the record's snapshot block and a replay of their logs, decoded here (the Vat's
 * anonymous LogNotes by their calldata words), never with the service's decoding — and must agree: counts equal,
 * amounts within 1e-9 relative.
 */

interface Envelope<T> {
  status: boolean;
  data: T;
  meta: Record<string, unknown> & { as_of: string };
}
type Row = Record<string, unknown>;
interface Weekly extends Row {
  date: string;
  partial: boolean;
  snapshot_block: number | null;
  token_address: string;
  vat_address?: string;
  trove_manager_address?: string;
  total_supply: number | null;
  total_debt: number | null;
  holders: number | null;
  number_unique_wallets: number | null;
  tcr: number | null;
  redeemable_within_exit?: number | null;
  backed_debt?: number | null;
  system_debt?: number | null;
  surplus_buffer?: number | null;
  kind_shares: { kind: string; debt_share: number | null }[];
  peg_mean_price: number | null;
  peg_max_deviation: number | null;
  dex_liquidity_usd: number | null;
  liquidations: number;
  auction_takes?: number | null;
  redemptions?: number | null;
  gap_reasons: Record<string, string>;
}
interface Auction {
  clipper: string;
  calc: string;
  buf: number;
  tail: number;
  cusp: number;
  curve_at_tail: number;
  lowest_price: number;
  keeper_margin: number;
  room: number;
  stressed_tab: number | null;
  depth: number | null;
  absorbable: number | null;
}
interface Collaterals extends Row {
  snapshot_block: number;
  total_debt: number;
  collateral_assets: {
    ilk?: string;
    kind: string;
    debt: number;
    amount: number | null;
    liquidatable: { price_drop: number; debt: number }[];
    auction?: Auction | null;
    gap_reasons: Record<string, string>;
  }[];
}

const RAD = 10n ** 45n;
const RAY = 10n ** 27n;
const WAD = 10n ** 18n;
const ZERO = '0x0000000000000000000000000000000000000000';

const VAT = parseAbi([
  'function ilks(bytes32) view returns (uint256 Art, uint256 rate, uint256 spot, uint256 line, uint256 dust)',
  'function debt() view returns (uint256)',
  'function vice() view returns (uint256)',
  'function dai(address) view returns (uint256)',
  'function sin(address) view returns (uint256)',
  'function urns(bytes32, address) view returns (uint256 ink, uint256 art)',
]);
const ERC20 = parseAbi(['function totalSupply() view returns (uint256)']);
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TROVE_MANAGER = parseAbi([
  'function getEntireSystemDebt() view returns (uint256)',
  'function getEntireSystemColl() view returns (uint256)',
  'function getTCR(uint256 price) view returns (uint256)',
  'function getRedemptionRateWithDecay() view returns (uint256)',
  'function BETA() view returns (uint256)',
  'function MCR() view returns (uint256)',
]);
const BALANCE = parseAbi(['function balanceOf(address) view returns (uint256)']);
const DOG = parseAbi([
  'function ilks(bytes32) view returns (address clip, uint256 chop, uint256 hole, uint256 dirt)',
  'function Hole() view returns (uint256)',
  'function Dirt() view returns (uint256)',
]);
const CLIPPER = parseAbi([
  'function buf() view returns (uint256)',
  'function tail() view returns (uint256)',
  'function cusp() view returns (uint256)',
  'function calc() view returns (address)',
]);
const ABACUS = parseAbi(['function price(uint256 top, uint256 dur) view returns (uint256)']);
const POOL = parseAbi(['function getLUSDDebt() view returns (uint256)', 'function getETH() view returns (uint256)']);
const PRICE_FEED = parseAbi(['function lastGoodPrice() view returns (uint256)']);
const TROVE_UPDATED = parseAbiItem(
  'event TroveUpdated(address indexed _borrower, uint256 _debt, uint256 _coll, uint256 _stake, uint8 _operation)',
);
const BARK = parseAbiItem(
  'event Bark(bytes32 indexed ilk, address indexed urn, uint256 ink, uint256 art, uint256 due, address clip, uint256 indexed id)',
);
const TAKE = parseAbiItem(
  'event Take(uint256 indexed id, uint256 max, uint256 price, uint256 owe, uint256 tab, uint256 lot, address indexed usr)',
);
const TROVE_LIQUIDATED = parseAbiItem(
  'event TroveLiquidated(address indexed _borrower, uint256 _debt, uint256 _coll, uint8 _operation)',
);
const REDEMPTION = parseAbiItem(
  'event Redemption(uint256 _attemptedLUSDAmount, uint256 _actualLUSDAmount, uint256 _ETHSent, uint256 _ETHFee)',
);
const SYNC = parseAbiItem('event Sync(uint112 reserve0, uint112 reserve1)');
/** The Vat's LogNote: topic 0 is the called function's selector (left-aligned), topics 1–3 its first three words. */
const NOTE = {
  frob: toFunctionSelector('frob(bytes32,address,address,address,int256,int256)'),
  grab: toFunctionSelector('grab(bytes32,address,address,address,int256,int256)'),
  fold: toFunctionSelector('fold(bytes32,address,int256)'),
  fork: toFunctionSelector('fork(bytes32,address,address,int256,int256)'),
};
const noteTopic = (selector: Hex): Hex => `${selector}${'0'.repeat(56)}`;

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(Math.abs(b), 1e-18);
const units = (x: bigint, scale: bigint) => Number(x / scale) + Number(x % scale) / Number(scale);
const signed = (word: bigint) => (word >= 1n << 255n ? word - (1n << 256n) : word);

const oneDaiAbi = parseAbi([
  'function getAddress(bytes32 key) view returns (address)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function getReservesList() view returns (address[])',
  'function getSourceOfAsset(address asset) view returns (address)',
  'function totalSupply() view returns (uint256)',
  'function symbol() view returns (string)',
  'function dai(address) view returns (uint256)',
]);

describe('stablecoins end to end on the sandbox (MakerDAO, Liquity)', () => {
  let w: TestWorld;
  let t: TestApp;
  let maker: ManifestMaker;
  let liquity: ManifestLiquity;
  const client = () => createPublicClient({ transport: http(w.world.rpcUrl) });

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.token}` } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBe(status);
    return res.json() as Envelope<T>;
  };
  const logs = (address: Address | Address[], topic0: Hex | Hex[], toBlock: number): Promise<Log[]> =>
    client().request({
      method: 'eth_getLogs',
      params: [{ address, topics: [topic0], fromBlock: '0x0', toBlock: `0x${toBlock.toString(16)}` }],
    }) as Promise<Log[]>;
  /** The block before the protocol's deployment block: the state the world loaded (Maker's snapshot) before any log. */
  const loadedBlock = (m: { startBlock: number }) => BigInt(Math.max(0, m.startBlock - 1));

  beforeAll(async () => {
    // The service's default world: 8 days, so that the published week (7 UTC days) starts after the first crash
    // (hours 30–33) and only the crash's repeat (hour 126) can bring liquidations into it.
    w = await smallWorld({ stablecoins: true, days: 8 });
    maker = w.world.manifest.maker!;
    liquity = w.world.manifest.liquity!;
    t = await testApp();
    await areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync()).all();
    await areaRunner(stablecoinArea, w.env, t.store, t.clock, () => t.sync()).all();
    await t.sync();
  }, 600_000);

  afterAll(async () => {
    await t?.close();
    await w?.close();
  });

  it('the world has both protocols, and the DEX area found their stablecoin/USDC pairs', async () => {
    expect(maker).toBeDefined();
    expect(liquity).toBeDefined();
    expect(maker.pool).toBeDefined();
    const pools = await get<{ pool_address: string }[]>(
      '/data/liquidity/dex/available-pools/ethereum/uniswap/V2/500/0',
    );
    const found = new Set(pools.data.map((p) => p.pool_address.toLowerCase()));
    expect(found.has(liquity.pool.address.toLowerCase())).toBe(true);
    expect(found.has(maker.pool!.address.toLowerCase())).toBe(true);
  });

  it('one DAI: the pools, the lending reserves and the DAI-USD feed use Maker’s DAI, whose whole supply the Vat backs', async () => {
    const c = client();
    const book = addressBookFromManifest(w.world.manifest).chains.ethereum!;
    const chainlog = book.entries['stablecoin/makerdao']!.address as Address;
    const get = (key: string) =>
      c.readContract({
        address: chainlog,
        abi: oneDaiAbi,
        functionName: 'getAddress',
        args: [stringToHex(key, { size: 32 })],
      });
    const dai = (await get('MCD_DAI')).toLowerCase();
    // The address book's DAI, the one the service reads, is Maker's.
    expect(book.tokens.DAI!.address).toBe(dai);
    // Every pool holding a token named DAI, read from the chain (the pools' tokens and their symbols), holds Maker's.
    let daiPools = 0;
    for (const p of w.world.manifest.pools) {
      const tokens = await Promise.all(
        (['token0', 'token1'] as const).map((f) =>
          c.readContract({ address: p.address, abi: oneDaiAbi, functionName: f }),
        ),
      );
      for (const token of tokens) {
        const symbol = await c.readContract({ address: token, abi: oneDaiAbi, functionName: 'symbol' });
        if (symbol !== 'DAI') continue;
        daiPools++;
        expect(token.toLowerCase(), p.address).toBe(dai);
      }
    }
    expect(daiPools).toBeGreaterThanOrEqual(3);
    // Aave's and Spark's DAI reserves are Maker's DAI, read from each market's pool, priced by the DAI-USD feed.
    const daiFeed = w.world.manifest.oracles!.find((o) => o.pair === 'DAI-USD')!;
    const markets = w.world.manifest.lending!.aave.filter((m) => m.reserves.some((r) => r.symbol === 'DAI'));
    expect(markets.map((m) => m.protocol).sort()).toEqual(['aave', 'spark']);
    for (const m of markets) {
      const reserves = await c.readContract({ address: m.pool, abi: oneDaiAbi, functionName: 'getReservesList' });
      expect(
        reserves.map((r) => r.toLowerCase()),
        m.protocol,
      ).toContain(dai);
      const source = await c.readContract({
        address: m.oracle,
        abi: oneDaiAbi,
        functionName: 'getSourceOfAsset',
        args: [dai as Address],
      });
      expect(source.toLowerCase(), m.protocol).toBe(daiFeed.proxy.toLowerCase());
    }
    // No faucet DAI: its whole supply is the DAI the DaiJoin holds in the Vat (what vaults drew and exited).
    const [supply, joined] = await Promise.all([
      c.readContract({ address: dai as Address, abi: oneDaiAbi, functionName: 'totalSupply' }),
      c.readContract({ address: maker.vat, abi: oneDaiAbi, functionName: 'dai', args: [maker.daiJoin] }),
    ]);
    expect(supply).toBeGreaterThan(10n ** 24n);
    expect(supply * 10n ** 27n).toBe(joined);
  });

  it('MakerDAO: each collateral type’s debt equals Vat.ilks (Art × rate) and a replay of the Vat’s LogNotes', async () => {
    const doc = await get<Collaterals>('/data/stablecoin/makerdao/collaterals');
    const block = BigInt(doc.data.snapshot_block);
    const c = client();
    const notes = await logs(maker.vat, [NOTE.frob, NOTE.grab, NOTE.fold].map(noteTopic), Number(block));
    expect(notes.filter((n) => n.topics[0]?.startsWith(NOTE.frob)).length).toBeGreaterThan(0);
    let vatDebt = 0n;
    for (const ilk of maker.ilks) {
      const key = stringToHex(ilk.ilk, { size: 32 });
      const [Art, rate] = await c.readContract({
        address: maker.vat,
        abi: VAT,
        functionName: 'ilks',
        args: [key],
        blockNumber: block,
      });
      const [Art0, rate0] = await c.readContract({
        address: maker.vat,
        abi: VAT,
        functionName: 'ilks',
        args: [key],
        blockNumber: loadedBlock(maker),
      });
      // Replay: Art moves by frob's and grab's dart (word 5 of the calldata), rate by fold's (topic 3).
      let art = Art0;
      let r = rate0;
      for (const n of notes) {
        if (n.topics[1] !== key) continue;
        const sig = n.topics[0]!.slice(0, 10);
        if (sig === NOTE.fold) r += signed(hexToBigInt(n.topics[3]!));
        else {
          // data = abi bytes: offset word, length word, then the calldata (selector + words).
          const calldata = (n.data as string).slice(2 + 128);
          const dart = signed(BigInt(`0x${calldata.slice(8 + 5 * 64, 8 + 6 * 64)}`));
          art += dart;
        }
      }
      expect(art, `${ilk.ilk} Art replayed`).toBe(Art);
      expect(r, `${ilk.ilk} rate replayed`).toBe(rate);
      vatDebt += Art * rate;
      const served = doc.data.collateral_assets.find((a) => a.ilk === ilk.ilk);
      expect(served, ilk.ilk).toBeDefined();
      const expected = units(Art * rate, RAD);
      if (expected === 0) expect(served!.debt).toBe(0);
      else expect(rel(served!.debt, expected), `${ilk.ilk} debt`).toBeLessThan(1e-9);
    }
    expect(vatDebt).toBeGreaterThan(0n);
  });

  it('MakerDAO: every stored snapshot’s vaults, read incrementally or in full, are Vat.urns of every vault the notes named', async () => {
    const snapshots = (await new StablecoinRepository(t.store.db).snapshots('ethereum', 'makerdao', 0)).filter(
      (s): s is MakerSnapshot => s.design === 'maker-mcd',
    );
    expect(snapshots.length).toBeGreaterThanOrEqual(7);
    // Both paths ran: the head's first snapshot read every vault, a past day's within a day of it only the touched.
    expect(snapshots.some((s) => s.urnRead?.full === true)).toBe(true);
    expect(snapshots.some((s) => s.urnRead?.full === false)).toBe(true);
    const c = client();
    const head = Math.max(...snapshots.map((s) => s.blockNumber));
    const notes = await logs(maker.vat, [NOTE.frob, NOTE.grab, NOTE.fork].map(noteTopic), head);
    const word = (topic: Hex | undefined) => `0x${topic!.slice(26)}`.toLowerCase();
    // Every vault the notes named up to a block: frob's and grab's `u` (topic 2), fork's `src` and `dst` (topics 2, 3).
    const namedUpTo = (block: number) => {
      const named = new Map<string, { ilk: Hex; urn: string }>();
      for (const n of notes) {
        if (Number(n.blockNumber) > block) continue;
        const urns = n.topics[0]!.startsWith(NOTE.fork) ? [word(n.topics[2]), word(n.topics[3])] : [word(n.topics[2])];
        for (const urn of urns) named.set(`${n.topics[1]}/${urn}`, { ilk: n.topics[1]!, urn });
      }
      return named;
    };
    const ilkName = (ilk: Hex) => hexToString(ilk, { size: 32 }).replace(/\0+$/, '');
    const order = (a: { ilk: string; urn: string }, b: { ilk: string; urn: string }) =>
      a.ilk + a.urn < b.ilk + b.urn ? -1 : 1;
    const urnAt = (ilk: Hex, urn: string, block: number) =>
      c.readContract({
        address: maker.vat,
        abi: VAT,
        functionName: 'urns',
        args: [ilk, urn as Address],
        blockNumber: BigInt(block),
      });
    const everNamed = namedUpTo(head);
    for (const s of snapshots) {
      const named = namedUpTo(s.blockNumber);
      const held: { ilk: string; urn: string; ink: bigint; art: bigint }[] = [];
      const empty: { ilk: string; urn: string }[] = [];
      for (const { ilk, urn } of named.values()) {
        const [ink, art] = await urnAt(ilk, urn, s.blockNumber);
        if (ink === 0n && art === 0n) empty.push({ ilk: ilkName(ilk), urn });
        else held.push({ ilk: ilkName(ilk), urn, ink, art });
      }
      const at = `block ${s.blockNumber} (${JSON.stringify(s.urnRead)})`;
      expect(held.length, at).toBeGreaterThan(0);
      // What every figure reads: exactly the vaults not empty at the block, as the Vat holds them.
      expect(s.urns, at).toEqual(held.sort(order));
      // The kept set: every empty vault named up to the block; a past day's snapshot carried back from a later one
      // also keeps the vaults named after it, each empty at its block.
      const key = (u: { ilk: string; urn: string }) => `${u.ilk}/${u.urn}`;
      const kept = new Set(s.emptyUrns!.map(key));
      for (const u of empty) expect(kept.has(key(u)), `${at}: ${key(u)}`).toBe(true);
      const later = s.emptyUrns!.filter((u) => !empty.some((e) => key(e) === key(u)));
      for (const u of later) {
        const ilk = [...everNamed.values()].find((n) => ilkName(n.ilk) === u.ilk && n.urn === u.urn)?.ilk;
        expect(ilk, `${at}: ${key(u)} named by a later note`).toBeDefined();
        expect(await urnAt(ilk!, u.urn, s.blockNumber), `${at}: ${key(u)}`).toEqual([0n, 0n]);
      }
      expect(s.urnRead?.drift, at).toBe(0);
    }
  });

  it('MakerDAO: the running day’s record holds Vat.debt, DAI’s totalSupply (= mints − burns) and its holders', async () => {
    const doc = await get<Weekly[]>('/data/stablecoin/makerdao');
    expect(doc.data).toHaveLength(7);
    const today = doc.data[0]!;
    expect(today.partial).toBe(true);
    expect(today.token_address).toBe(maker.dai.toLowerCase());
    expect(today.vat_address).toBe(maker.vat.toLowerCase());
    const block = BigInt(today.snapshot_block!);
    const c = client();
    const debt = await c.readContract({ address: maker.vat, abi: VAT, functionName: 'debt', blockNumber: block });
    expect(rel(today.total_debt!, units(debt, RAD))).toBeLessThan(1e-9);
    // Backed (Σ Art × rate over the collateral types) plus system debt (vice) is Vat.debt; the buffer is the Vow's.
    const at = { blockNumber: block } as const;
    const [vice, vowDai, vowSin] = await Promise.all([
      c.readContract({ address: maker.vat, abi: VAT, functionName: 'vice', ...at }),
      c.readContract({ address: maker.vat, abi: VAT, functionName: 'dai', args: [maker.vow], ...at }),
      c.readContract({ address: maker.vat, abi: VAT, functionName: 'sin', args: [maker.vow], ...at }),
    ]);
    expect(rel(today.system_debt!, units(vice, RAD)) < 1e-9 || today.system_debt === units(vice, RAD)).toBe(true);
    expect(rel(today.backed_debt! + today.system_debt!, units(debt, RAD))).toBeLessThan(1e-9);
    const buffer = vowDai - vowSin;
    const bufferUnits = buffer < 0n ? -units(-buffer, RAD) : units(buffer, RAD);
    expect(Math.abs(today.surplus_buffer! - bufferUnits)).toBeLessThanOrEqual(Math.abs(bufferUnits) * 1e-9 + 1e-9);
    const shares = today.kind_shares.reduce((s, k) => s + k.debt_share!, 0);
    expect(shares).toBeCloseTo(1, 5);

    const supply = await c.readContract({
      address: maker.dai,
      abi: ERC20,
      functionName: 'totalSupply',
      blockNumber: block,
    });
    const supply0 = await c.readContract({
      address: maker.dai,
      abi: ERC20,
      functionName: 'totalSupply',
      blockNumber: loadedBlock(maker),
    });
    const { replayed, holders } = await replayTransfers(maker.dai, Number(block));
    expect(supply0 + replayed).toBe(supply);
    expect(rel(today.total_supply!, units(supply, WAD))).toBeLessThan(1e-9);
    // Holders are known from a replay only when the replay explains the whole supply (no balance before the logs).
    if (supply0 === 0n) expect(today.holders).toBe(holders);
    else expect(today.holders).toBeNull();
    expect(today.dex_liquidity_usd).toBeGreaterThan(0);
  });

  it('Liquity: system debt and collateral equal its views and a replay of TroveUpdated; the served TCR is getTCR', async () => {
    const doc = await get<Weekly[]>('/data/stablecoin/liquity');
    const today = doc.data[0]!;
    expect(today.trove_manager_address).toBe(liquity.troveManager.toLowerCase());
    expect(today.token_address).toBe(liquity.lusd.toLowerCase());
    const block = BigInt(today.snapshot_block!);
    const c = client();
    const at = { blockNumber: block } as const;
    const [debt, coll, activeDebt, activeColl, defaultDebt, defaultColl, price] = await Promise.all([
      c.readContract({ address: liquity.troveManager, abi: TROVE_MANAGER, functionName: 'getEntireSystemDebt', ...at }),
      c.readContract({ address: liquity.troveManager, abi: TROVE_MANAGER, functionName: 'getEntireSystemColl', ...at }),
      c.readContract({ address: liquity.activePool, abi: POOL, functionName: 'getLUSDDebt', ...at }),
      c.readContract({ address: liquity.activePool, abi: POOL, functionName: 'getETH', ...at }),
      c.readContract({ address: liquity.defaultPool, abi: POOL, functionName: 'getLUSDDebt', ...at }),
      c.readContract({ address: liquity.defaultPool, abi: POOL, functionName: 'getETH', ...at }),
      c.readContract({ address: liquity.priceFeed, abi: PRICE_FEED, functionName: 'lastGoodPrice', ...at }),
    ]);
    // The replay: each trove's last TroveUpdated is its recorded debt and collateral (the ActivePool's share);
    // redistributed amounts not yet applied sit in the DefaultPool.
    // Both emit it: BorrowerOperations for the owners' operations, the TroveManager for liquidations and redemptions.
    const updates = await logs(
      [liquity.borrowerOperations, liquity.troveManager],
      toEventSelector(TROVE_UPDATED),
      Number(block),
    );
    const troves = new Map<string, { debt: bigint; coll: bigint }>();
    for (const l of updates) {
      const e = decodeEventLog({ abi: [TROVE_UPDATED], data: l.data, topics: l.topics as [Hex, ...Hex[]] });
      troves.set(e.args._borrower.toLowerCase(), { debt: e.args._debt, coll: e.args._coll });
    }
    const open = [...troves.values()].filter((x) => x.debt > 0n);
    const replayDebt = open.reduce((s, x) => s + x.debt, 0n);
    const replayColl = open.reduce((s, x) => s + x.coll, 0n);
    expect(replayDebt).toBe(activeDebt);
    expect(replayColl).toBe(activeColl);
    expect(replayDebt + defaultDebt).toBe(debt);
    expect(replayColl + defaultColl).toBe(coll);
    expect(rel(today.total_debt!, units(debt, WAD))).toBeLessThan(1e-9);
    expect(today.number_unique_wallets).toBe(open.length);
    const tcr = await c.readContract({
      address: liquity.troveManager,
      abi: TROVE_MANAGER,
      functionName: 'getTCR',
      args: [price],
      ...at,
    });
    expect(rel(today.tcr!, units(tcr, WAD))).toBeLessThan(1e-9);

    const supply = await c.readContract({ address: liquity.lusd, abi: ERC20, functionName: 'totalSupply', ...at });
    const { replayed, holders } = await replayTransfers(liquity.lusd, Number(block));
    expect(replayed).toBe(supply);
    expect(rel(today.total_supply!, units(supply, WAD))).toBeLessThan(1e-9);
    expect(today.holders).toBe(holders);
  });

  it('both pegs are priced from their pairs and stay near a dollar (the sandbox’s arbitrage keeps them)', async () => {
    for (const protocol of ['makerdao', 'liquity']) {
      const doc = await get<Weekly[]>(`/data/stablecoin/${protocol}`);
      const priced = doc.data.filter((r) => r.peg_mean_price !== null);
      expect(priced.length, protocol).toBeGreaterThan(2);
      for (const r of priced) {
        expect(r.peg_mean_price!, `${protocol} ${r.date}`).toBeGreaterThan(0.95);
        expect(r.peg_mean_price!, `${protocol} ${r.date}`).toBeLessThan(1.05);
        expect(r.peg_max_deviation!, `${protocol} ${r.date}`).toBeLessThan(0.1);
      }
      // A day before the world began has no snapshot: nulls with a reason, never zeros.
      const empty = doc.data.find((r) => r.snapshot_block === null);
      if (empty) expect(empty.gap_reasons.total_debt).toBe('no_data');
    }
  });

  it('Liquity: the redemption backstop is what one redemption can take within 2 %, by the fee formula read on chain', async () => {
    const doc = await get<Weekly[]>('/data/stablecoin/liquity');
    const today = doc.data[0]!;
    const c = client();
    const at = { blockNumber: BigInt(today.snapshot_block!) } as const;
    const tm = liquity.troveManager;
    const [rate, beta, mcr, debt, price, supply, gas] = await Promise.all([
      c.readContract({ address: tm, abi: TROVE_MANAGER, functionName: 'getRedemptionRateWithDecay', ...at }),
      c.readContract({ address: tm, abi: TROVE_MANAGER, functionName: 'BETA', ...at }),
      c.readContract({ address: tm, abi: TROVE_MANAGER, functionName: 'MCR', ...at }),
      c.readContract({ address: tm, abi: TROVE_MANAGER, functionName: 'getEntireSystemDebt', ...at }),
      c.readContract({ address: liquity.priceFeed, abi: PRICE_FEED, functionName: 'lastGoodPrice', ...at }),
      c.readContract({ address: liquity.lusd, abi: ERC20, functionName: 'totalSupply', ...at }),
      c.readContract({
        address: liquity.lusd,
        abi: BALANCE,
        functionName: 'balanceOf',
        args: [liquity.gasPool],
        ...at,
      }),
    ]);
    const tcr = await c.readContract({ address: tm, abi: TROVE_MANAGER, functionName: 'getTCR', args: [price], ...at });
    // A redemption of x first adds x / (debt × BETA) to the decayed base rate, then charges floor + base on all of x:
    // the fee stays within 2 % while x ≤ (2 % − rate now) × BETA × debt; redemptions are closed below MCR.
    const headroom = 0.02 - units(rate, WAD);
    const expected =
      tcr < mcr || headroom <= 0 ? 0 : Math.min(headroom * Number(beta) * units(debt, WAD), units(supply - gas, WAD));
    expect(today.redeemable_within_exit).toBeCloseTo(expected, 4);
    // Far from the whole debt, as on mainnet: the formula bounds the backstop.
    expect(expected).toBeLessThan(0.1 * units(debt, WAD));
    const score = await get<{ components: { name: string; inputs: Record<string, number> }[] }[]>(
      '/scores/liquidity-stablecoin/ethereum/liquity',
    );
    const exit = score.data[0]!.components.find((x) => x.name === 'exit_liquidity')!;
    expect(exit.inputs.backstop_usd!).toBeLessThanOrEqual(expected * 1.05 + 1e-6);
    expect(exit.inputs.backstop_usd!).toBeGreaterThanOrEqual(expected * 0.95 - 1e-6);
  });

  it('MakerDAO: the liquidation absorption recounts from the Dog, each Clipper and its Abacus (eth_call at the snapshot block)', async () => {
    const doc = await get<Collaterals>('/data/stablecoin/makerdao/collaterals');
    const block = BigInt(doc.data.snapshot_block);
    const c = client();
    const at = { blockNumber: block } as const;
    const Hole = await c.readContract({ address: maker.dog, abi: DOG, functionName: 'Hole', ...at });
    const Dirt = await c.readContract({ address: maker.dog, abi: DOG, functionName: 'Dirt', ...at });
    let globalRoom = units(Hole > Dirt ? Hole - Dirt : 0n, RAD);
    let tab = 0;
    let absorbed = 0;
    let auctioned = 0;
    for (const ilk of maker.ilks) {
      const served = doc.data.collateral_assets.find((a) => a.ilk === ilk.ilk)!;
      const [clip, chop, hole, dirt] = await c.readContract({
        address: maker.dog,
        abi: DOG,
        functionName: 'ilks',
        args: [stringToHex(ilk.ilk, { size: 32 })],
        ...at,
      });
      const due = served.liquidatable.find((l) => l.price_drop === 0.35)?.debt;
      // Every type sits on the Dog and a Clipper, as on mainnet since 2021 (the sandbox's ETH-A included).
      expect(chop, `${ilk.ilk}: the Dog's penalty`).toBeGreaterThan(WAD);
      expect(clip, `${ilk.ilk}: the Dog's Clipper`).not.toBe(ZERO);
      expect(clip.toLowerCase()).toBe(ilk.clip?.toLowerCase());
      auctioned++;
      const read = <F extends 'buf' | 'tail' | 'cusp' | 'calc'>(functionName: F) =>
        c.readContract({ address: clip, abi: CLIPPER, functionName, ...at });
      const [buf, tail, cusp, calc] = [await read('buf'), await read('tail'), await read('cusp'), await read('calc')];
      const atTail = await c.readContract({
        address: calc,
        abi: ABACUS,
        functionName: 'price',
        args: [RAY, tail],
        ...at,
      });
      const lowest = units(buf, RAY) * Math.max(units(cusp, RAY), units(atTail, RAY));
      const a = served.auction!;
      expect(a, ilk.ilk).toMatchObject({ clipper: clip.toLowerCase(), calc: calc.toLowerCase(), tail: Number(tail) });
      expect(Math.abs(a.buf - units(buf, RAY))).toBeLessThan(1e-6);
      expect(Math.abs(a.cusp - units(cusp, RAY))).toBeLessThan(1e-6);
      expect(Math.abs(a.curve_at_tail - units(atTail, RAY))).toBeLessThan(1e-6);
      expect(Math.abs(a.lowest_price - lowest), `${ilk.ilk} lowest price`).toBeLessThan(1e-6);
      expect(Math.abs(a.keeper_margin - Math.max(0, 1 - lowest))).toBeLessThan(1e-6);
      const room = units(hole > dirt ? hole - dirt : 0n, RAD);
      expect(rel(a.room, room), `${ilk.ilk} room`).toBeLessThan(1e-9);
      // The tab the auctions must raise: the debt liquidatable under 35 % × chop, read from the Dog.
      expect(due, ilk.ilk).toBeDefined();
      const t = due! * units(chop, WAD);
      if (t === 0) expect(a.stressed_tab).toBe(0);
      else expect(rel(a.stressed_tab!, t), `${ilk.ilk} tab`).toBeLessThan(1e-6);
      // Absorbed: at most the tab, the type's room, the Dog's global room left, and the pools' depth.
      expect(a.absorbable!).toBeLessThanOrEqual(Math.min(t, room, globalRoom, a.depth ?? 0) * (1 + 1e-6) + 1e-6);
      // LINK has no pool against USDC or DAI in the sandbox: it is sold through WETH.
      if (ilk.token === 'LINK') expect(a.depth, 'LINK-A routed through WETH').toBeGreaterThan(0);
      globalRoom -= a.absorbable!;
      tab += t;
      absorbed += a.absorbable!;
    }
    expect(auctioned).toBe(maker.ilks.length);
    const scores = await get<
      { components: { name: string; value: number | null; inputs: Record<string, number> }[] }[]
    >('/scores/liquidity-stablecoin/ethereum/makerdao');
    const component = scores.data[0]!.components.find((x) => x.name === 'liquidation_absorption')!;
    expect(component.value).not.toBeNull();
    const coverage = tab > 0 ? Math.min(1, absorbed / tab) : 1;
    expect(Math.abs(component.value! - coverage), 'coverage = Σ absorbable / Σ tab').toBeLessThan(1e-4);
    if (tab > 0) {
      const served = component.inputs.absorbable_usd! / component.inputs.liquidatable_usd!;
      expect(Math.abs(served - absorbed / tab), 'absorbable_usd / liquidatable_usd').toBeLessThan(1e-3);
    }
  });

  it('the published week holds the crash: Maker barks and takes, Liquity liquidations, recounted from the logs', async () => {
    const makerDays = (await get<Weekly[]>('/data/stablecoin/makerdao')).data;
    const liquityDays = (await get<Weekly[]>('/data/stablecoin/liquity')).data;
    const week = await publishedWeek(makerDays);
    // Maker: Bark from the Dog, Take from the Clippers the Dog names.
    const barks = await weekLogs(maker.dog, toEventSelector(BARK), week);
    const clips = maker.ilks.map((i) => i.clip!).filter(Boolean);
    const takes = await weekLogs(clips, toEventSelector(TAKE), week);
    expect(barks.inside.length, 'Barks in the published week').toBeGreaterThan(0);
    expect(takes.inside.length, 'Takes in the published week').toBeGreaterThan(0);
    const served = (rows: Weekly[], k: 'liquidations' | 'auction_takes' | 'redemptions') =>
      rows.reduce((n, r) => n + ((r[k] as number | null | undefined) ?? 0), 0);
    // The served days count them: the week's sum, whether the block at the week's first instant counts or not.
    const within = (n: number, x: { inside: unknown[]; atStart: unknown[] }) =>
      n >= x.inside.length - x.atStart.length && n <= x.inside.length;
    expect(within(served(makerDays, 'liquidations'), barks), 'served Maker liquidations = Barks').toBe(true);
    expect(within(served(makerDays, 'auction_takes'), takes), 'served takes = Takes').toBe(true);
    // Liquity: TroveLiquidated from the TroveManager.
    const troves = await weekLogs(liquity.troveManager, toEventSelector(TROVE_LIQUIDATED), week);
    expect(troves.inside.length, 'Liquity liquidations in the published week').toBeGreaterThan(0);
    expect(within(served(liquityDays, 'liquidations'), troves), 'served Liquity liquidations').toBe(true);
  });

  it('Liquity: every redemption of the published week ran while LUSD traded under its peg on the pair', async () => {
    const days = (await get<Weekly[]>('/data/stablecoin/liquity')).data;
    const week = await publishedWeek(days);
    const redemptions = await weekLogs(liquity.troveManager, toEventSelector(REDEMPTION), week);
    expect(redemptions.inside.length, 'redemptions in the published week').toBeGreaterThan(0);
    const served = days.reduce((n, r) => n + (r.redemptions ?? 0), 0);
    expect(served).toBeGreaterThanOrEqual(redemptions.inside.length - redemptions.atStart.length);
    expect(served).toBeLessThanOrEqual(redemptions.inside.length);
    // The pair's reserves from its Sync logs: the last before the redemption (in the block's order) and the last of an
    // earlier block (the price at the block's start).
    const syncs = await logs(liquity.pool.address, toEventSelector(SYNC), week.toBlock);
    const lusdIs0 = liquity.pool.token0.toLowerCase() === liquity.lusd.toLowerCase();
    const price = (l: Log) => {
      const e = decodeEventLog({ abi: [SYNC], data: l.data, topics: l.topics as [Hex, ...Hex[]] });
      const [lusd, usdc] = lusdIs0 ? [e.args.reserve0, e.args.reserve1] : [e.args.reserve1, e.args.reserve0];
      return units(usdc, 10n ** 6n) / units(lusd, WAD);
    };
    const order = (l: Log) => [Number(l.blockNumber), Number(l.logIndex)] as const;
    for (const red of redemptions.inside) {
      const [block, index] = order(red);
      const last = syncs.findLast((l) => order(l)[0] < block || (order(l)[0] === block && order(l)[1] < index));
      const start = syncs.findLast((l) => order(l)[0] < block);
      expect(price(last!), `redemption in block ${block}`).toBeLessThan(1);
      expect(price(start!), `block ${block}'s start`).toBeLessThan(1);
    }
  });

  /** The published week: from the oldest served day's first instant to the newest record's snapshot block. */
  async function publishedWeek(rows: Weekly[]) {
    expect(rows).toHaveLength(7);
    const from = Date.parse(`${rows.at(-1)!.date.slice(0, 10)}T00:00:00Z`) / 1000;
    const toBlock = rows[0]!.snapshot_block!;
    // The world began before the week: its first day has a snapshot.
    expect(rows.at(-1)!.snapshot_block).not.toBeNull();
    return { from, toBlock };
  }

  /** The logs of the week, and those of a block at its very first instant (a day window may count them either side). */
  async function weekLogs(address: Address | Address[], topic0: Hex, week: { from: number; toBlock: number }) {
    const all = await logs(address, topic0, week.toBlock);
    const times = new Map<string, number>();
    for (const l of all) {
      const key = l.blockNumber!.toString();
      if (!times.has(key)) {
        const b = await client().getBlock({ blockNumber: BigInt(l.blockNumber!) });
        times.set(key, Number(b.timestamp));
      }
    }
    const at = (l: Log) => times.get(l.blockNumber!.toString())!;
    const inside = all.filter((l) => at(l) >= week.from);
    return { inside, atStart: inside.filter((l) => at(l) === week.from) };
  }

  it('scores every (chain, protocol) with its components, and lists them all', async () => {
    for (const protocol of ['makerdao', 'liquity']) {
      const doc = await get<
        { score: number | null; components: { name: string; value: number | null; gap_reason?: string }[] }[]
      >(`/scores/liquidity-stablecoin/ethereum/${protocol}`);
      expect(doc.data).toHaveLength(7);
      expect(doc.data[0]!.score).not.toBeNull();
      expect(doc.data[0]!.components.map((x) => x.name)).toEqual([
        'peg_stability',
        'exit_liquidity',
        'collateral_buffer',
        'liquidation_absorption',
        'collateral_concentration',
        'holder_concentration',
      ]);
      // The holder component is known exactly where the record's holders are, else null with the holders' reason.
      const weekly = await get<Weekly[]>(`/data/stablecoin/${protocol}`);
      const holderPart = doc.data[0]!.components.find((x) => x.name === 'holder_concentration')!;
      if (weekly.data[0]!.holders === null) {
        expect(holderPart).toMatchObject({ value: null, gap_reason: weekly.data[0]!.gap_reasons.holders });
      } else expect(holderPart.value).not.toBeNull();
    }
    const all = await get<{ protocol: string }[]>('/scores/liquidity-stablecoin-all-markets');
    expect(all.data.map((x) => x.protocol).sort()).toEqual(['liquity', 'makerdao']);
  });

  /** Mints − burns and the holders (positive balances) from every Transfer of the token up to `block`. */
  async function replayTransfers(token: Address, block: number) {
    const balances = new Map<string, bigint>();
    let replayed = 0n;
    for (const l of await logs(token, toEventSelector(TRANSFER), block)) {
      const e = decodeEventLog({ abi: [TRANSFER], data: l.data, topics: l.topics as [Hex, ...Hex[]] });
      const from = e.args.from.toLowerCase();
      const to = e.args.to.toLowerCase();
      if (from === ZERO) replayed += e.args.value;
      else balances.set(from, (balances.get(from) ?? 0n) - e.args.value);
      if (to === ZERO) replayed -= e.args.value;
      else balances.set(to, (balances.get(to) ?? 0n) + e.args.value);
    }
    return { replayed, holders: [...balances.values()].filter((v) => v > 0n).length };
  }
});
