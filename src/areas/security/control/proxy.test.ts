import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pushedAddresses } from '../analyser/bytecode.js';
import { InputError } from '../analyser/input.js';
import { type ProxySlots, proxyState, slotAddress } from './proxy.js';

const deployed = (path: string) =>
  (JSON.parse(readFileSync(`node_modules/${path}`, 'utf8')) as { deployedBytecode: string }).deployedBytecode;
const OZ = '@openzeppelin/contracts/build/contracts';
const TRANSPARENT = deployed(`${OZ}/TransparentUpgradeableProxy.json`);
const BEACON_PROXY = deployed(`${OZ}/BeaconProxy.json`);
const ERC20 = deployed(`${OZ}/ERC20PresetMinterPauser.json`);

const PROXY = '0x1111111111111111111111111111111111111111';
const IMPL = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ADMIN = '0xcccccccccccccccccccccccccccccccccccccccc';
const OWNER = '0xdddddddddddddddddddddddddddddddddddddddd';
const word = (a: string) => `0x${a.slice(2).padStart(64, '0')}`;
const EMPTY: ProxySlots = {
  implementation: '0x0',
  admin: '0x0',
  beacon: '0x0',
  eip1822: '0x0',
  zeppelinos: '0x0',
  zero: '0x0',
};

describe('proxyState', () => {
  it('a transparent proxy: the implementation and admin from their EIP-1967 slots, upgradeable', () => {
    const s = proxyState({
      address: PROXY,
      code: TRANSPARENT,
      slots: { ...EMPTY, implementation: word(IMPL), admin: word(ADMIN) },
    });
    expect(s).toMatchObject({
      kind: 'eip1967',
      implementation: IMPL,
      admin: ADMIN,
      admin_source: 'eip1967-admin-slot',
      upgradeable: true,
    });
  });

  it('an EIP-1967 proxy without an admin slot: the immutable admin found in its code, else its owner, else unknown', () => {
    const slots = { ...EMPTY, implementation: word(IMPL) };
    expect(proxyState({ address: PROXY, code: TRANSPARENT, slots, immutableAdmin: ADMIN })).toMatchObject({
      kind: 'eip1967-immutable-admin',
      admin: ADMIN,
      admin_source: 'immutable-in-code',
      upgradeable: true,
    });
    expect(proxyState({ address: PROXY, code: TRANSPARENT, slots, owner: OWNER })).toMatchObject({
      kind: 'eip1967',
      admin: OWNER,
      admin_source: 'owner',
    });
    expect(proxyState({ address: PROXY, code: TRANSPARENT, slots })).toMatchObject({ admin: null, upgradeable: null });
  });

  it('a minimal clone (EIP-1167): the implementation from its code, not upgradeable', () => {
    const clone = `0x363d3d373d3d3d363d73${IMPL.slice(2)}5af43d82803e903d91602b57fd5bf3`;
    expect(proxyState({ address: PROXY, code: clone, slots: EMPTY })).toMatchObject({
      kind: 'eip1167',
      implementation: IMPL,
      admin: null,
      upgradeable: false,
    });
  });

  it("a beacon proxy: the beacon's implementation, the beacon as the admin hop", () => {
    const s = proxyState({
      address: PROXY,
      code: BEACON_PROXY,
      slots: { ...EMPTY, beacon: word(ADMIN) },
      beaconImplementation: IMPL,
    });
    expect(s).toMatchObject({
      kind: 'eip1967-beacon',
      beacon: ADMIN,
      implementation: IMPL,
      admin: ADMIN,
      admin_source: 'beacon',
    });
  });

  it('a diamond: its facets; upgradeable (its owner the admin) only while a facet routes diamondCut', () => {
    const loupe = { address: IMPL, selectors: ['0x7a0ed627', '0xcdffacc6'] };
    const cut = { address: ADMIN, selectors: ['0x1F931C1C'] };
    const code = '0x6080604052';
    expect(proxyState({ address: PROXY, code, slots: EMPTY, facets: [loupe, cut], owner: OWNER })).toMatchObject({
      kind: 'diamond',
      implementation: null,
      admin: OWNER,
      upgradeable: true,
      facets: [loupe, { address: ADMIN, selectors: ['0x1f931c1c'] }],
    });
    expect(proxyState({ address: PROXY, code, slots: EMPTY, facets: [loupe], owner: OWNER })).toMatchObject({
      kind: 'diamond',
      admin: null,
      upgradeable: false,
    });
  });

  it('legacy slots: zeppelinos and EIP-1822 implementations', () => {
    expect(
      proxyState({ address: PROXY, code: TRANSPARENT, slots: { ...EMPTY, zeppelinos: word(IMPL) }, owner: OWNER }),
    ).toMatchObject({
      kind: 'zeppelinos',
      implementation: IMPL,
    });
    expect(proxyState({ address: PROXY, code: TRANSPARENT, slots: { ...EMPTY, eip1822: word(IMPL) } })).toMatchObject({
      kind: 'eip1822',
      implementation: IMPL,
    });
  });

  it('no proxy: a plain contract and an account without code are not upgradeable', () => {
    expect(proxyState({ address: PROXY, code: ERC20, slots: EMPTY })).toMatchObject({ kind: null, upgradeable: false });
    expect(proxyState({ address: PROXY, code: '0x', slots: EMPTY })).toMatchObject({ kind: null, upgradeable: false });
  });

  it('refuses a slot that holds more than an address', () => {
    expect(() => slotAddress(`0x${'ff'.repeat(32)}`, 'admin slot')).toThrow(InputError);
    expect(() => slotAddress('0xzz', 'admin slot')).toThrow(/not a 32-byte word/);
    expect(slotAddress('0x0', 'x')).toBeNull();
  });
});

describe('pushedAddresses', () => {
  it('finds the addresses a code pushes as whole words, not shorter pushes or PUSH data', () => {
    // PUSH32 <ADMIN> ; PUSH20 <IMPL> ; PUSH32 <a word with high bytes> ; PUSH1 0x7f (data that looks like PUSH32).
    const code = `0x7f${word(ADMIN).slice(2)}73${IMPL.slice(2)}7f${'ff'.repeat(32)}607f`;
    expect(pushedAddresses(code)).toEqual([ADMIN]);
  });
});
