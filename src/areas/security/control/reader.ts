/**
 * The chain reads behind a contract's control (issue 29's `/static` path), through the runtime's opened EVM source:
 * a proxy's state at a block, its upgrade history from its logs, and its control chain followed to the root. Every
 * decision is made by the pure modules beside it (`proxy.ts`, `history.ts`, `classify.ts`); this file only reads.
 *
 * Cost per contract at a block: one `eth_getCode`, six `eth_getStorageAt`, one multicall (`facets()`, `owner()`),
 * and for an EIP-1967 proxy without an admin slot one `eth_call` per address its code pushes (at most
 * `MAX_IMMUTABLE_CANDIDATES`). Per hop of the control chain: one `eth_getCode`, one multicall of the probes, for a
 * Safe two more reads (slot 0 and its singleton's code), for an OpenZeppelin timelock its role logs. Logs are read
 * with an address filter over `[fromBlock, block]`, in the source's adaptive ranges (at most `maxBlockRange` blocks
 * per call), for all the contracts given in one pass.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { type Hex, parseAbi } from 'viem';
import type { EvmSource } from '../../../sources/evm/source.js';
import { readCallsAt } from '../../../sources/evm/source.js';
import type { EvmLog } from '../../../sources/evm/types.js';
import { pushedAddresses, SLOTS } from '../analyser/bytecode.js';
import { InputError } from '../analyser/input.js';
import {
  type AddressProbe,
  classifyAddress,
  PROPOSER_ROLE,
  ROLE_EVENTS,
  roleMembers,
  upgradePath,
  weakestNode,
  ZERO_ADDRESS,
} from './classify.js';
import { CONTROL_EVENTS, upgradeHistory } from './history.js';
import type { AdminNode, ProxyState, UpgradeHistory, UpgradePath } from './model.js';
import { proxyState } from './proxy.js';

/** What the reader needs of an `EvmSource` (tests may hand a narrower one). */
export type ControlSource = Pick<EvmSource, 'client' | 'multicall' | 'getLogs' | 'getBlocks' | 'window'>;

/** Hops followed from a proxy's admin before the walk stops (`stopped: 'depth'`): real chains have 2 to 4. */
export const MAX_CONTROL_DEPTH = 8;
/** Addresses pushed by a proxy's code asked whether they are its immutable admin. */
export const MAX_IMMUTABLE_CANDIDATES = 8;
/** Proposers of one timelock followed (each its own chain); more are listed, not followed. */
export const MAX_PROPOSERS = 8;

const LOG_WINDOW = 'security-control';

const PROBE_ABI = parseAbi([
  'function getThreshold() view returns (uint256)',
  'function getOwners() view returns (address[])',
  'function VERSION() view returns (string)',
  'function getMinDelay() view returns (uint256)',
  'function delay() view returns (uint256)',
  'function getDelay() view returns (uint256)',
  'function admin() view returns (address)',
  'function getAdmin() view returns (address)',
  'function votingDelay() view returns (uint256)',
  'function votingPeriod() view returns (uint256)',
  'function CLOCK_MODE() view returns (string)',
  'function timelock() view returns (address)',
  'function owner() view returns (address)',
  'function implementation() view returns (address)',
  'function facets() view returns ((address facetAddress, bytes4[] functionSelectors)[])',
]);
const PROBES = [
  'getThreshold',
  'getOwners',
  'VERSION',
  'getMinDelay',
  'delay',
  'getDelay',
  'admin',
  'getAdmin',
  'votingDelay',
  'votingPeriod',
  'CLOCK_MODE',
  'timelock',
  'owner',
] as const;

const hexAddress = (a: string) => a.toLowerCase() as Hex;

async function codeAt(source: ControlSource, address: string, block: number): Promise<string> {
  return (await source.client.getCode({ address: hexAddress(address), blockNumber: BigInt(block) })) ?? '0x';
}

async function slotAt(source: ControlSource, address: string, slot: string, block: number): Promise<string> {
  const word = await source.client.getStorageAt({
    address: hexAddress(address),
    slot: `0x${slot.replace(/^0x/, '')}` as Hex,
    blockNumber: BigInt(block),
  });
  return word ?? '0x0';
}

/** The proxy state of `address` at `block` (see `proxy.ts` for what each read decides). */
export async function readProxyState(source: ControlSource, address: string, block: number): Promise<ProxyState> {
  const code = await codeAt(source, address, block);
  const [implementation, admin, beacon, eip1822, zeppelinos, zero] = await Promise.all(
    [
      SLOTS.eip1967Implementation,
      SLOTS.eip1967Admin,
      SLOTS.eip1967Beacon,
      SLOTS.eip1822Proxiable,
      SLOTS.zeppelinosImplementation,
      '0',
    ].map((slot) => slotAt(source, address, slot, block)),
  );
  const slots = {
    implementation: implementation!,
    admin: admin!,
    beacon: beacon!,
    eip1822: eip1822!,
    zeppelinos: zeppelinos!,
    zero: zero!,
  };
  if (code === '0x') return proxyState({ address, code, slots });
  const [facets, owner] = (await readCallsAt(
    source,
    [
      { address: hexAddress(address), abi: PROBE_ABI, functionName: 'facets' },
      { address: hexAddress(address), abi: PROBE_ABI, functionName: 'owner' },
    ],
    block,
  )) as [readonly { facetAddress: string; functionSelectors: readonly string[] }[] | undefined, string | undefined];
  const first = proxyState({ address, code, slots });
  let beaconImplementation: string | undefined;
  if (first.beacon) {
    [beaconImplementation] = (await readCallsAt(
      source,
      [{ address: hexAddress(first.beacon), abi: PROBE_ABI, functionName: 'implementation' }],
      block,
    )) as [string | undefined];
  }
  let immutableAdmin: string | undefined;
  if ((first.kind === 'eip1967' || first.kind === 'eip1822' || first.kind === 'zeppelinos') && !first.admin) {
    immutableAdmin = await findImmutableAdmin(source, address, code, block);
  }
  return proxyState({
    address,
    code,
    slots,
    ...(beaconImplementation ? { beaconImplementation } : {}),
    ...(facets ? { facets: facets.map((f) => ({ address: f.facetAddress, selectors: f.functionSelectors })) } : {}),
    ...(immutableAdmin ? { immutableAdmin } : {}),
    ...(owner ? { owner } : {}),
  });
}

/**
 * The address among those the code pushes that `admin()` answers as itself: an `ifAdmin` proxy returns its admin to
 * its admin and forwards everyone else's call to the implementation.
 */
async function findImmutableAdmin(
  source: ControlSource,
  address: string,
  code: string,
  block: number,
): Promise<string | undefined> {
  const selector = '0xf851a440'; // admin()
  for (const candidate of pushedAddresses(code).slice(0, MAX_IMMUTABLE_CANDIDATES)) {
    try {
      const { data } = await source.client.call({
        account: hexAddress(candidate),
        to: hexAddress(address),
        data: selector,
        blockNumber: BigInt(block),
      });
      if (data && data.length === 66 && `0x${data.slice(26)}`.toLowerCase() === candidate) return candidate;
    } catch {
      // Forwarded to an implementation without `admin()`, or reverted: not this candidate.
    }
  }
  return undefined;
}

/**
 * The upgrade histories of several contracts from one pass of logs over `[fromBlock, toBlock]` (their `Upgraded`,
 * `BeaconUpgraded`, `AdminChanged`, `OwnershipTransferred`, and their beacons' `Upgraded`), keyed by address.
 */
export async function readUpgradeHistories(
  source: ControlSource,
  proxies: readonly ProxyState[],
  fromBlock: number,
  toBlock: number,
): Promise<Map<string, UpgradeHistory>> {
  const out = new Map<string, UpgradeHistory>();
  if (proxies.length === 0) return out;
  const window = source.window(LOG_WINDOW);
  const own = await source.getLogs(
    {
      addresses: [...new Set(proxies.map((p) => hexAddress(p.address)))],
      topics: [
        [
          CONTROL_EVENTS.upgraded,
          CONTROL_EVENTS.beaconUpgraded,
          CONTROL_EVENTS.adminChanged,
          CONTROL_EVENTS.ownershipTransferred,
        ],
      ],
      fromBlock,
      toBlock,
    },
    { window },
  );
  const beacons = [...new Set(proxies.flatMap((p) => (p.beacon ? [hexAddress(p.beacon)] : [])))];
  const beaconLogs = beacons.length
    ? await source.getLogs({ addresses: beacons, topics: [CONTROL_EVENTS.upgraded], fromBlock, toBlock }, { window })
    : [];
  const blocks = await source.getBlocks([...new Set([...own, ...beaconLogs].map((l) => l.blockNumber))]);
  const timestamps = new Map([...blocks].map(([n, b]) => [n, b.timestamp]));
  for (const proxy of proxies) {
    const logs: EvmLog[] = own.filter((l) => l.address === proxy.address);
    if (proxy.beacon) logs.push(...beaconLogs.filter((l) => l.address === proxy.beacon));
    out.set(proxy.address, upgradeHistory(logs, timestamps));
  }
  return out;
}

/** What `address` answers at `block` (see `classify.ts` for what each answer means). */
export async function probeAddress(source: ControlSource, address: string, block: number): Promise<AddressProbe> {
  const code = await codeAt(source, address, block);
  if (code === '0x') return { address, hasCode: false };
  const results = await readCallsAt(
    source,
    PROBES.map((functionName) => ({ address: hexAddress(address), abi: PROBE_ABI, functionName })),
    block,
  );
  const probe: Record<string, unknown> = { address, hasCode: true };
  PROBES.forEach((name, i) => {
    if (results[i] !== undefined) probe[name] = results[i];
  });
  if (probe.getThreshold !== undefined && probe.getOwners !== undefined) {
    // A Safe proxy keeps its singleton in slot 0; its code hash says whether it is a canonical Safe.
    const singleton = `0x${(await slotAt(source, address, '0', block)).replace(/^0x/, '').padStart(64, '0').slice(24)}`;
    const singletonCode = await codeAt(source, singleton, block);
    probe.safeSingleton = singleton;
    if (singletonCode !== '0x') {
      probe.safeSingletonCodeHash = `0x${bytesToHex(keccak_256(hexToBytes(singletonCode.slice(2))))}`;
    }
  }
  return probe as unknown as AddressProbe;
}

export interface ControlOptions {
  /** Where the role logs of a timelock are read from (its creation block, or the protocol's earliest). */
  readonly fromBlock: number;
  readonly maxDepth?: number;
}

/**
 * The control chain from `address` (a proxy's admin) at `block`, followed to its root: each hop classified, a
 * timelock's proposers (OpenZeppelin) each followed and the weakest kept as `next`, a cycle or the depth bound ending
 * the walk with `stopped`.
 */
export async function resolveControl(
  source: ControlSource,
  address: string,
  block: number,
  options: ControlOptions,
  seen: ReadonlySet<string> = new Set(),
): Promise<AdminNode> {
  const at = address.toLowerCase();
  const bare = { threshold: null, owners: null, delay_s: null, next: null } as const;
  if (at === ZERO_ADDRESS) return { kind: 'immutable', address: at, ...bare };
  if (seen.has(at)) return { kind: 'unknown', address: at, ...bare, stopped: 'cycle' };
  if (seen.size >= (options.maxDepth ?? MAX_CONTROL_DEPTH)) {
    return { kind: 'unknown', address: at, ...bare, stopped: 'depth' };
  }
  const path = new Set([...seen, at]);
  const c = classifyAddress(await probeAddress(source, at, block));
  const node = { kind: c.kind, address: at, threshold: c.threshold, owners: c.owners, delay_s: c.delay_s };
  const details = Object.keys(c.details).length > 0 ? { details: c.details } : {};
  if (c.next === null) return { ...node, next: null, ...details };
  if (c.next.type === 'address') {
    return { ...node, next: await resolveControl(source, c.next.address, block, options, path), ...details };
  }
  const logs = await source.getLogs(
    {
      addresses: [hexAddress(at)],
      topics: [[ROLE_EVENTS.granted, ROLE_EVENTS.revoked] as Hex[], PROPOSER_ROLE as Hex],
      fromBlock: options.fromBlock,
      toBlock: block,
    },
    { window: source.window(LOG_WINDOW) },
  );
  const proposers = roleMembers(logs, PROPOSER_ROLE);
  const chains: AdminNode[] = [];
  for (const proposer of proposers.slice(0, MAX_PROPOSERS)) {
    chains.push(await resolveControl(source, proposer, block, options, path));
  }
  return { ...node, next: weakestNode(chains), details: { ...c.details, proposers } };
}

/**
 * The block a contract first has code at, at or before `block` (its creation, where no contract-source service says
 * it): a binary search on `eth_getCode`, about log2(block) calls, on a node that keeps old state (an archive node);
 * undefined when it has no code at `block`.
 */
export async function firstBlockWithCode(
  source: ControlSource,
  address: string,
  block: number,
): Promise<number | undefined> {
  checkAddress(address);
  if ((await codeAt(source, address, block)) === '0x') return undefined;
  let low = 0;
  let high = block;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if ((await codeAt(source, address, mid)) === '0x') low = mid + 1;
    else high = mid;
  }
  return low;
}

function checkAddress(address: string): void {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new InputError(`not an address: ${JSON.stringify(address)}`);
}

/** A contract's control at a block, as the `/static` path shows it. */
export interface ContractControl extends UpgradePath {
  readonly address: string;
  readonly block_number: number;
  readonly proxy: ProxyState;
  readonly history: UpgradeHistory;
  readonly admin: AdminNode;
}

/**
 * The control of several contracts at `block`: their proxy states, their upgrade histories from one pass of logs
 * over `[fromBlock, block]`, and each admin's chain to its root with the weakest path to an upgrade.
 */
export async function readControl(
  source: ControlSource,
  addresses: readonly string[],
  block: number,
  options: ControlOptions,
): Promise<ContractControl[]> {
  for (const address of addresses) checkAddress(address);
  if (!Number.isInteger(block) || block < 0 || !Number.isInteger(options.fromBlock) || options.fromBlock < 0) {
    throw new InputError(`blocks must be integers ≥ 0 (block ${block}, fromBlock ${options.fromBlock})`);
  }
  if (options.fromBlock > block) throw new InputError(`fromBlock ${options.fromBlock} is after block ${block}`);
  const proxies: ProxyState[] = [];
  for (const address of addresses) proxies.push(await readProxyState(source, address, block));
  const histories = await readUpgradeHistories(source, proxies, options.fromBlock, block);
  const out: ContractControl[] = [];
  for (const proxy of proxies) {
    const admin: AdminNode =
      proxy.admin !== null
        ? await resolveControl(source, proxy.admin, block, options)
        : proxy.upgradeable === false
          ? { kind: 'immutable', address: null, threshold: null, owners: null, delay_s: null, next: null }
          : { kind: 'unknown', address: null, threshold: null, owners: null, delay_s: null, next: null };
    out.push({
      address: proxy.address,
      block_number: block,
      proxy,
      history: histories.get(proxy.address)!,
      admin,
      ...upgradePath(admin),
    });
  }
  return out;
}
