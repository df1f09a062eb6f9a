/**
 * What runtime bytecode says when there is no verified source: the proxy pattern it follows, whether it can
 * SELFDESTRUCT or DELEGATECALL (an opcode walk that steps over PUSH data and stops at the compiler's metadata), and
 * the privileged functions its dispatcher routes to. Pure.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils';
import { InputError } from './input.js';

export type ProxyKind = 'eip1167' | 'eip1967' | 'eip1967-beacon' | 'eip1822' | 'zeppelinos' | 'diamond' | 'safe';

export interface BytecodeFacts {
  readonly analysed: false;
  readonly code_size: number;
  /** keccak256 of the runtime code, 0x-prefixed: the key a contract's analysis is cached by. */
  readonly code_hash: string;
  readonly proxy: { readonly kind: ProxyKind; readonly implementation?: string } | null;
  readonly selfdestruct: boolean;
  readonly delegatecall: boolean;
  readonly callcode: boolean;
  /** Function selectors the dispatcher compares the call data with, 0x-prefixed. */
  readonly selectors: readonly string[];
  /** Those of them that change who controls the contract or its code. */
  readonly privileged: readonly { readonly selector: string; readonly signature: string }[];
}

const keccakHex = (text: string) => bytesToHex(keccak_256(utf8ToBytes(text)));
/** EIP-1967 slots are keccak256(label) − 1. */
const slotMinusOne = (label: string) => (BigInt(`0x${keccakHex(label)}`) - 1n).toString(16).padStart(64, '0');

export const SLOTS = {
  eip1967Implementation: slotMinusOne('eip1967.proxy.implementation'),
  eip1967Beacon: slotMinusOne('eip1967.proxy.beacon'),
  eip1967Admin: slotMinusOne('eip1967.proxy.admin'),
  eip1822Proxiable: keccakHex('PROXIABLE'),
  zeppelinosImplementation: keccakHex('org.zeppelinos.proxy.implementation'),
} as const;

const selector = (signature: string) => keccakHex(signature).slice(0, 8);

/** Functions that change a contract's code, its owner or its roles, or stop it. */
export const PRIVILEGED_SIGNATURES = [
  'upgradeTo(address)',
  'upgradeToAndCall(address,bytes)',
  'upgradeBeaconToAndCall(address,bytes)',
  'changeAdmin(address)',
  'upgrade(address,address)',
  'upgradeAndCall(address,address,bytes)',
  'changeProxyAdmin(address,address)',
  'setAdmin(address)',
  'setPendingAdmin(address)',
  'acceptAdmin()',
  'setImplementation(address)',
  'changeImplementation(address)',
  'transferOwnership(address)',
  'renounceOwnership()',
  'acceptOwnership()',
  'setOwner(address)',
  'changeOwner(address)',
  'grantRole(bytes32,address)',
  'revokeRole(bytes32,address)',
  'diamondCut((address,uint8,bytes4[])[],address,bytes)',
  'pause()',
  'unpause()',
  'mint(address,uint256)',
  'kill()',
  'destroy()',
  'addOwnerWithThreshold(address,uint256)',
  'changeThreshold(uint256)',
  'execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)',
];
const PRIVILEGED = new Map(PRIVILEGED_SIGNATURES.map((s) => [selector(s), s]));

const DIAMOND = {
  diamondCut: selector('diamondCut((address,uint8,bytes4[])[],address,bytes)'),
  facets: selector('facets()'),
  facetAddress: selector('facetAddress(bytes4)'),
};
const SAFE_MASTER_COPY = selector('masterCopy()');

const EIP1167 = /^363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/;

const SELFDESTRUCT = 0xff;
const INVALID = 0xfe;
/** `PUSH1 0x80 PUSH1 0x40 MSTORE` (or PUSH1/PUSH2 of a larger start): how solc's code begins. */
const CREATION_START = /^(60[0-9a-f]{2}|61[0-9a-f]{4})604052/;
const DELEGATECALL = 0xf4;
const CALLCODE = 0xf2;
const EQ = 0x14;
const PUSH4 = 0x63;

/** The code without the CBOR metadata solc appends (its length is the last two bytes). */
function withoutMetadata(code: Uint8Array): Uint8Array {
  if (code.length < 4) return code;
  const len = (code[code.length - 2]! << 8) | code[code.length - 1]!;
  const start = code.length - 2 - len;
  if (len > 0 && start >= 0 && (code[start] === 0xa1 || code[start] === 0xa2 || code[start] === 0xa3)) {
    return code.subarray(0, start);
  }
  return code;
}

function parseHex(hex: string): Uint8Array {
  // An unlinked artifact holds `__$<34 hex>$__` where a library's address goes: read it as a zero address.
  const clean = hex
    .trim()
    .replace(/^0x/i, '')
    .replace(/__\$[0-9a-fA-F]{34}\$__/g, '0'.repeat(40));
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) {
    throw new InputError('bytecode must be hex (0x-prefixed or not) of whole bytes');
  }
  return hexToBytes(clean.toLowerCase());
}

/** Reads the facts of a contract's runtime bytecode. */
export function bytecodeFacts(runtimeHex: string): BytecodeFacts {
  const full = parseHex(runtimeHex);
  const hex = bytesToHex(full);
  const code = withoutMetadata(full);
  const ops = new Set<number>();
  const pushed32 = new Set<string>();
  const selectors = new Set<string>();
  // The opcode walk: PUSH1..PUSH32 carry 1..32 bytes of data that are not instructions.
  const instructions: { op: number; data?: string }[] = [];
  for (let pc = 0; pc < code.length; ) {
    const op = code[pc]!;
    // INVALID followed by a contract's free-memory-pointer set-up: the creation code of a contract this one
    // deploys (`new C()`) is appended as data; its opcodes and selectors are not this contract's.
    if (op === INVALID && CREATION_START.test(bytesToHex(code.subarray(pc + 1, pc + 8)))) break;
    if (op >= 0x60 && op <= 0x7f) {
      const n = op - 0x5f;
      const data = bytesToHex(code.subarray(pc + 1, pc + 1 + n));
      instructions.push({ op, data });
      if (n === 32) pushed32.add(data);
      pc += 1 + n;
    } else {
      instructions.push({ op });
      ops.add(op);
      pc += 1;
    }
  }
  for (let i = 0; i < instructions.length; i++) {
    const ins = instructions[i]!;
    if (ins.op !== PUSH4 || !ins.data) continue;
    // The dispatcher: `PUSH4 selector EQ` (or `PUSH4 selector DUPn EQ`).
    if (instructions[i + 1]?.op === EQ || (instructions[i + 2]?.op === EQ && isDup(instructions[i + 1]?.op))) {
      selectors.add(ins.data);
    }
  }
  const clone = EIP1167.exec(hex);
  let proxy: BytecodeFacts['proxy'] = null;
  if (clone) proxy = { kind: 'eip1167', implementation: `0x${clone[1]}` };
  else if (
    selectors.has(DIAMOND.diamondCut) ||
    (selectors.has(DIAMOND.facets) && selectors.has(DIAMOND.facetAddress))
  ) {
    proxy = { kind: 'diamond' };
  } else if (pushed32.has(SLOTS.eip1967Beacon)) proxy = { kind: 'eip1967-beacon' };
  else if (pushed32.has(SLOTS.eip1967Implementation)) proxy = { kind: 'eip1967' };
  else if (pushed32.has(SLOTS.eip1822Proxiable)) proxy = { kind: 'eip1822' };
  else if (pushed32.has(SLOTS.zeppelinosImplementation)) proxy = { kind: 'zeppelinos' };
  else if (ops.has(DELEGATECALL) && (selectors.has(SAFE_MASTER_COPY) || hex.includes(`63${SAFE_MASTER_COPY}`))) {
    proxy = { kind: 'safe' };
  }
  const sorted = [...selectors].sort();
  return {
    analysed: false,
    code_size: full.length,
    code_hash: `0x${bytesToHex(keccak_256(full))}`,
    proxy,
    selfdestruct: ops.has(SELFDESTRUCT),
    delegatecall: ops.has(DELEGATECALL) || !!clone,
    callcode: ops.has(CALLCODE),
    selectors: sorted.map((s) => `0x${s}`),
    privileged: sorted
      .filter((s) => PRIVILEGED.has(s))
      .map((s) => ({ selector: `0x${s}`, signature: PRIVILEGED.get(s)! })),
  };
}

const isDup = (op: number | undefined) => op !== undefined && op >= 0x80 && op <= 0x8f;
