import { describe, expect, it } from 'vitest';
import { InputError } from '../analyser/input.js';
import {
  type AddressProbe,
  classifyAddress,
  PROPOSER_ROLE,
  ROLE_EVENTS,
  roleMembers,
  upgradePath,
  weakestNode,
} from './classify.js';
import type { ControlLog } from './history.js';
import type { AdminNode } from './model.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const ZERO = `0x${'0'.repeat(40)}`;
/** Safe 1.4.1's canonical singleton code hash, as Safe's deployment list gives it. */
const SAFE_141 = '0x1fe2df852ba3299d6534ef416eefa406e56ced995bca886ab7a553e6d0c5e1c4';
const contract = (fields: Partial<AddressProbe>): AddressProbe => ({ address: A, hasCode: true, ...fields });

describe('classifyAddress', () => {
  it.each<[string, AddressProbe, Partial<ReturnType<typeof classifyAddress>>]>([
    ['no code: an EOA, the root', { address: A, hasCode: false }, { kind: 'eoa', next: null }],
    [
      'getThreshold and getOwners: a Safe, canonical by its singleton code hash',
      contract({ getThreshold: 2n, getOwners: [B, C, A], safeSingleton: C, safeSingletonCodeHash: SAFE_141 }),
      {
        kind: 'safe',
        threshold: 2,
        owners: [B, C, A],
        next: null,
        details: { singleton: C, singleton_code_hash: SAFE_141, canonical: true, version: '1.4.1', l2: false },
      },
    ],
    [
      'a Safe whose singleton is not in the list is not canonical',
      contract({ getThreshold: 1n, getOwners: [B], safeSingletonCodeHash: `0x${'12'.repeat(32)}`, VERSION: '1.4.1' }),
      { kind: 'safe', threshold: 1, details: expect.objectContaining({ canonical: false, version: '1.4.1' }) },
    ],
    [
      "getMinDelay: OpenZeppelin's timelock, next its proposers",
      contract({ getMinDelay: 172_800n, owner: B }),
      { kind: 'timelock', delay_s: 172_800, next: { type: 'proposers' } },
    ],
    [
      "delay() with admin(): Compound's timelock, next its admin",
      contract({ delay: 86_400n, admin: B }),
      { kind: 'timelock', delay_s: 86_400, next: { type: 'address', address: B } },
    ],
    [
      'getDelay(): an Aave executor, next its admin',
      contract({ getDelay: 3_600n, getAdmin: C }),
      { kind: 'timelock', delay_s: 3_600, next: { type: 'address', address: C } },
    ],
    [
      'votingDelay and votingPeriod: a governor, the root',
      contract({ votingDelay: 1n, votingPeriod: 50_400n, timelock: B, CLOCK_MODE: 'mode=timestamp' }),
      {
        kind: 'governor',
        next: null,
        details: { voting_delay: '1', voting_period: '50400', clock: 'timestamp', timelock: B },
      },
    ],
    [
      'owner() alone: a proxy admin, next its owner',
      contract({ owner: B.toUpperCase().replace('0X', '0x') }),
      { kind: 'proxy_admin', next: { type: 'address', address: B } },
    ],
    ['code that answers nothing known: unknown', contract({}), { kind: 'unknown', next: null }],
    ['delay() without admin() is no timelock', contract({ delay: 5n }), { kind: 'unknown' }],
  ])('%s', (_name, probe, expected) => {
    expect(classifyAddress(probe)).toMatchObject(expected);
  });

  it('refuses a Safe threshold beyond its owners and a delay beyond a safe integer', () => {
    expect(() => classifyAddress(contract({ getThreshold: 3n, getOwners: [B, C] }))).toThrow(InputError);
    expect(() => classifyAddress(contract({ getThreshold: 0n, getOwners: [B] }))).toThrow(/threshold 0 of 1/);
    expect(() => classifyAddress(contract({ getMinDelay: 2n ** 60n }))).toThrow(/getMinDelay out of range/);
  });
});

describe('roleMembers', () => {
  const topic = (a: string) => `0x${a.slice(2).padStart(64, '0')}`;
  let i = 0;
  const roleLog = (event: string, role: string, account: string, block: number): ControlLog => ({
    address: C,
    topics: [event, role, topic(account), topic(C)],
    data: '0x',
    blockNumber: block,
    logIndex: i++,
    transactionHash: `0x${'ab'.repeat(32)}`,
  });
  const OTHER_ROLE = `0x${'11'.repeat(32)}`;

  it('keeps the accounts granted and not revoked since, of that role only, in order of first grant', () => {
    const logs = [
      roleLog(ROLE_EVENTS.revoked, PROPOSER_ROLE, A, 5),
      roleLog(ROLE_EVENTS.granted, PROPOSER_ROLE, B, 2),
      roleLog(ROLE_EVENTS.granted, PROPOSER_ROLE, A, 1),
      roleLog(ROLE_EVENTS.granted, OTHER_ROLE, C, 1),
      roleLog(ROLE_EVENTS.granted, PROPOSER_ROLE, C, 6),
    ];
    expect(roleMembers(logs, PROPOSER_ROLE)).toEqual([B, C]);
    expect(roleMembers(logs, OTHER_ROLE)).toEqual([C]);
  });
});

const node = (fields: Partial<AdminNode>): AdminNode => ({
  kind: 'unknown',
  address: A,
  threshold: null,
  owners: null,
  delay_s: null,
  next: null,
  ...fields,
});

describe('upgradePath and weakestNode', () => {
  const safe = node({ kind: 'safe', address: C, threshold: 2, owners: [A, B, C] });
  const timelock = node({ kind: 'timelock', address: B, delay_s: 3_600, next: safe });
  const viaTimelock = node({ kind: 'proxy_admin', address: A, next: timelock });
  const byEoa = node({ kind: 'proxy_admin', address: A, next: node({ kind: 'eoa', address: B }) });

  it('walks to the root: the Safe threshold as m/n, the delays added, critical only when an EOA roots it', () => {
    expect(upgradePath(viaTimelock)).toEqual({
      root_kind: 'safe',
      path: [A, B, C],
      multisig_threshold: '2/3',
      timelock_delay_s: 3_600,
      critical: false,
    });
    expect(upgradePath(byEoa)).toMatchObject({ root_kind: 'eoa', multisig_threshold: null, critical: true });
    const twoLocks = node({ kind: 'timelock', delay_s: 60, next: node({ kind: 'timelock', delay_s: 40 }) });
    expect(upgradePath(twoLocks).timelock_delay_s).toBe(100);
  });

  it('a walk stopped by a cycle or the depth bound roots at unknown, and a renounced owner at immutable', () => {
    expect(
      upgradePath(node({ kind: 'proxy_admin', next: node({ stopped: 'cycle', kind: 'unknown' }) })).root_kind,
    ).toBe('unknown');
    expect(upgradePath(node({ kind: 'proxy_admin', next: node({ kind: 'immutable', address: ZERO }) }))).toMatchObject({
      root_kind: 'immutable',
      critical: false,
    });
  });

  it('picks the weakest of several chains: an EOA root first, then the shortest delay, then the lowest threshold', () => {
    const safe3 = node({ kind: 'safe', address: B, threshold: 3, owners: [A, B, C] });
    const eoa = node({ kind: 'eoa', address: C });
    expect(weakestNode([safe, eoa])).toBe(eoa);
    expect(weakestNode([safe3, safe])).toBe(safe);
    expect(weakestNode([timelock, safe3])).toBe(safe3);
    expect(weakestNode([])).toBeNull();
  });
});
