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
  /**
   * Function selectors the dispatcher compares the call data with (`PUSH4 selector EQ`, or folded into a shift by the
   * optimiser: `foldedSelector`), 0x-prefixed. Other 4-byte constants compared the same way (ERC-165 interface ids,
   * callback magic values) are among them: the walk cannot tell them apart, and none is a privileged signature.
   */
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
const PUSH1 = 0x60;
const ADD = 0x01;
const SUB = 0x03;
const AND = 0x16;
const NOT = 0x19;
const SHL = 0x1b;

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
    if (ins.op === PUSH4 && ins.data) {
      // The dispatcher: `PUSH4 selector EQ` (or `PUSH4 selector DUPn EQ`).
      if (instructions[i + 1]?.op === EQ || (instructions[i + 2]?.op === EQ && isDup(instructions[i + 1]?.op))) {
        selectors.add(ins.data);
      }
    }
    const folded = foldedSelector(instructions, i);
    if (folded) selectors.add(folded);
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

/**
 * A selector comparison the optimiser folded into a shift (solc ≥ 0.8 with the optimiser, e.g. OpenZeppelin 4.9's
 * TransparentUpgradeableProxy comparing `msg.sig`): `PUSHn k PUSH1 s SHL` with 224 ≤ s < 256 builds a left-aligned
 * 4-byte constant c = k << (s − 224), and `sig == C` becomes `iszero(add(sig, −C))` (the constant pushed is the
 * two's complement of the selector, then `ADD`) or stays `EQ`/`SUB` with C itself. Between the constant and the
 * comparison only DUPs, SWAPs, `AND` and the selector mask `not((1 << 224) − 1)` may come
 * (`PUSH1 1 PUSH1 1 PUSH1 0xe0 SHL SUB NOT`). Undefined for anything else.
 */
function foldedSelector(instructions: readonly { op: number; data?: string }[], i: number): string | undefined {
  const push = instructions[i]!;
  const shift = instructions[i + 1];
  const shl = instructions[i + 2];
  if (!push.data || push.op < PUSH1 || push.op > PUSH4 || shift?.op !== PUSH1 || !shift.data || shl?.op !== SHL) {
    return undefined;
  }
  const s = Number.parseInt(shift.data, 16);
  if (s < 224 || s > 255) return undefined;
  const c = BigInt(`0x${push.data}`) << BigInt(s - 224);
  // A single set bit is a byte or flag mask (`1 << 248`, the mask's own `1 << 224`), not a selector.
  if (c >= 1n << 32n || (c & (c - 1n)) === 0n) return undefined;
  for (let j = i + 3; j < instructions.length; ) {
    const op = instructions[j]!.op;
    if (op === ADD) return ((1n << 32n) - c).toString(16).padStart(8, '0');
    if (op === SUB || op === EQ) return c.toString(16).padStart(8, '0');
    if (isDup(op) || isSwap(op) || op === AND) j += 1;
    else if (isSelectorMask(instructions, j)) j += SELECTOR_MASK.length;
    else return undefined;
  }
  return undefined;
}

const isSwap = (op: number) => op >= 0x90 && op <= 0x9f;

/** `not((1 << 224) − 1)`, as solc builds it: PUSH1 1, PUSH1 1, PUSH1 0xe0, SHL, SUB, NOT. */
const SELECTOR_MASK: readonly { op: number; data?: string }[] = [
  { op: PUSH1, data: '01' },
  { op: PUSH1, data: '01' },
  { op: PUSH1, data: 'e0' },
  { op: SHL },
  { op: SUB },
  { op: NOT },
];

function isSelectorMask(instructions: readonly { op: number; data?: string }[], j: number): boolean {
  return SELECTOR_MASK.every((m, k) => {
    const ins = instructions[j + k];
    return ins?.op === m.op && ins.data === m.data;
  });
}

/**
 * The addresses a contract's code pushes as whole words (`PUSH32` of twelve zero bytes and a non-zero address): where
 * solc puts an `immutable address` (Aave's immutable-admin proxies keep their admin so), lowercase, in code order.
 */
export function pushedAddresses(runtimeHex: string): string[] {
  const code = withoutMetadata(parseHex(runtimeHex));
  const out = new Set<string>();
  for (let pc = 0; pc < code.length; ) {
    const op = code[pc]!;
    if (op === 0x7f) {
      const word = bytesToHex(code.subarray(pc + 1, pc + 33));
      if (word.length === 64 && word.startsWith('0'.repeat(24)) && !/^0+$/.test(word)) out.add(`0x${word.slice(24)}`);
    }
    pc += op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
  }
  return [...out];
}
