/**
 * The shape of a function summary (`summary.ts`) and the algebra of its walk: taint sources and their union, the
 * frames and flows a walk carries (a flow: the state read and the calls made so far on a path, joined at branches),
 * an empty summary, and the substitution of a callee's parameter sources by the caller's arguments.
 */
import type { Span } from './ast.js';
import type { Func, Scope } from './model.js';

/**
 * Where a value may come from: `p<i>` (the function's i-th parameter), `sender`, `origin`, `value`, `time`
 * (`block.timestamp`, `now`), `block` (number, hash, difficulty, prevrandao, coinbase), `balance` (an address's
 * ether balance), `tokenBalance` (a `balanceOf` result), `ext` (an external call's result), `state:<C.v>`.
 */
export type Sources = ReadonlySet<string>;
export const NONE: Sources = new Set();
/** A contract this function deployed (`new C(…)`): its code is known, so calling it cannot re-enter unseen. */
export const CREATED: Sources = new Set(['created']);

export const union = (...sets: Sources[]): Sources => {
  const nonEmpty = sets.filter((s) => s.size);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? NONE;
  const out = new Set<string>();
  for (const s of nonEmpty) for (const x of s) out.add(x);
  return out;
};

export type InteractionKind = 'call' | 'delegatecall' | 'staticcall' | 'send' | 'transfer' | 'high' | 'create';

export interface Interaction {
  readonly kind: InteractionKind;
  /** Where it happens in the summarised function: the call itself, or the internal call that leads to it. */
  readonly at: Span;
  readonly eth: boolean;
  readonly dest: Sources;
  readonly amount: Sources;
  /** A high-level call to a `view`/`pure` function: compiled to STATICCALL, it cannot re-enter with effects. */
  readonly view: boolean;
  readonly toSelf: boolean;
  readonly inLoop: boolean;
  /** Inside a loop of the summarised function's own body (not only of a callee's). */
  readonly loopHere: boolean;
  /** The transaction reverts when the call fails (`transfer`, high-level calls, a required result). */
  revertsOnFailure: boolean;
  /** The state read on some path before it. */
  readonly readsBefore: ReadonlySet<string>;
  /** The interaction's own location in its file (differs from `at` when it sits in a callee). */
  readonly origin: { readonly file: string; readonly span: Span };
  readonly member: string;
}

export interface WriteAfterCall {
  readonly call: Interaction;
  readonly variable: string;
  readonly at: Span;
}

/** What the function's own body (not its callees') does, for the detectors that look at one function at a time. */
export interface LocalFacts {
  readonly originChecks: Span[];
  /** `%` of a value derived from block values. */
  readonly prng: Span[];
  /** Comparisons involving `block.timestamp` / `now`. */
  readonly timestamps: Span[];
  /** `==` / `!=` on an ether or token balance. */
  readonly strictBalance: Span[];
  readonly assembly: Span[];
  readonly lowLevel: Span[];
  readonly uncheckedLowLevel: Span[];
  readonly uncheckedSend: Span[];
  readonly arithmetic: {
    readonly at: Span;
    readonly operands: Sources;
    readonly stateTarget: string | null;
    readonly unchecked: boolean;
  }[];
}

export interface Summary {
  readonly func: Func;
  readonly local: LocalFacts;
  readonly reads: Set<string>;
  /** State written → where the written values come from. Keys `ref:<i>` are storage passed as parameter i. */
  readonly writes: Map<string, Sources>;
  /** State arrays pushed to. */
  readonly pushes: Set<string>;
  readonly interactions: Interaction[];
  readonly writesAfterCalls: WriteAfterCall[];
  readonly selfdestructs: { at: Span; beneficiary: Sources }[];
  /** A recognised check that the caller is a particular account or holds a role. */
  accessCheck: boolean;
  /** State variables that hold the accounts or roles its access checks compare the caller with. */
  readonly checkedAccounts: Set<string>;
  /** Checks of `tx.origin` against an account (the span of the condition). */
  readonly originChecks: Span[];
  /** Calls a function whose body is not in the input (unimplemented, or an unresolved name). */
  unknownCallee: boolean;
  /** Where it writes the address of an implementation (a proxy's upgrade). */
  writesImplementation: Span | null;
  returns: Sources;
  /** Sources of every condition it checks (require, assert, if, loop conditions). */
  readonly conditions: Sources[];
  readonly loops: { at: Span; boundArrays: Set<string> }[];
  /** Uses `delegatecall` or inline assembly that calls out: the contract's behaviour is not all in its source. */
  opaque: boolean;
  /** The reentrancy guard it holds (a modifier that locks around the body). */
  guarded: boolean;
}

export interface Frame {
  readonly scope: Scope;
  readonly func: Func;
  /** Sources of the frame's parameters (the caller's arguments for a modifier). */
  readonly paramSources: Sources[] | undefined;
  readonly locals: Map<string, Sources>;
  /** Locals that point into storage: `Data storage d = data[id]` → the state key. */
  readonly aliases: Map<string, string>;
  /** Locals holding a named storage slot: `bytes32 slot = _IMPLEMENTATION_SLOT` → its name. */
  readonly slots: Map<string, string>;
}

export interface Flow {
  reads: Set<string>;
  calls: Interaction[];
}

export const cloneFlow = (f: Flow): Flow => ({ reads: new Set(f.reads), calls: [...f.calls] });

export function joinFlows(a: Flow | null, b: Flow | null): Flow | null {
  if (!a) return b;
  if (!b) return a;
  const reads = new Set(a.reads);
  for (const r of b.reads) reads.add(r);
  const calls = [...a.calls];
  for (const c of b.calls) if (!calls.includes(c)) calls.push(c);
  return { reads, calls };
}
export function emptySummary(func: Func, unknown: boolean): Summary {
  return {
    func,
    local: {
      originChecks: [],
      prng: [],
      timestamps: [],
      strictBalance: [],
      assembly: [],
      lowLevel: [],
      uncheckedLowLevel: [],
      uncheckedSend: [],
      arithmetic: [],
    },
    reads: new Set(),
    writes: new Map(),
    pushes: new Set(),
    interactions: [],
    writesAfterCalls: [],
    selfdestructs: [],
    accessCheck: false,
    checkedAccounts: new Set(),
    originChecks: [],
    unknownCallee: unknown,
    writesImplementation: null,
    returns: NONE,
    conditions: [],
    loops: [],
    opaque: false,
    guarded: false,
  };
}

/** Replaces parameter sources `p<i>` with the caller's argument sources. */
export function substitute(sources: Sources, args: readonly Sources[]): Sources {
  let needs = false;
  for (const s of sources) if (s.charCodeAt(0) === 112 /* p */) needs = true;
  if (!needs) return sources;
  const out = new Set<string>();
  for (const s of sources) {
    if (/^p\d+$/.test(s)) for (const x of args[Number(s.slice(1))] ?? NONE) out.add(x);
    else out.add(s);
  }
  return out;
}
