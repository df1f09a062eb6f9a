import { readFileSync } from 'node:fs';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import {
  type Abi,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  parseAbi,
  parseEventLogs,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnvilLite, receiptOf, sendTx, startAnvil } from '../../../../test/support/anvil-lite.js';
import { createEvmSource } from '../../../sources/evm/source.js';
import { SLOTS } from '../analyser/bytecode.js';
import { InputError } from '../analyser/input.js';
import { CONTROL_EVENTS } from './history.js';
import { type ContractControl, firstBlockWithCode, readControl } from './reader.js';
import { canonicalSafeSingleton } from './safe-singletons.js';

/**
 * The reader on a real chain built from npm bytecode: OpenZeppelin 4.9's TransparentUpgradeableProxy and ProxyAdmin
 * owned by a TimelockController whose proposer is a Safe 1.4.1 2-of-3 (deployed through its SafeProxyFactory),
 * upgraded once through Safe → timelock → ProxyAdmin; a second proxy whose ProxyAdmin an EOA owns; and Aave's
 * immutable-admin proxy whose admin is an EOA. Every figure is checked against reads made here, independently of
 * the reader (raw `eth_getStorageAt`, `eth_getLogs`, `eth_call`).
 */

interface Artifact {
  readonly abi: Abi;
  readonly bytecode: Hex;
}
const artifact = (path: string): Artifact => {
  const a = JSON.parse(readFileSync(`node_modules/${path}`, 'utf8')) as { abi: Abi; bytecode: string };
  return { abi: a.abi, bytecode: (a.bytecode.startsWith('0x') ? a.bytecode : `0x${a.bytecode}`) as Hex };
};
const OZ = '@openzeppelin/contracts/build/contracts';
const SAFE = '@safe-global/safe-contracts/build/artifacts/contracts';
const PROXY = artifact(`${OZ}/TransparentUpgradeableProxy.json`);
const PROXY_ADMIN = artifact(`${OZ}/ProxyAdmin.json`);
const TIMELOCK = artifact(`${OZ}/TimelockController.json`);
const TOKEN = artifact(`${OZ}/ERC20PresetMinterPauser.json`);
const SAFE_SINGLETON = artifact(`${SAFE}/Safe.sol/Safe.json`);
const SAFE_FACTORY = artifact(`${SAFE}/proxies/SafeProxyFactory.sol/SafeProxyFactory.json`);
const BEACON = artifact(`${OZ}/UpgradeableBeacon.json`);
const BEACON_PROXY = artifact(`${OZ}/BeaconProxy.json`);
const AAVE_PROXY = artifact(
  '@aave/core-v3/artifacts/contracts/protocol/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol/InitializableImmutableAdminUpgradeabilityProxy.json',
);

const DELAY = 86_400;
const ZERO = `0x${'0'.repeat(40)}` as Hex;
const ZERO_WORD = `0x${'0'.repeat(64)}` as Hex;

let anvil: AnvilLite;
let accounts: Hex[];

async function send(
  from: Hex,
  to: Hex | undefined,
  data: Hex,
): Promise<{ contractAddress: Hex | null; blockNumber: Hex }> {
  const receipt = await receiptOf(anvil, await sendTx(anvil, { from, ...(to ? { to } : {}), data, gas: 8_000_000 }));
  if (receipt.status !== '0x1') throw new Error(`transaction to ${to ?? 'new contract'} reverted`);
  return receipt;
}

async function deploy(from: Hex, a: Artifact, args: readonly unknown[] = []): Promise<Hex> {
  const receipt = await send(from, undefined, encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args }));
  return receipt.contractAddress!.toLowerCase() as Hex;
}

const call = (to: Hex, abi: Abi, functionName: string, args: readonly unknown[] = []) =>
  send(accounts[0]!, to, encodeFunctionData({ abi, functionName, args }));

/** A view through raw `eth_call`, decoded with the artifact's ABI. */
async function view(to: Hex, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<unknown> {
  const data = await anvil.rpc<Hex>('eth_call', [
    { to, data: encodeFunctionData({ abi, functionName, args }) },
    'latest',
  ]);
  return decodeFunctionResult({ abi, functionName, data });
}

/** Runs `data` on `target` from the Safe with two of its owners: one approves the hash, the other executes. */
async function safeExec(safe: Hex, owners: readonly Hex[], target: Hex, data: Hex): Promise<void> {
  const nonce = (await view(safe, SAFE_SINGLETON.abi, 'nonce')) as bigint;
  const txArgs = [target, 0n, data, 0, 0n, 0n, 0n, ZERO, ZERO] as const;
  const hash = (await view(safe, SAFE_SINGLETON.abi, 'getTransactionHash', [...txArgs, nonce])) as Hex;
  const [approver, executor] = owners;
  await send(
    approver!,
    safe,
    encodeFunctionData({ abi: SAFE_SINGLETON.abi, functionName: 'approveHash', args: [hash] }),
  );
  // Pre-validated signatures (v = 1): r is the owner, sorted by owner; the executor's own needs no approval.
  const signatures = `0x${[approver!, executor!]
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
    .map((o) => `${o.slice(2).padStart(64, '0')}${'0'.repeat(64)}01`)
    .join('')}` as Hex;
  await send(
    executor!,
    safe,
    encodeFunctionData({ abi: SAFE_SINGLETON.abi, functionName: 'execTransaction', args: [...txArgs, signatures] }),
  );
}

const upgradedLogs = (address: Hex) =>
  anvil.rpc<{ topics: Hex[] }[]>('eth_getLogs', [
    { address, topics: [CONTROL_EVENTS.upgraded], fromBlock: '0x0', toBlock: 'latest' },
  ]);
const slot = async (address: Hex, s: string) =>
  `0x${(await anvil.rpc<Hex>('eth_getStorageAt', [address, `0x${s}`, 'latest'])).slice(26)}`;

let world: {
  safe: Hex;
  safeOwners: Hex[];
  timelock: Hex;
  governed: { proxy: Hex; admin: Hex; v1: Hex; v2: Hex };
  eoaOwned: { proxy: Hex; admin: Hex; owner: Hex };
  aave: { proxy: Hex; admin: Hex };
  beacon: { proxy: Hex; beacon: Hex };
  clone: Hex;
  cycle: { proxy: Hex; admins: [Hex, Hex] };
};
let results: Map<string, ContractControl>;
let source: ReturnType<typeof createEvmSource>;
let block: number;

beforeAll(async () => {
  anvil = await startAnvil({ timestamp: 1_790_000_000 });
  accounts = (await anvil.rpc<Hex[]>('eth_accounts')).map((a) => a.toLowerCase() as Hex);
  const [deployer, o1, o2, o3, eoaOwner, aaveAdmin] = accounts as [Hex, Hex, Hex, Hex, Hex, Hex];

  // The Safe: singleton and factory from Safe's own build, a 2-of-3 proxy set up through the factory.
  const singleton = await deploy(deployer, SAFE_SINGLETON);
  const factory = await deploy(deployer, SAFE_FACTORY);
  const safeOwners = [o1, o2, o3];
  const setup = encodeFunctionData({
    abi: SAFE_SINGLETON.abi,
    functionName: 'setup',
    args: [safeOwners, 2n, ZERO, '0x', ZERO, ZERO, 0n, ZERO],
  });
  const created = await call(factory, SAFE_FACTORY.abi, 'createProxyWithNonce', [singleton, setup, 1n]);
  const logs = await anvil.rpc<{ address: Hex; topics: Hex[]; data: Hex }[]>('eth_getLogs', [
    { address: factory, fromBlock: created.blockNumber, toBlock: created.blockNumber },
  ]);
  const [creation] = parseEventLogs({
    abi: SAFE_FACTORY.abi,
    logs: logs as never,
    eventName: 'ProxyCreation',
  }) as unknown as {
    args: { proxy: Hex };
  }[];
  const safe = creation!.args.proxy.toLowerCase() as Hex;

  // The timelock: the Safe proposes, anyone executes, no extra admin.
  const timelock = await deploy(deployer, TIMELOCK, [BigInt(DELAY), [safe], [ZERO], ZERO]);
  const v1 = await deploy(deployer, TOKEN, ['Vault', 'V1']);
  const v2 = await deploy(deployer, TOKEN, ['Vault', 'V2']);

  // The governed proxy: its ProxyAdmin owned by the timelock.
  const admin = await deploy(deployer, PROXY_ADMIN);
  const proxy = await deploy(deployer, PROXY, [v1, admin, '0x']);
  await call(admin, PROXY_ADMIN.abi, 'transferOwnership', [timelock]);

  // One upgrade through Safe → timelock → ProxyAdmin.
  const upgrade = encodeFunctionData({ abi: PROXY_ADMIN.abi, functionName: 'upgrade', args: [proxy, v2] });
  const op = [admin, 0n, upgrade, ZERO_WORD, ZERO_WORD] as const;
  await safeExec(
    safe,
    [o1, o3],
    timelock,
    encodeFunctionData({ abi: TIMELOCK.abi, functionName: 'schedule', args: [...op, BigInt(DELAY)] }),
  );
  await anvil.rpc('evm_increaseTime', [DELAY + 1]);
  await anvil.rpc('evm_mine');
  await call(timelock, TIMELOCK.abi, 'execute', op);

  // The second proxy: its ProxyAdmin owned by a single account.
  const eoaAdmin = await deploy(deployer, PROXY_ADMIN);
  const eoaProxy = await deploy(deployer, PROXY, [v1, eoaAdmin, '0x']);
  await call(eoaAdmin, PROXY_ADMIN.abi, 'transferOwnership', [eoaOwner]);

  // Aave's immutable-admin proxy: the admin is a constant in its code, and here a single account.
  const aaveProxy = await deploy(deployer, AAVE_PROXY, [aaveAdmin]);
  await send(
    aaveAdmin,
    aaveProxy,
    encodeFunctionData({ abi: AAVE_PROXY.abi, functionName: 'initialize', args: [v1, '0x'] }),
  );

  // A beacon proxy whose beacon (owned by the deployer) is upgraded once.
  const beacon = await deploy(deployer, BEACON, [v1]);
  const beaconProxy = await deploy(deployer, BEACON_PROXY, [beacon, '0x']);
  await call(beacon, BEACON.abi, 'upgradeTo', [v2]);

  // A minimal clone of v1 (EIP-1167: the init code returns the 45-byte runtime).
  const clone = (
    await send(
      deployer,
      undefined,
      `0x3d602d80600a3d3981f3363d3d373d3d3d363d73${v1.slice(2)}5af43d82803e903d91602b57fd5bf3`,
    )
  ).contractAddress!.toLowerCase() as Hex;

  // Two ProxyAdmins that own each other: a cycle the walk must stop.
  const cycleA = await deploy(deployer, PROXY_ADMIN);
  const cycleB = await deploy(deployer, PROXY_ADMIN);
  const cycleProxy = await deploy(deployer, PROXY, [v1, cycleA, '0x']);
  await call(cycleA, PROXY_ADMIN.abi, 'transferOwnership', [cycleB]);
  await call(cycleB, PROXY_ADMIN.abi, 'transferOwnership', [cycleA]);

  world = {
    safe,
    safeOwners,
    timelock,
    governed: { proxy, admin, v1, v2 },
    eoaOwned: { proxy: eoaProxy, admin: eoaAdmin, owner: eoaOwner },
    aave: { proxy: aaveProxy, admin: aaveAdmin },
    beacon: { proxy: beaconProxy, beacon },
    clone,
    cycle: { proxy: cycleProxy, admins: [cycleA, cycleB] },
  };
  block = Number.parseInt(await anvil.rpc<Hex>('eth_blockNumber'), 16);
  source = createEvmSource({ id: 'ethereum', rpcUrl: anvil.url, finalityDepth: 0 });
  const read = await readControl(source, [proxy, eoaProxy, aaveProxy, v1, beaconProxy, clone, cycleProxy], block, {
    fromBlock: 0,
  });
  results = new Map(read.map((r) => [r.address, r]));
}, 60_000);

afterAll(async () => {
  await anvil?.stop();
});

describe('readControl on a chain of real Safe, timelock and proxy bytecode', () => {
  it("reads each proxy's implementation from its slot and its upgrades from its Upgraded logs", async () => {
    for (const proxy of [world.governed.proxy, world.eoaOwned.proxy, world.aave.proxy]) {
      const r = results.get(proxy)!;
      expect(r.block_number).toBe(block);
      expect(r.proxy.implementation).toBe(await slot(proxy, SLOTS.eip1967Implementation));
      const logs = await upgradedLogs(proxy);
      expect(r.history.upgrade_count).toBe(logs.length);
      expect(r.history.past_upgrades.map((u) => u.implementation)).toEqual(
        logs.map((l) => `0x${l.topics[1]!.slice(26)}`),
      );
    }
    // The governed proxy: the deployment's Upgraded and the one through the Safe and the timelock.
    const governed = results.get(world.governed.proxy)!;
    expect(governed.proxy).toMatchObject({ kind: 'eip1967', admin: world.governed.admin, upgradeable: true });
    expect(governed.history.upgrade_count).toBe(2);
    expect(governed.proxy.implementation).toBe(world.governed.v2);
  });

  it('follows the governed proxy to its Safe through the ProxyAdmin and the timelock, with threshold, owners and delay', async () => {
    const r = results.get(world.governed.proxy)!;
    const owner = ((await view(world.governed.admin, PROXY_ADMIN.abi, 'owner')) as string).toLowerCase();
    const delay = (await view(world.timelock, TIMELOCK.abi, 'getMinDelay')) as bigint;
    const threshold = (await view(world.safe, SAFE_SINGLETON.abi, 'getThreshold')) as bigint;
    const owners = ((await view(world.safe, SAFE_SINGLETON.abi, 'getOwners')) as string[]).map((o) => o.toLowerCase());
    expect(r.admin).toMatchObject({ kind: 'proxy_admin', address: world.governed.admin });
    expect(r.admin.next).toMatchObject({ kind: 'timelock', address: owner, delay_s: Number(delay) });
    expect(r.admin.next!.next).toMatchObject({
      kind: 'safe',
      address: world.safe,
      threshold: Number(threshold),
      owners,
      next: null,
    });
    expect(r).toMatchObject({
      root_kind: 'safe',
      multisig_threshold: `${threshold}/${owners.length}`,
      timelock_delay_s: Number(delay),
      critical: false,
    });
    // The Safe's singleton: its code hash looked up here in Safe's deployment list, independently.
    const singleton = await slot(world.safe, '0');
    const code = await anvil.rpc<Hex>('eth_getCode', [singleton, 'latest']);
    const canonical = canonicalSafeSingleton(`0x${bytesToHex(keccak_256(hexToBytes(code.slice(2))))}`) !== undefined;
    expect(r.admin.next!.next!.details).toMatchObject({ singleton, canonical });
    // Safe's npm build of 1.4.1 is byte for byte the canonical singleton.
    expect(canonical).toBe(true);
  });

  it("flags the proxy whose ProxyAdmin an EOA owns, and Aave's proxy whose immutable admin is an EOA", async () => {
    const eoa = results.get(world.eoaOwned.proxy)!;
    const owner = ((await view(world.eoaOwned.admin, PROXY_ADMIN.abi, 'owner')) as string).toLowerCase();
    expect(await anvil.rpc<Hex>('eth_getCode', [owner, 'latest'])).toBe('0x');
    expect(eoa.admin).toMatchObject({ kind: 'proxy_admin', next: { kind: 'eoa', address: owner, next: null } });
    expect(eoa).toMatchObject({ root_kind: 'eoa', critical: true, multisig_threshold: null, timelock_delay_s: 0 });

    const aave = results.get(world.aave.proxy)!;
    // The admin slot is empty: the admin lives in the code, and answers `admin()` as itself.
    expect(await slot(world.aave.proxy, SLOTS.eip1967Admin)).toBe(ZERO);
    const asAdmin = await anvil.rpc<Hex>('eth_call', [
      {
        from: world.aave.admin,
        to: world.aave.proxy,
        data: encodeFunctionData({ abi: parseAbi(['function admin() returns (address)']), functionName: 'admin' }),
      },
      'latest',
    ]);
    expect(`0x${asAdmin.slice(26)}`).toBe(world.aave.admin);
    expect(aave.proxy).toMatchObject({ kind: 'eip1967-immutable-admin', admin: world.aave.admin, upgradeable: true });
    expect(aave).toMatchObject({ root_kind: 'eoa', critical: true, admin: { kind: 'eoa' } });
  });

  it('a plain contract is not upgradeable: its control is immutable', () => {
    expect(results.get(world.governed.v1)).toMatchObject({
      proxy: { kind: null, upgradeable: false },
      admin: { kind: 'immutable', address: null },
      root_kind: 'immutable',
      critical: false,
      history: { upgrade_count: 0 },
    });
  });

  it("reads a beacon proxy through its beacon: the beacon's implementation and upgrades, its owner the key", async () => {
    const r = results.get(world.beacon.proxy)!;
    expect(await slot(world.beacon.proxy, SLOTS.eip1967Beacon)).toBe(world.beacon.beacon);
    const implementation = ((await view(world.beacon.beacon, BEACON.abi, 'implementation')) as string).toLowerCase();
    expect(r.proxy).toMatchObject({
      kind: 'eip1967-beacon',
      beacon: world.beacon.beacon,
      implementation,
      upgradeable: true,
    });
    expect(r.history.upgrade_count).toBe(
      (await upgradedLogs(world.beacon.beacon)).length + (await upgradedLogs(world.beacon.proxy)).length,
    );
    expect(r.history.beacon_upgrades.map((u) => u.beacon)).toEqual([world.beacon.beacon]);
    const owner = ((await view(world.beacon.beacon, BEACON.abi, 'owner')) as string).toLowerCase();
    expect(r.admin).toMatchObject({
      kind: 'proxy_admin',
      address: world.beacon.beacon,
      next: { kind: 'eoa', address: owner },
    });
    expect(r.critical).toBe(true);
  });

  it('reads a minimal clone from its code: never upgradeable', async () => {
    const code = await anvil.rpc<Hex>('eth_getCode', [world.clone, 'latest']);
    expect(results.get(world.clone)).toMatchObject({
      proxy: { kind: 'eip1167', implementation: `0x${code.slice(22, 62)}`, upgradeable: false },
      admin: { kind: 'immutable' },
      critical: false,
    });
  });

  it('stops a control chain that comes back to itself, rooted at unknown', () => {
    const [a, b] = world.cycle.admins;
    const r = results.get(world.cycle.proxy)!;
    expect(r.admin).toMatchObject({
      kind: 'proxy_admin',
      address: a,
      next: { kind: 'proxy_admin', address: b, next: { kind: 'unknown', address: a, stopped: 'cycle', next: null } },
    });
    expect(r).toMatchObject({ root_kind: 'unknown', critical: false, path: [a, b, a] });
  });

  it("finds a contract's creation block by its code, and refuses bad input with a clear error", async () => {
    const creation = await anvil.rpc<{ blockNumber: Hex }>('eth_getTransactionReceipt', [
      (
        await anvil.rpc<{ transactionHash: Hex }[]>('eth_getLogs', [
          { address: world.governed.proxy, topics: [CONTROL_EVENTS.upgraded], fromBlock: '0x0', toBlock: 'latest' },
        ])
      )[0]!.transactionHash,
    ]);
    expect(await firstBlockWithCode(source, world.governed.proxy, block)).toBe(
      Number.parseInt(creation.blockNumber, 16),
    );
    expect(await firstBlockWithCode(source, accounts[9]!, block)).toBeUndefined();
    await expect(readControl(source, ['0x12'], block, { fromBlock: 0 })).rejects.toThrow(InputError);
    await expect(readControl(source, [world.clone], block, { fromBlock: block + 1 })).rejects.toThrow(/after block/);
  });
});
