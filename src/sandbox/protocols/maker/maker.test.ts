import { createPublicClient, hexToString, http, type PublicClient, parseAbi, stringToHex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../../test/support/anvil.js';
import { addressBookFromManifest } from '../../world/address-book.js';
import { deployWorld } from '../../world/deploy.js';
import type { WorldManifest } from '../../world/manifest.js';
import { MAKER_COLLATERALS } from './deploy.js';
import { readMakerSnapshot } from './snapshot.js';

/** An hour boundary. */
const GENESIS = 1_699_999_200;
const SEED = 7;

const chainLogAbi = parseAbi([
  'function getAddress(bytes32 key) view returns (address)',
  'function list() view returns (bytes32[])',
  'function count() view returns (uint256)',
]);
const joinAbi = parseAbi(['function gem() view returns (address)', 'function dec() view returns (uint256)']);
const vatAbi = parseAbi([
  'function ilks(bytes32) view returns (uint256 Art, uint256 rate, uint256 spot, uint256 line, uint256 dust)',
  'function debt() view returns (uint256)',
]);
const spotAbi = parseAbi(['function ilks(bytes32) view returns (address pip, uint256 mat)']);
const pipAbi = parseAbi(['function peek() view returns (bytes32, bool)']);
const registryAbi = parseAbi(['function list() view returns (bytes32[])']);

const anvils = useAnvils();

describe('MakerDAO in the sandbox world', () => {
  let manifest: WorldManifest;
  let client: PublicClient;

  beforeAll(async () => {
    const anvil = await anvils.start({ genesisTimestamp: GENESIS - 3600 });
    const deployed = await deployWorld(anvil.rpcUrl, { seed: SEED, startTimestamp: GENESIS, scale: 0.3 });
    manifest = deployed.manifest;
    client = createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient;
  }, 120_000);

  it('loads every contract of @makerdao/testchain@1.1.33-beta5’s snapshot with its code and storage', async () => {
    const snapshot = await readMakerSnapshot();
    expect(snapshot.version).toBe('1.1.33-beta5');
    expect(snapshot.accounts.size).toBeGreaterThan(150);
    const gemSlot = `0x${'3'.padStart(64, '0')}`;
    const rewired = new Set(MAKER_COLLATERALS.map((c) => snapshot.addresses[c.join]!.toLowerCase()));
    for (const account of snapshot.accounts.values()) {
      expect(await client.getCode({ address: account.address }), account.address).toBe(account.code);
    }
    // Every slot as the snapshot holds it, but the joins' gem (the world's tokens) and what genesis moved.
    const vat = snapshot.addresses.MCD_VAT!;
    let same = 0;
    for (const [slot, value] of snapshot.accounts.get(vat)!.storage) {
      if ((await client.getStorageAt({ address: vat, slot: slot, blockNumber: 0n })) === value) same++;
    }
    expect(same).toBe(snapshot.accounts.get(vat)!.storage.size);
    for (const join of rewired) {
      expect(await client.getStorageAt({ address: join as `0x${string}`, slot: gemSlot as `0x${string}` })).not.toBe(
        snapshot.accounts.get(join as never)?.storage.get(gemSlot as never),
      );
    }
  }, 60_000);

  it('the Chainlog resolves mainnet’s keys, and the address book names it', async () => {
    const m = manifest.maker!;
    const get = (key: string) =>
      client.readContract({
        address: m.chainlog,
        abi: chainLogAbi,
        functionName: 'getAddress',
        args: [stringToHex(key, { size: 32 })],
      });
    expect(await get('MCD_VAT')).toBe(m.vat);
    expect(await get('MCD_DAI')).toBe(m.dai);
    expect(await get('MCD_JOIN_DAI')).toBe(m.daiJoin);
    expect(await get('ILK_REGISTRY')).toBe(m.ilkRegistry);
    expect(await get('MCD_CLIP_ETH_B')).toBe(m.ilks.find((i) => i.ilk === 'ETH-B')!.clip);
    await expect(get('NOT_A_KEY')).rejects.toThrow();
    const keys = (await client.readContract({ address: m.chainlog, abi: chainLogAbi, functionName: 'list' })).map((k) =>
      hexToString(k, { size: 32 }),
    );
    expect(keys).toContain('PIP_ETH');
    const book = addressBookFromManifest(manifest);
    expect(book.chains.ethereum!.entries['stablecoin/makerdao']).toEqual({ address: m.chainlog.toLowerCase() });
  });

  it('the collateral types take the world’s tokens and are priced by its feeds', async () => {
    const m = manifest.maker!;
    const registered = (
      await client.readContract({ address: m.ilkRegistry, abi: registryAbi, functionName: 'list' })
    ).map((k) => hexToString(k, { size: 32 }));
    expect(registered).toEqual(m.ilks.map((i) => i.ilk));
    for (const ilk of m.ilks) {
      const token = manifest.tokens.find((t) => t.symbol === ilk.token)!;
      expect(await client.readContract({ address: ilk.join, abi: joinAbi, functionName: 'gem' })).toBe(token.address);
      expect(await client.readContract({ address: ilk.join, abi: joinAbi, functionName: 'dec' })).toBe(
        BigInt(token.decimals),
      );
      const feed = manifest.oracles!.find((o) => o.token === ilk.token)!;
      const answer = (await client.readContract({
        address: feed.proxy,
        abi: parseAbi(['function latestAnswer() view returns (int256)']),
        functionName: 'latestAnswer',
      })) as bigint;
      const [value] = await client.readContract({ address: ilk.pip, abi: pipAbi, functionName: 'peek' });
      expect(BigInt(value)).toBe(answer * 10n ** 10n);
      const b = stringToHex(ilk.ilk, { size: 32 });
      const [, mat] = await client.readContract({ address: m.spot, abi: spotAbi, functionName: 'ilks', args: [b] });
      const [, rate, spot] = await client.readContract({
        address: m.vat,
        abi: vatAbi,
        functionName: 'ilks',
        args: [b],
      });
      // Vat.spot = price / liquidation ratio, in RAY (Spot.poke: rdiv(rmul(val * 1e9, par), mat)).
      expect(spot).toBe((((answer * 10n ** 19n * 10n ** 27n) / 10n ** 27n) * 10n ** 27n) / mat);
      expect(rate).toBeGreaterThan(10n ** 27n); // the first drip compounded the years since the snapshot
    }
  });
});
