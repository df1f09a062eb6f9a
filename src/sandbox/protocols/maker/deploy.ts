/**
 * MakerDAO in the sandbox world: the testchain's MCD deployment (`@makerdao/testchain`, snapshot.ts) written into
 * the world's anvil before its genesis block (load.ts), then, in the genesis block, signed by the testchain's own
 * deployer (its key is published in the package's README; it owns the price values and the IlkRegistry):
 * - our Chainlog (contracts/ChainLog.sol; no npm package ships dss-chain-log's bytecode) filled under mainnet's keys;
 * - the collateral types the world trades pointed at the world's tokens (`MAKER_COLLATERALS`): each GemJoin's `gem`
 *   slot is rewritten from the snapshot's own test token to the world's token of the same kind (the joins' code and
 *   every other value stay the snapshot's), and each is added to the IlkRegistry (`add(join)`, which reads the gem,
 *   the pip and the clipper from the system itself);
 * - the price values (DSValue `poke`) set to the world's feeds, then `Spot.poke` per type;
 * - `Jug.drip` per type and `Pot.drip`: the snapshot's accumulators last moved in August 2021, so the first drip
 *   compounds the years since at each type's stability fee (as if the system had been live all along).
 */
import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  keccak256,
  maxUint256,
  parseAbi,
  parseAbiParameters,
  stringToHex,
  zeroAddress,
} from 'viem';
import { type Agent, signerAgent } from '../../chain/agent.js';
import { createdAddress } from '../../chain/artifacts.js';
import type { RpcClient } from '../../chain/rpc.js';
import type { ChainSession } from '../../chain/session.js';
import type { ManifestMaker, ManifestToken } from '../../world/manifest.js';
import chainLogArtifact from './contracts/ChainLog.json' with { type: 'json' };
import { loadMakerState } from './load.js';
import { MAKER_DEPLOYER, MAKER_TESTCHAIN_PACKAGE, type MakerSnapshot, readMakerSnapshot } from './snapshot.js';

const WAD = 10n ** 18n;

/** The testchain deployer's key, as `@makerdao/testchain`'s README publishes it. */
export const MAKER_DEPLOYER_KEY: Hex = '0x474beb999fed1b3af2ea048f963833c686a0fba05f5724cb6417cf3b8ee9697e';

/**
 * The collateral types wired to the world's tokens: the ilk, the world token, the snapshot's price value, and its
 * Clipper. Every type sits on the Dog and a Clipper, as every crypto type has on mainnet since 2021: the snapshot's
 * ETH-A is still a Flipper type under the old Cat (`flip`), so the genesis block gives it a Clipper of its own, as
 * mainnet's ETH-A got one in May 2021 (`migrateToClipper`).
 */
export const MAKER_COLLATERALS: readonly {
  readonly ilk: string;
  readonly token: string;
  readonly join: string;
  readonly pip: string;
  /** The snapshot's Clipper (its key in `addresses-mcd.json`), or, with `flip`, one created at genesis. */
  readonly clip?: string;
  /** The snapshot's Flipper of a type moved onto the Dog at genesis. */
  readonly flip?: string;
}[] = [
  { ilk: 'ETH-A', token: 'WETH', join: 'MCD_JOIN_ETH_A', pip: 'PIP_ETH', flip: 'MCD_FLIP_ETH_A' },
  { ilk: 'ETH-B', token: 'WETH', join: 'MCD_JOIN_ETH_B', pip: 'PIP_ETH', clip: 'MCD_CLIP_ETH_B' },
  { ilk: 'ETH-C', token: 'WETH', join: 'MCD_JOIN_ETH_C', pip: 'PIP_ETH', clip: 'MCD_CLIP_ETH_C' },
  { ilk: 'LINK-A', token: 'LINK', join: 'MCD_JOIN_LINK_A', pip: 'PIP_LINK', clip: 'MCD_CLIP_LINK_A' },
];

/**
 * A migrated type's new contracts come from the snapshot's own: its Clipper from the ClipFab that created the
 * snapshot's Clippers (`newClip`, the factory that created `MCD_CLIP_ETH_B`), its calculator from the creation code of
 * ETH-C's StairstepExponentialDecrease (mainnet's ETH-A curve), deployed again by the testchain's deployer.
 */
const CLIP_FAB_OF = 'MCD_CLIP_ETH_B';
const STAIRSTEP_CALC_OF = 'MCD_CLIP_CALC_ETH_C';
/** The liquidation penalty the Dog takes for a migrated type: mainnet's ETH-A `chop` when it moved (MIP45: 113 %). */
const MIGRATED_CHOP = (WAD * 113n) / 100n;

/** The Chainlog's entries: mainnet's keys, each the snapshot's address of the same name. */
const CHAINLOG_KEYS = [
  'MCD_VAT',
  'MCD_DAI',
  'MCD_JOIN_DAI',
  'MCD_SPOT',
  'MCD_JUG',
  'MCD_DOG',
  'MCD_CAT',
  'MCD_VOW',
  'MCD_POT',
  'MCD_END',
  'MCD_FLAP',
  'MCD_FLOP',
  'MCD_GOV',
  'MCD_PAUSE',
  'MCD_PAUSE_PROXY',
  'ILK_REGISTRY',
  'CDP_MANAGER',
  'PROXY_ACTIONS',
  'PROXY_REGISTRY',
  'CLIPPER_MOM',
] as const;

/** GemJoin's storage (dss `join.sol`): `gem` is slot 3, `dec` slot 4. */
const GEM_JOIN_GEM_SLOT: Hex = `0x${'3'.padStart(64, '0')}`;
const GEM_JOIN_DEC_SLOT: Hex = `0x${'4'.padStart(64, '0')}`;

const RAY = 10n ** 27n;
const RAD = 10n ** 45n;

/** Liquidation settings the governance sets (see `queueGovernance`). */
const AUCTIONS = {
  Hole: 100_000_000n * RAD,
  hole: 30_000_000n * RAD,
  buf: (RAY * 120n) / 100n,
  tail: 8_400n,
  cusp: (RAY * 45n) / 100n,
  cut: (RAY * 99n) / 100n,
  step: 90n,
  /** ETH-B's LinearDecrease: from the start price to zero in 3 hours. */
  tau: 10_800n,
} as const;

/**
 * Debt ceilings set when the snapshot is loaded, before the genesis block: the testchain's ETH-A ceiling (1M DAI) is a
 * test value (mainnet's ETH-A ceiling has been in the billions), far too low for a world whose every DAI is drawn from
 * vaults (issue 26, "one DAI"): the pools' seeds in the genesis block, the lenders' and traders' top-ups
 * (`draw.ts`), the DAI/USDC pair's market maker, beside the owners' vaults; the system's ceiling `Line` with it. They
 * are written into the Vat's storage (`Line`, slot 9; `ilks[ETH-A].line`, the fourth word of slot 2's entry) as the
 * joins' `gem` is, since the pause's delay keeps a spell from running in the block it is plotted in.
 */
const CEILINGS = {
  Line: 20_000_000_000n * RAD,
  'ETH-A': 10_000_000_000n * RAD,
} as const;
const word = (n: bigint): Hex => `0x${n.toString(16).padStart(64, '0')}`;

/** The Vat's storage words `CEILINGS` writes: `Line` (slot 9) and ETH-A's `line` (`ilks` is slot 2; `line` its fourth word). */
export function vatCeilingSlots(): { slot: Hex; value: Hex }[] {
  const ilk = keccak256(encodeAbiParameters(parseAbiParameters('bytes32, uint256'), [ilkBytes('ETH-A'), 2n]));
  return [
    { slot: word(9n), value: word(CEILINGS.Line) },
    { slot: word(BigInt(ilk) + 3n), value: word(CEILINGS['ETH-A']) },
  ];
}

/** A plotted governance action, executed (`DSPause.exec`) at the first step. */
export interface MakerSpell {
  readonly pause: Address;
  readonly usr: Address;
  readonly tag: Hex;
  readonly fax: Hex;
  /** Decimal string. */
  readonly eta: string;
}

const b32 = (text: string): Hex => stringToHex(text, { size: 32 });

const govAbi = parseAbi([
  'function mint(address guy, uint256 wad)',
  'function approve(address guy, uint256 wad) returns (bool)',
  'function lock(uint256 wad)',
  'function vote(address[] yays) returns (bytes32)',
  'function launch()',
  'function lift(address whom)',
]);
const govActionsAbi = parseAbi([
  'function file(address who, bytes32 what, uint256 data)',
  'function file(address who, bytes32 ilk, bytes32 what, uint256 data)',
  'function file(address who, bytes32 what, address data)',
  'function file(address who, bytes32 ilk, bytes32 what, address data)',
  'function rely(address who, address to)',
  'function deny(address who, address to)',
]);
export const pauseAbi = parseAbi([
  'function plot(address usr, bytes32 tag, bytes fax, uint256 eta)',
  'function exec(address usr, bytes32 tag, bytes fax, uint256 eta) returns (bytes)',
]);

const dsValueAbi = parseAbi(['function poke(bytes32 wut)', 'function peek() view returns (bytes32, bool)']);
const spotAbi = parseAbi(['function poke(bytes32 ilk)']);
const jugAbi = parseAbi(['function drip(bytes32 ilk) returns (uint256)']);
const potAbi = parseAbi(['function drip() returns (uint256)']);
const registryAbi = parseAbi([
  'function add(address adapter)',
  'function file(bytes32 ilk, bytes32 what, address data)',
  'function file(bytes32 ilk, bytes32 what, uint256 data)',
]);
const wardsAbi = parseAbi(['function rely(address usr)']);
const clipFabAbi = parseAbi([
  'function newClip(address owner, address vat, address spotter, address dog, bytes32 ilk) returns (address clip)',
]);
const chainLogAbi = parseAbi(['function setAddress(bytes32 key, address addr)', 'function setVersion(string version)']);

/** Gas of the deployer's genesis calls (generous: unused gas costs nothing). */
const MAKER_GAS = { deploy: 3_000_000n, newClip: 8_000_000n, call: 400_000n } as const;

export const ilkBytes = (ilk: string): Hex => stringToHex(ilk, { size: 32 });
/** A USD price with 8 decimals (a feed's answer) as a DSValue's WAD. */
export const wadFromFeed = (answer: bigint): Hex => `0x${(answer * 10n ** 10n).toString(16).padStart(64, '0')}`;

export interface QueuedMaker {
  readonly snapshot: MakerSnapshot;
  readonly manifest: Omit<ManifestMaker, 'startBlock'>;
  readonly deployer: Agent;
  /** Governance plotted in the genesis block, to execute at the first step. */
  readonly spells: readonly MakerSpell[];
}

/** Reads the package's snapshot (gunzip off the main thread): start it early, await it in `queueMaker`. */
export function prepareMaker(): Promise<MakerSnapshot> {
  return readMakerSnapshot();
}

/**
 * Loads the snapshot into the node and queues the genesis block's Maker calls (after the world's tokens and feeds).
 * `feedAnswer(symbol)` is the genesis answer (8 decimals) of the feed reporting that token.
 */
export async function queueMaker(
  rpc: RpcClient,
  session: ChainSession,
  snapshot: MakerSnapshot,
  tokens: readonly ManifestToken[],
  feedAnswer: (symbol: string) => bigint,
  startTimestamp: number,
): Promise<QueuedMaker> {
  const a = snapshot.addresses;
  const need = (key: string): Address => {
    const address = a[key];
    if (!address) throw new Error(`${MAKER_TESTCHAIN_PACKAGE}: the snapshot has no ${key}`);
    return address;
  };
  await loadMakerState(rpc, snapshot);
  const used = await rpc.request<Hex>('eth_getTransactionCount', [MAKER_DEPLOYER, 'latest']);
  if (BigInt(used) !== 0n) throw new Error(`maker: the world already used the testchain deployer ${MAKER_DEPLOYER}`);
  // The deployer's nonce as in the snapshot, so its next contract does not land on one of the snapshot's.
  const deployerNonce = snapshot.deployerNonce;
  await rpc.batchResults([
    { method: 'anvil_setNonce', params: [MAKER_DEPLOYER, `0x${deployerNonce.toString(16)}`] },
    { method: 'anvil_setBalance', params: [MAKER_DEPLOYER, `0x${(10n ** 22n).toString(16)}`] },
  ]);
  const deployer = signerAgent(MAKER_DEPLOYER_KEY, deployerNonce);
  if (deployer.address !== MAKER_DEPLOYER) throw new Error('maker: the testchain key is not its deployer’s');

  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  // The types moved onto the Dog: their calculators are the deployer's next contracts (after the Chainlog), their
  // Clippers the ClipFab's next ones.
  const clipFab = creatorOf(snapshot, need(CLIP_FAB_OF));
  let clipFabNonce = Number(snapshot.accounts.get(clipFab)!.nonce);
  let deployerNext = deployer.state.nonce + 1;
  const ilks = MAKER_COLLATERALS.map((c) => {
    const token = bySymbol.get(c.token);
    if (!token) throw new Error(`maker: the world has no ${c.token} for ${c.ilk}`);
    let migrated: { flip: Address; calc: Address; clip: Address } | undefined;
    if (c.flip) {
      // Three deployer transactions each: the calculator's creation, its `rely`, `newClip`.
      migrated = {
        flip: need(c.flip),
        calc: createdAddress(deployer.address, deployerNext),
        clip: createdAddress(clipFab, clipFabNonce++),
      };
      deployerNext += 3;
    }
    return {
      ilk: c.ilk,
      token: c.token,
      gem: token.address,
      join: need(c.join),
      pipKey: c.pip,
      pip: need(c.pip),
      clip: migrated?.clip ?? (c.clip ? need(c.clip) : undefined),
      calc: migrated?.calc ?? a[`MCD_CLIP_CALC_${c.ilk.replace('-', '_')}`],
      migrated,
    };
  });
  // The joins take the world's tokens (same decimals as the snapshot's test tokens: checked by `dec` in the test).
  const joinWrites = ilks.map((c) => {
    const storage = snapshot.accounts.get(c.join)?.storage;
    if (!storage?.get(GEM_JOIN_GEM_SLOT)) throw new Error(`maker: ${c.join} has no gem in slot 3`);
    // The join scales amounts by its `dec`: the world's token must have the snapshot token's decimals.
    const dec = Number(BigInt(storage.get(GEM_JOIN_DEC_SLOT) ?? '0x0'));
    const decimals = bySymbol.get(c.token)!.decimals;
    if (dec !== decimals)
      throw new Error(`maker: ${c.ilk}'s join has ${dec} decimals, the world's ${c.token} ${decimals}`);
    return {
      method: 'anvil_setStorageAt',
      params: [c.join, GEM_JOIN_GEM_SLOT, `0x${c.gem.slice(2).toLowerCase().padStart(64, '0')}`],
    };
  });
  await rpc.batchResults(joinWrites);
  await rpc.batchResults(
    vatCeilingSlots().map(({ slot, value }) => ({
      method: 'anvil_setStorageAt',
      params: [need('MCD_VAT'), slot, value],
    })),
  );

  const send = (to: Address, data: Hex) => session.send(deployer, { to, data, gas: MAKER_GAS.call, kind: 'setup' });
  const chainlog = createdAddress(deployer.address, deployer.state.nonce);
  session.send(deployer, { to: null, data: chainLogArtifact.bytecode as Hex, gas: MAKER_GAS.deploy, kind: 'deploy' });
  const pauseProxy = need('MCD_PAUSE_PROXY');
  for (const c of ilks) {
    if (!c.migrated) continue;
    // The calculator (its deployer is its ward: the pause proxy becomes one, for the governance's `cut` and `step`),
    // then the Clipper, owned by the pause proxy from its creation (`ClipFab.newClip` relies the owner).
    const code = snapshot.creations.get(need(STAIRSTEP_CALC_OF));
    if (!code) throw new Error(`maker: the snapshot has no creation of ${STAIRSTEP_CALC_OF}`);
    if (createdAddress(deployer.address, deployer.state.nonce) !== c.migrated.calc)
      throw new Error(`maker: ${c.ilk}'s calculator would not land at ${c.migrated.calc}`);
    session.send(deployer, { to: null, data: code, gas: MAKER_GAS.deploy, kind: 'deploy' });
    send(c.migrated.calc, encodeFunctionData({ abi: wardsAbi, functionName: 'rely', args: [pauseProxy] }));
    session.send(deployer, {
      to: clipFab,
      data: encodeFunctionData({
        abi: clipFabAbi,
        functionName: 'newClip',
        args: [pauseProxy, need('MCD_VAT'), need('MCD_SPOT'), need('MCD_DOG'), ilkBytes(c.ilk)],
      }),
      gas: MAKER_GAS.newClip,
      kind: 'deploy',
    });
  }
  const entries: [string, Address][] = CHAINLOG_KEYS.filter((k) => a[k]).map((k) => [k, a[k]!]);
  const pips = new Map<string, { address: Address; token: string }>();
  for (const c of ilks) {
    const suffix = c.ilk.replace('-', '_');
    entries.push([`MCD_JOIN_${suffix}`, c.join]);
    if (c.clip) entries.push([`MCD_CLIP_${suffix}`, c.clip]);
    if (c.calc) entries.push([`MCD_CLIP_CALC_${suffix}`, c.calc]);
    pips.set(c.pipKey, { address: c.pip, token: c.token });
  }
  for (const [key, pip] of pips) entries.push([key, pip.address]);
  send(
    chainlog,
    encodeFunctionData({ abi: chainLogAbi, functionName: 'setVersion', args: [`testchain-${snapshot.version}`] }),
  );
  for (const [key, address] of entries) {
    send(
      chainlog,
      encodeFunctionData({
        abi: chainLogAbi,
        functionName: 'setAddress',
        args: [stringToHex(key, { size: 32 }), address],
      }),
    );
  }
  // Prices: the world's feeds, then the spotter; the accumulators; the registry last (it reads what is set above).
  for (const pip of pips.values()) {
    send(
      pip.address,
      encodeFunctionData({ abi: dsValueAbi, functionName: 'poke', args: [wadFromFeed(feedAnswer(pip.token))] }),
    );
  }
  for (const c of ilks)
    send(need('MCD_SPOT'), encodeFunctionData({ abi: spotAbi, functionName: 'poke', args: [ilkBytes(c.ilk)] }));
  for (const c of ilks)
    send(need('MCD_JUG'), encodeFunctionData({ abi: jugAbi, functionName: 'drip', args: [ilkBytes(c.ilk)] }));
  send(need('MCD_POT'), encodeFunctionData({ abi: potAbi, functionName: 'drip' }));
  for (const c of ilks)
    send(need('ILK_REGISTRY'), encodeFunctionData({ abi: registryAbi, functionName: 'add', args: [c.join] }));
  // The registry read a migrated type's Flipper from the Cat (the Dog names its Clipper from the first step): its
  // owner names the Clipper, class 1, as mainnet's migration spells did.
  for (const c of ilks) {
    if (!c.migrated) continue;
    const registry = need('ILK_REGISTRY');
    send(
      registry,
      encodeFunctionData({
        abi: registryAbi,
        functionName: 'file',
        args: [ilkBytes(c.ilk), b32('xlip'), c.migrated.clip],
      }),
    );
    send(
      registry,
      encodeFunctionData({ abi: registryAbi, functionName: 'file', args: [ilkBytes(c.ilk), b32('class'), 1n] }),
    );
  }
  const govActions = snapshot.accounts.get(need('MCD_GOV_ACTIONS'));
  if (!govActions) throw new Error('maker: the snapshot has no GovActions');
  const spells = queueGovernance(send, need, ilks, keccak256(govActions.code), BigInt(startTimestamp + 1));

  const manifest: Omit<ManifestMaker, 'startBlock'> = {
    protocol: 'makerdao',
    package: `${MAKER_TESTCHAIN_PACKAGE}@${snapshot.version}`,
    chainlog,
    deployer: deployer.address,
    vat: need('MCD_VAT'),
    dai: need('MCD_DAI'),
    daiJoin: need('MCD_JOIN_DAI'),
    spot: need('MCD_SPOT'),
    jug: need('MCD_JUG'),
    dog: need('MCD_DOG'),
    pot: need('MCD_POT'),
    vow: need('MCD_VOW'),
    ilkRegistry: need('ILK_REGISTRY'),
    ilks: ilks.map((c) => ({ ilk: c.ilk, token: c.token, gem: c.gem, join: c.join, pip: c.pip, clip: c.clip })),
  };
  return { snapshot, deployer, manifest, spells };
}

/**
 * Governance, as MakerDAO's: the deployer, owner of MKR in the testchain, mints the 80,000 MKR the chief needs to
 * `launch`, locks them, votes for the zero address, launches, then votes for and `lift`s itself as the hat, which
 * the pause's authority (the chief) lets `plot`. It plots the parameter changes below as GovActions calls (the
 * testchain's spell action contract, run by the pause proxy through `delegatecall`), to `exec` at the first step
 * (the pause's delay must elapse, and a block has one time). The parameters are mainnet's liquidation settings for
 * ETH-A (a 120 % start, a 0.99 stair-step every 90 s, 140 min tail, 45 % cusp), where the testchain's (an auction
 * worth nothing after an hour) would never let an hourly world take; and room for auctions in the Dog. (The debt
 * ceilings are set at load: `CEILINGS`.)
 */
function queueGovernance(
  send: (to: Address, data: Hex) => void,
  need: (key: string) => Address,
  ilks: readonly {
    ilk: string;
    clip: Address | undefined;
    calc: Address | undefined;
    migrated: { flip: Address; clip: Address; calc: Address } | undefined;
  }[],
  tag: Hex,
  eta: bigint,
): MakerSpell[] {
  const chief = need('MCD_ADM');
  const mkr = need('MCD_GOV');
  const launch = 80_000n * WAD;
  send(mkr, encodeFunctionData({ abi: govAbi, functionName: 'mint', args: [MAKER_DEPLOYER, launch] }));
  send(mkr, encodeFunctionData({ abi: govAbi, functionName: 'approve', args: [chief, maxUint256] }));
  send(chief, encodeFunctionData({ abi: govAbi, functionName: 'lock', args: [launch + 400n * WAD] }));
  send(chief, encodeFunctionData({ abi: govAbi, functionName: 'vote', args: [[zeroAddress]] }));
  send(chief, encodeFunctionData({ abi: govAbi, functionName: 'launch' }));
  send(chief, encodeFunctionData({ abi: govAbi, functionName: 'vote', args: [[MAKER_DEPLOYER]] }));
  send(chief, encodeFunctionData({ abi: govAbi, functionName: 'lift', args: [MAKER_DEPLOYER] }));

  const usr = need('MCD_GOV_ACTIONS');
  const fileUint = (who: Address, what: string, data: bigint): Hex =>
    encodeFunctionData({ abi: govActionsAbi, functionName: 'file', args: [who, b32(what), data] });
  const fileIlk = (who: Address, ilk: string, what: string, data: bigint): Hex =>
    encodeFunctionData({ abi: govActionsAbi, functionName: 'file', args: [who, b32(ilk), b32(what), data] });
  const faxes: Hex[] = [fileUint(need('MCD_DOG'), 'Hole', AUCTIONS.Hole)];
  const rely = (who: Address, to: Address): Hex =>
    encodeFunctionData({ abi: govActionsAbi, functionName: 'rely', args: [who, to] });
  for (const c of ilks) {
    const m = c.migrated;
    if (!m) continue;
    // Mainnet's flipper-to-clipper spell (MIP45, 2021), minus the OSM whitelists (the sandbox's pips are DSValues):
    // the Dog names the Clipper and its penalty, the Clipper pays the Vow and prices with its calculator, the Vat and
    // the Dog trust it, it trusts the Dog, the End and the ClipperMom; the Cat can no longer kick the Flipper.
    faxes.push(
      encodeFunctionData({
        abi: govActionsAbi,
        functionName: 'file',
        args: [need('MCD_DOG'), b32(c.ilk), b32('clip'), m.clip],
      }),
      fileIlk(need('MCD_DOG'), c.ilk, 'chop', MIGRATED_CHOP),
      encodeFunctionData({ abi: govActionsAbi, functionName: 'file', args: [m.clip, b32('vow'), need('MCD_VOW')] }),
      encodeFunctionData({ abi: govActionsAbi, functionName: 'file', args: [m.clip, b32('calc'), m.calc] }),
      rely(need('MCD_VAT'), m.clip),
      rely(need('MCD_DOG'), m.clip),
      rely(m.clip, need('MCD_DOG')),
      rely(m.clip, need('MCD_END')),
      rely(m.clip, need('CLIPPER_MOM')),
      encodeFunctionData({ abi: govActionsAbi, functionName: 'deny', args: [m.flip, need('MCD_CAT')] }),
    );
  }
  for (const c of ilks) {
    if (!c.clip) continue;
    const suffix = c.ilk.replace('-', '_');
    faxes.push(fileIlk(need('MCD_DOG'), c.ilk, 'hole', AUCTIONS.hole));
    faxes.push(fileUint(c.clip, 'buf', AUCTIONS.buf));
    faxes.push(fileUint(c.clip, 'tail', AUCTIONS.tail));
    faxes.push(fileUint(c.clip, 'cusp', AUCTIONS.cusp));
    const calc = c.calc;
    if (!calc) throw new Error(`maker: no MCD_CLIP_CALC_${suffix}`);
    // ETH-B's calc is a LinearDecrease (tau); the others StairstepExponentialDecrease (cut, step).
    if (c.ilk === 'ETH-B') faxes.push(fileUint(calc, 'tau', AUCTIONS.tau));
    else {
      faxes.push(fileUint(calc, 'cut', AUCTIONS.cut));
      faxes.push(fileUint(calc, 'step', AUCTIONS.step));
    }
  }
  const pause = need('MCD_PAUSE');
  return faxes.map((fax) => {
    send(pause, encodeFunctionData({ abi: pauseAbi, functionName: 'plot', args: [usr, tag, fax, eta] }));
    return { pause, usr, tag, fax, eta: eta.toString() };
  });
}

/** The account of the snapshot whose contract creations include `created` (a factory: the one that created it). */
function creatorOf(snapshot: MakerSnapshot, created: Address): Address {
  for (const account of snapshot.accounts.values()) {
    for (let n = 1; n < Number(account.nonce); n++) {
      if (createdAddress(account.address, n) === created) return account.address;
    }
  }
  throw new Error(`maker: no contract of the snapshot created ${created}`);
}
