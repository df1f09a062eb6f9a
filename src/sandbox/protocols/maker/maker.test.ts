import {
  createPublicClient,
  decodeEventLog,
  hexToString,
  http,
  type PublicClient,
  parseAbi,
  stringToHex,
  toEventSelector,
} from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../../test/support/anvil.js';
import { addressBookFromManifest } from '../../world/address-book.js';
import { deployWorld } from '../../world/deploy.js';
import type { WorldManifest } from '../../world/manifest.js';
import { simulate } from '../../world/scenario.js';
import type { ScenarioState } from '../../world/state.js';
import { clipperAbi, dogAbi, vatAbi } from './abis.js';
import { MAKER_COLLATERALS, vatCeilingSlots } from './deploy.js';
import { readMakerSnapshot } from './snapshot.js';

/** An hour boundary. */
const GENESIS = 1_699_999_200;
const SEED = 7;
/** Through the scenario's ETH crash (hours 30–33) and a few hours of auctions after it. */
const HOURS = 40;

const chainLogAbi = parseAbi([
  'function getAddress(bytes32 key) view returns (address)',
  'function list() view returns (bytes32[])',
]);
const joinAbi = parseAbi(['function gem() view returns (address)', 'function dec() view returns (uint256)']);
const spotAbi = parseAbi(['function ilks(bytes32) view returns (address pip, uint256 mat)']);
const pipAbi = parseAbi(['function peek() view returns (bytes32, bool)']);
const registryAbi = parseAbi(['function list() view returns (bytes32[])']);
const feedAbi = parseAbi(['function latestAnswer() view returns (int256)']);
const daiAbi = parseAbi([
  'function totalSupply() view returns (uint256)',
  'event Transfer(address indexed src, address indexed dst, uint256 wad)',
]);
const vatViews = parseAbi(['function vice() view returns (uint256)']);
const clipViews = parseAbi([
  'function ilk() view returns (bytes32)',
  'function vat() view returns (address)',
  'function dog() view returns (address)',
  'function spotter() view returns (address)',
  'function vow() view returns (address)',
  'function calc() view returns (address)',
]);
const wardsAbi = parseAbi(['function wards(address) view returns (uint256)']);
const registryViews = parseAbi([
  'function xlip(bytes32) view returns (address)',
  'function class(bytes32) view returns (uint256)',
]);
const ZERO = '0x0000000000000000000000000000000000000000';

const anvils = useAnvils();

describe('MakerDAO in the sandbox world', () => {
  let manifest: WorldManifest;
  let client: PublicClient;
  let genesisBlock: bigint;
  let state: ScenarioState;

  beforeAll(async () => {
    const anvil = await anvils.start({ genesisTimestamp: GENESIS - 3600 });
    const deployed = await deployWorld(anvil.rpcUrl, {
      seed: SEED,
      startTimestamp: GENESIS,
      scale: 0.3,
      stablecoins: true,
    });
    manifest = deployed.manifest;
    client = createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient;
    genesisBlock = await client.getBlockNumber();
    state = (await simulate(anvil.rpcUrl, manifest, deployed.state, GENESIS + HOURS * 3600, {
      stepSeconds: 3600,
    })) as ScenarioState;
  }, 240_000);

  const b32 = (text: string) => stringToHex(text, { size: 32 });

  it('loads every contract of @makerdao/testchain@1.1.33-beta5’s snapshot at its address, with its code', async () => {
    const snapshot = await readMakerSnapshot();
    expect(snapshot.version).toBe('1.1.33-beta5');
    expect(snapshot.accounts.size).toBe(197);
    for (const account of snapshot.accounts.values()) {
      expect(await client.getCode({ address: account.address }), account.address).toBe(account.code);
    }
    // The snapshot's storage as it was before genesis (block 0 holds the loaded state), e.g. the Vat's and the DAI's,
    // but for the debt ceilings the load raises (`CEILINGS`: the world's DAI is all drawn from vaults).
    const ceilings = new Map(vatCeilingSlots().map((c) => [c.slot, c.value]));
    for (const key of ['MCD_VAT', 'MCD_DAI', 'MCD_SPOT']) {
      const address = snapshot.addresses[key]!;
      for (const [slot, value] of snapshot.accounts.get(address)!.storage) {
        const expected = (key === 'MCD_VAT' && ceilings.get(slot)) || value;
        expect(await client.getStorageAt({ address, slot, blockNumber: 0n }), `${key} ${slot}`).toBe(expected);
      }
    }
    for (const [slot, value] of ceilings)
      expect(await client.getStorageAt({ address: snapshot.addresses.MCD_VAT!, slot, blockNumber: 0n })).toBe(value);
  }, 60_000);

  it('the Chainlog resolves mainnet’s keys, and the address book names it', async () => {
    const m = manifest.maker!;
    const get = (key: string) =>
      client.readContract({ address: m.chainlog, abi: chainLogAbi, functionName: 'getAddress', args: [b32(key)] });
    expect(await get('MCD_VAT')).toBe(m.vat);
    expect(await get('MCD_DAI')).toBe(m.dai);
    expect(await get('MCD_JOIN_DAI')).toBe(m.daiJoin);
    expect(await get('ILK_REGISTRY')).toBe(m.ilkRegistry);
    expect(await get('MCD_CLIP_ETH_B')).toBe(m.ilks.find((i) => i.ilk === 'ETH-B')!.clip);
    await expect(get('NOT_A_KEY')).rejects.toThrow();
    const keys = await client.readContract({ address: m.chainlog, abi: chainLogAbi, functionName: 'list' });
    expect(keys.map((k) => hexToString(k, { size: 32 }))).toContain('PIP_ETH');
    const book = addressBookFromManifest(manifest);
    expect(book.chains.ethereum!.entries['stablecoin/makerdao']).toEqual({ address: m.chainlog.toLowerCase() });
  });

  it('the collateral types take the world’s tokens, and their pips follow the world’s feeds every hour', async () => {
    const m = manifest.maker!;
    const registered = await client.readContract({ address: m.ilkRegistry, abi: registryAbi, functionName: 'list' });
    expect(registered.map((k) => hexToString(k, { size: 32 }))).toEqual(MAKER_COLLATERALS.map((c) => c.ilk));
    const head = await client.getBlockNumber();
    for (const ilk of m.ilks) {
      const token = manifest.tokens.find((t) => t.symbol === ilk.token)!;
      expect(await client.readContract({ address: ilk.join, abi: joinAbi, functionName: 'gem' })).toBe(token.address);
      expect(await client.readContract({ address: ilk.join, abi: joinAbi, functionName: 'dec' })).toBe(
        BigInt(token.decimals),
      );
      const feed = manifest.oracles!.find((o) => o.token === ilk.token)!;
      // At genesis and at each of the last hours: pip = feed answer × 1e10, Vat.spot = price / mat (RAY).
      for (const blockNumber of [genesisBlock, head - 2n, head - 1n, head]) {
        const answer = await client.readContract({
          address: feed.proxy,
          abi: feedAbi,
          functionName: 'latestAnswer',
          blockNumber,
        });
        const [value] = await client.readContract({ address: ilk.pip, abi: pipAbi, functionName: 'peek', blockNumber });
        expect(BigInt(value), `${ilk.ilk} at ${blockNumber}`).toBe(answer * 10n ** 10n);
        const [, mat] = await client.readContract({
          address: m.spot,
          abi: spotAbi,
          functionName: 'ilks',
          args: [b32(ilk.ilk)],
          blockNumber,
        });
        const [, rate, spot] = await client.readContract({
          address: m.vat,
          abi: vatAbi,
          functionName: 'ilks',
          args: [b32(ilk.ilk)],
          blockNumber,
        });
        expect(spot).toBe((answer * 10n ** 19n * 10n ** 27n) / mat);
        expect(rate).toBeGreaterThan(10n ** 27n); // the first drip compounded the years since the snapshot
      }
    }
  });

  it('after the stretch: Vat debt = Σ Art × rate + vice, DAI supply = DaiJoin mints − burns', async () => {
    const m = manifest.maker!;
    let sum = 0n;
    let art = 0n;
    for (const ilk of MAKER_COLLATERALS) {
      const [Art, rate] = await client.readContract({
        address: m.vat,
        abi: vatAbi,
        functionName: 'ilks',
        args: [b32(ilk.ilk)],
      });
      sum += Art * rate;
      art += Art;
    }
    const debt = await client.readContract({ address: m.vat, abi: vatAbi, functionName: 'debt' });
    const vice = await client.readContract({ address: m.vat, abi: vatViews, functionName: 'vice' });
    expect(art).toBeGreaterThan(0n);
    expect(debt).toBe(sum + vice);

    const logs = await client.getLogs({
      address: m.dai,
      event: daiAbi[1],
      fromBlock: 0n,
      toBlock: 'latest',
    });
    let minted = 0n;
    let burned = 0n;
    for (const log of logs) {
      if (log.args.src === ZERO) minted += log.args.wad!;
      if (log.args.dst === ZERO) burned += log.args.wad!;
    }
    expect(minted).toBeGreaterThan(0n);
    expect(burned).toBeGreaterThan(0n); // repayments
    expect(await client.readContract({ address: m.dai, abi: daiAbi, functionName: 'totalSupply' })).toBe(
      minted - burned,
    );
    expect(state.stats.revertedUnexpected).toBe(0);
  });

  it('every collateral type sits on the Dog and a Clipper of its own; the Cat can no longer kick ETH-A’s Flipper', async () => {
    const m = manifest.maker!;
    const snapshot = await readMakerSnapshot();
    const get = (key: string) =>
      client.readContract({ address: m.chainlog, abi: chainLogAbi, functionName: 'getAddress', args: [b32(key)] });
    const at = { blockNumber: genesisBlock + 1n } as const; // the governance is executed at the first step
    for (const ilk of m.ilks) {
      const suffix = ilk.ilk.replace('-', '_');
      expect(ilk.clip, ilk.ilk).toBeDefined();
      const clip = ilk.clip!;
      const [dogClip, chop, hole] = await client.readContract({
        address: m.dog,
        abi: dogAbi,
        functionName: 'ilks',
        args: [b32(ilk.ilk)],
        ...at,
      });
      expect(dogClip, ilk.ilk).toBe(clip);
      expect(chop, ilk.ilk).toBeGreaterThan(10n ** 18n);
      expect(hole, ilk.ilk).toBeGreaterThan(0n);
      const read = <F extends 'ilk' | 'vat' | 'dog' | 'spotter' | 'vow' | 'calc'>(functionName: F) =>
        client.readContract({ address: clip, abi: clipViews, functionName, ...at });
      expect(await read('ilk')).toBe(b32(ilk.ilk));
      expect(await read('vat')).toBe(m.vat);
      expect(await read('dog')).toBe(m.dog);
      expect(await read('spotter')).toBe(m.spot);
      expect(await read('vow')).toBe(m.vow);
      expect(await read('calc')).toBe(await get(`MCD_CLIP_CALC_${suffix}`));
      expect(await get(`MCD_CLIP_${suffix}`)).toBe(clip);
      const wards = (address: `0x${string}`, who: `0x${string}`) =>
        client.readContract({ address, abi: wardsAbi, functionName: 'wards', args: [who], ...at });
      expect(await wards(clip, m.dog), `${ilk.ilk}: the Dog may kick`).toBe(1n);
      expect(await wards(m.vat, clip), `${ilk.ilk}: the Vat trusts the Clipper`).toBe(1n);
      expect(await wards(m.dog, clip), `${ilk.ilk}: the Dog trusts the Clipper`).toBe(1n);
      const info = await client.readContract({
        address: m.ilkRegistry,
        abi: registryViews,
        functionName: 'xlip',
        args: [b32(ilk.ilk)],
      });
      expect(info, `${ilk.ilk}: the IlkRegistry names the Clipper`).toBe(clip);
      expect(
        await client.readContract({
          address: m.ilkRegistry,
          abi: registryViews,
          functionName: 'class',
          args: [b32(ilk.ilk)],
        }),
      ).toBe(1n);
    }
    // ETH-A's Clipper is new (the snapshot's ETH-A is a Flipper type): the Cat lost its right to kick the Flipper.
    const ethA = m.ilks.find((i) => i.ilk === 'ETH-A')!;
    expect(snapshot.accounts.has(ethA.clip!)).toBe(false);
    const flip = snapshot.addresses.MCD_FLIP_ETH_A!;
    const cat = snapshot.addresses.MCD_CAT!;
    expect(
      await client.readContract({ address: flip, abi: wardsAbi, functionName: 'wards', args: [cat], blockNumber: 0n }),
    ).toBe(1n);
    expect(await client.readContract({ address: flip, abi: wardsAbi, functionName: 'wards', args: [cat], ...at })).toBe(
      0n,
    );
  });

  it('the ETH crash is liquidated: a bark kicks a Clipper auction, and the keeper takes it', async () => {
    const m = manifest.maker!;
    const clips = m.ilks.flatMap((i) => (i.clip ? [i.clip] : []));
    const logs = await client.getLogs({ address: clips, fromBlock: genesisBlock, toBlock: 'latest' });
    const kick = toEventSelector(clipperAbi.find((x) => x.type === 'event' && x.name === 'Kick')!);
    const take = toEventSelector(clipperAbi.find((x) => x.type === 'event' && x.name === 'Take')!);
    const kicks = logs.filter((l) => l.topics[0] === kick);
    const takes = logs.filter((l) => l.topics[0] === take);
    expect(kicks.length).toBeGreaterThan(0);
    expect(takes.length).toBeGreaterThan(0);
    const kicked = decodeEventLog({ abi: clipperAbi, ...kicks[0]! });
    expect(kicked.eventName).toBe('Kick');
    // The crash: no auction before hour 30.
    const first = await client.getBlock({ blockNumber: kicks[0]!.blockNumber });
    expect(Number(first.timestamp)).toBeGreaterThanOrEqual(GENESIS + 30 * 3600);
    expect(state.maker!.stats.barks).toBeGreaterThanOrEqual(kicks.length);
  });
});
