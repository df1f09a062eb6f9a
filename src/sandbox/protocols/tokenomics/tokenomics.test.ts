import {
  type Address,
  createPublicClient,
  decodeEventLog,
  getAddress,
  http,
  type PublicClient,
  parseAbi,
  zeroAddress,
} from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useAnvils } from '../../../../test/support/anvil.js';
import { bookKey } from '../../../registry/address-book.js';
import { addressBookFromManifest } from '../../world/address-book.js';
import { deployWorld } from '../../world/deploy.js';
import type { ManifestTokenomicsHolder, ManifestTokenomicsToken, WorldManifest } from '../../world/manifest.js';
import { simulate } from '../../world/scenario.js';
import type { ScenarioState } from '../../world/state.js';
import {
  merkleDistributorAbi,
  timelockAbi,
  timelockControllerAbi,
  tokenAbi,
  tokenTimelockAbi,
  treasuryVesterAbi,
  uniAbi,
  vestingWalletAbi,
} from './abis.js';
import { BURN_ADDRESS, TOKENOMICS_PLAN } from './plan.js';

const GENESIS = 1_699_999_200;
const SEED = 7;
/** Past investors-1's cliff (18 h), LINK's investors-2 step (30 h), and many airdrop claims. */
const HOURS = 36;
const WAD = 10n ** 18n;

const anvils = useAnvils();

describe('the tokenomics tokens in the sandbox world', () => {
  let manifest: WorldManifest;
  let state: ScenarioState;
  let client: PublicClient;
  let genesisBlock: bigint;

  const tok = (symbol: string): ManifestTokenomicsToken =>
    manifest.tokenomics!.tokens.find((t) => t.symbol === symbol)!;
  const holder = (symbol: string, label: string): ManifestTokenomicsHolder =>
    tok(symbol).holders.find((h) => h.label === label)!;
  const balance = (token: Address, account: Address, blockNumber?: bigint) =>
    client.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [account], blockNumber });

  beforeAll(async () => {
    const anvil = await anvils.start({ genesisTimestamp: GENESIS - 1 });
    client = createPublicClient({ transport: http(anvil.rpcUrl) }) as PublicClient;
    const world = await deployWorld(anvil.rpcUrl, {
      seed: SEED,
      startTimestamp: GENESIS,
      scale: 0.3,
      stablecoins: true,
    });
    manifest = world.manifest;
    state = world.state as ScenarioState;
    genesisBlock = BigInt(manifest.tokenomics!.startBlock);
  }, 120_000);

  it('issues each token with its whole supply, handed out at genesis as planned', async () => {
    for (const plan of TOKENOMICS_PLAN) {
      const t = tok(plan.symbol);
      expect(manifest.tokens.find((w) => w.symbol === plan.symbol)?.address).toBe(t.address);
      const supply = await client.readContract({ address: t.address, abi: tokenAbi, functionName: 'totalSupply' });
      expect(supply).toBe(BigInt(plan.supply) * WAD);
      expect(await client.readContract({ address: t.address, abi: tokenAbi, functionName: 'decimals' })).toBe(18);
      expect(await balance(t.address, t.issuer, genesisBlock)).toBe(0n);
      let float = 0n;
      let floatHeld = 0n;
      for (const h of t.holders) {
        const held = await balance(t.address, h.address, genesisBlock);
        if (h.category === 'exchange') {
          float += BigInt(h.amount);
          floatHeld += held;
        } else expect(held, `${plan.symbol} ${h.label}`).toBe(BigInt(h.amount));
      }
      // The exchange wallets paid the pools' seeds out of their float in the same block (a small part of it).
      expect(floatHeld).toBeLessThan(float);
      expect(floatHeld).toBeGreaterThan((float * 9n) / 10n);
    }
  });

  it("the contracts' own views say what the plan says", async () => {
    const uni = tok('UNI');
    const timelock = holder('UNI', 'timelock');
    expect(await client.readContract({ address: uni.address, abi: uniAbi, functionName: 'minter' })).toBe(
      timelock.address,
    );
    expect(await client.readContract({ address: timelock.address, abi: timelockAbi, functionName: 'delay' })).toBe(
      172_800n,
    );
    const vester = holder('UNI', 'investors-1');
    const read = (fn: 'recipient' | 'vestingAmount' | 'vestingBegin' | 'vestingCliff' | 'vestingEnd') =>
      client.readContract({ address: vester.address, abi: treasuryVesterAbi, functionName: fn });
    expect(await read('recipient')).toBe(vester.beneficiary);
    expect(await read('vestingAmount')).toBe(BigInt(vester.amount));
    expect(await read('vestingBegin')).toBe(BigInt(GENESIS));
    expect(await read('vestingCliff')).toBe(BigInt(GENESIS + 18 * 3600));
    expect(await read('vestingEnd')).toBe(BigInt(vester.schedule!.end));
    expect(
      await client.readContract({
        address: holder('UNI', 'treasury-1').address,
        abi: treasuryVesterAbi,
        functionName: 'recipient',
      }),
    ).toBe(timelock.address);
    const drop = uni.airdrop!;
    expect(
      await client.readContract({ address: drop.distributor, abi: merkleDistributorAbi, functionName: 'merkleRoot' }),
    ).toBe(drop.merkleRoot);
    expect(drop.claims.reduce((s, c) => s + BigInt(c.amount), 0n)).toBe(BigInt(holder('UNI', 'airdrop').amount));

    const wallet = holder('LINK', 'team-1');
    expect(
      await client.readContract({ address: wallet.address, abi: vestingWalletAbi, functionName: 'beneficiary' }),
    ).toBe(wallet.beneficiary);
    expect(await client.readContract({ address: wallet.address, abi: vestingWalletAbi, functionName: 'start' })).toBe(
      BigInt(GENESIS + 86_400),
    );
    expect(
      await client.readContract({ address: wallet.address, abi: vestingWalletAbi, functionName: 'duration' }),
    ).toBe(BigInt(30 * 86_400));
    const step = holder('AAVE', 'investors-2');
    expect(
      await client.readContract({ address: step.address, abi: tokenTimelockAbi, functionName: 'releaseTime' }),
    ).toBe(BigInt(GENESIS + 84 * 3600));
    const treasury = holder('AAVE', 'ecosystem-reserve');
    expect(
      await client.readContract({ address: treasury.address, abi: timelockControllerAbi, functionName: 'getMinDelay' }),
    ).toBe(172_800n);
  });

  it('no one can mint: Uni only by its Timelock after four years, the OpenZeppelin preset has no mint', async () => {
    const uni = tok('UNI');
    await expect(
      client.simulateContract({
        address: uni.address,
        abi: uniAbi,
        functionName: 'mint',
        args: [manifest.deployer, 1n],
        account: manifest.deployer,
      }),
    ).rejects.toThrow(/only the minter/);
    await expect(
      client.simulateContract({
        address: uni.address,
        abi: uniAbi,
        functionName: 'mint',
        args: [manifest.deployer, 1n],
        account: holder('UNI', 'timelock').address,
      }),
    ).rejects.toThrow(/minting not allowed yet/);
    for (const symbol of ['LINK', 'AAVE'])
      await expect(
        client.simulateContract({
          address: tok(symbol).address,
          abi: parseAbi(['function mint(uint256 value) returns (bool)']),
          functionName: 'mint',
          args: [1n],
          account: manifest.deployer,
        }),
      ).rejects.toThrow();
  });

  it('lists every labelled holder in the address book under its tokenomics key', () => {
    const book = addressBookFromManifest(manifest).chains.ethereum!;
    for (const t of manifest.tokenomics!.tokens)
      for (const h of t.holders)
        expect(book.entries[bookKey.tokenomics(t.protocol, h.category, h.kind, h.label)]?.address).toBe(
          h.address.toLowerCase(),
        );
    expect(book.entries[bookKey.tokenomics('uniswap', 'community', 'merkle_distributor', 'airdrop')]).toBeDefined();
    expect(book.entries[bookKey.tokenomics('chainlink', 'burn', 'burn', 'dead')]?.address).toBe(
      BURN_ADDRESS.toLowerCase(),
    );
    expect(book.tokens.UNI?.address).toBe(tok('UNI').address.toLowerCase());
    expect(book.entries[bookKey.tokenomics('uniswap', 'team', 'eoa', 'team-1-beneficiary')]?.address).toBe(
      holder('UNI', 'team-1').beneficiary!.toLowerCase(),
    );
  });

  describe(`after ${HOURS} simulated hours`, () => {
    let head: bigint;
    beforeAll(async () => {
      state = (await simulate(client.transport.url as string, manifest, state, GENESIS + HOURS * 3600, {
        stepSeconds: 3600,
      })) as ScenarioState;
      head = await client.getBlockNumber();
    }, 600_000);

    it('ran without an unexpected revert and moved tokens only by transfers (no mint), exchanges both ways', () => {
      expect(state.stats.revertedUnexpected).toBe(0);
      const s = state.tokenomics!.stats;
      expect(s.withdrawals).toBeGreaterThan(0);
      expect(s.deposits).toBeGreaterThan(0);
      expect(s.vesterClaims).toBeGreaterThan(0);
      expect(s.releases).toBeGreaterThan(0);
      expect(s.airdropClaims).toBeGreaterThan(0);
    });

    it('replaying Transfer logs gives every balance, summing to the unchanged total supply', async () => {
      for (const t of manifest.tokenomics!.tokens) {
        const logs = await client.getLogs({
          address: t.address,
          event: tokenAbi.find((e) => e.type === 'event' && e.name === 'Transfer')!,
          fromBlock: genesisBlock,
          toBlock: head,
        });
        const balances = new Map<string, bigint>();
        let minted = 0n;
        for (const log of logs) {
          const { from, to, amount } = log.args as { from: Address; to: Address; amount: bigint };
          if (from === zeroAddress) minted += amount;
          else balances.set(from, (balances.get(from) ?? 0n) - amount);
          balances.set(to, (balances.get(to) ?? 0n) + amount);
        }
        const supply = await client.readContract({ address: t.address, abi: tokenAbi, functionName: 'totalSupply' });
        expect(minted).toBe(BigInt(t.totalSupply));
        expect(supply).toBe(BigInt(t.totalSupply));
        expect([...balances.values()].reduce((a, b) => a + b, 0n)).toBe(supply);
        for (const [account, b] of [...balances.entries()].slice(0, 40))
          expect(await balance(t.address, account as Address, head), `${t.symbol} ${account}`).toBe(b);
      }
    }, 120_000);

    it("a vester's claim moves vested tokens to its recipient, the cliffs not yet passed hold everything", async () => {
      const uni = tok('UNI').address;
      const vester = holder('UNI', 'investors-1');
      const left = await balance(uni, vester.address, head);
      expect(left).toBeLessThan(BigInt(vester.amount));
      const last = await client.readContract({
        address: vester.address,
        abi: treasuryVesterAbi,
        functionName: 'lastUpdate',
        blockNumber: head,
      });
      const s = vester.schedule!;
      // Linear from the begin: what left is the amount times the share of the vesting time still ahead.
      expect(left).toBe(
        BigInt(vester.amount) - (BigInt(vester.amount) * (last - BigInt(s.start))) / BigInt(s.end - s.start),
      );
      const notYet = holder('UNI', 'advisors-1');
      expect(await balance(uni, notYet.address, head)).toBe(BigInt(notYet.amount));
      const timelock = holder('UNI', 'timelock');
      expect(await balance(uni, timelock.address, head)).toBeGreaterThan(BigInt(timelock.amount));
    });

    it('airdrop claims: claimed indices are marked, the distributor paid exactly their amounts, some never claim', async () => {
      const drop = tok('UNI').airdrop!;
      const logs = await client.getLogs({ address: drop.distributor, fromBlock: genesisBlock, toBlock: head });
      const claimed = logs.map(
        (l) => decodeEventLog({ abi: merkleDistributorAbi, ...l }).args as { index: bigint; amount: bigint },
      );
      expect(claimed.length).toBe(state.tokenomics!.stats.airdropClaims);
      let paid = 0n;
      for (const c of claimed) {
        expect(c.amount).toBe(BigInt(drop.claims[Number(c.index)]!.amount));
        expect(
          await client.readContract({
            address: drop.distributor,
            abi: merkleDistributorAbi,
            functionName: 'isClaimed',
            args: [c.index],
          }),
        ).toBe(true);
        paid += c.amount;
      }
      expect(await balance(tok('UNI').address, drop.distributor, head)).toBe(
        BigInt(holder('UNI', 'airdrop').amount) - paid,
      );
      expect(state.tokenomics!.claimAt.some((at) => at === null)).toBe(true);
    });

    it('VestingWallet: released is what it vested at its last release; TokenTimelock released in full after its time', async () => {
      const link = tok('LINK').address;
      const wallet = holder('LINK', 'investors-1');
      const released = await client.readContract({
        address: wallet.address,
        abi: vestingWalletAbi,
        functionName: 'released',
        args: [link],
        blockNumber: head,
      });
      expect(released).toBeGreaterThan(0n);
      expect(await balance(link, wallet.address, head)).toBe(BigInt(wallet.amount) - released);
      const vested = await client.readContract({
        address: wallet.address,
        abi: vestingWalletAbi,
        functionName: 'vestedAmount',
        args: [link, BigInt(GENESIS + HOURS * 3600)],
        blockNumber: head,
      });
      expect(vested).toBe(
        (BigInt(wallet.amount) * BigInt(HOURS * 3600)) / BigInt(wallet.schedule!.end - wallet.schedule!.start),
      );
      expect(released).toBeLessThanOrEqual(vested);
      const step = holder('LINK', 'investors-2');
      expect(await balance(link, step.address, head)).toBe(0n);
      const before = holder('AAVE', 'investors-2');
      expect(await balance(tok('AAVE').address, before.address, head)).toBe(BigInt(before.amount));
    });

    it('exchange hot wallets see withdrawals and deposits', async () => {
      const uni = tok('UNI');
      const hot = uni.holders.filter((h) => h.category === 'exchange').map((h) => getAddress(h.address));
      const logs = await client.getLogs({
        address: manifest.tokenomics!.tokens.map((t) => t.address),
        event: tokenAbi.find((e) => e.type === 'event' && e.name === 'Transfer')!,
        fromBlock: genesisBlock + 1n,
        toBlock: head,
      });
      const outs = logs.filter((l) => hot.includes(getAddress(l.args.from!)));
      const ins = logs.filter((l) => hot.includes(getAddress(l.args.to!)));
      expect(outs.length).toBeGreaterThan(0);
      expect(ins.length).toBeGreaterThan(0);
    });
  });
});
