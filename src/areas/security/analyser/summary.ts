/**
 * Function summaries: what a function does, with its modifiers and everything it calls internally folded in —
 * the state it reads and writes, its external interactions (in order relative to those reads and writes), where
 * values come from (taint sources), and whether it checks who the caller is.
 *
 * The walk follows the structured control flow of the body: branches are analysed apart and joined (a state write
 * in one branch does not follow a call in the other), a path that reverts or returns ends, loop bodies are walked
 * twice so that a write at the top of an iteration follows a call at the bottom of the previous one. Locals carry
 * the union of what was ever assigned to them (a flow-insensitive taint). Internal calls apply the callee's
 * summary at the call site, with the callee's parameters replaced by the caller's arguments; recursion is cut.
 */
import type { AssemblyFacts, Expr, Span, Stmt } from './ast.js';
import { type Context, type Func, funcOf, isAddressType, type Project, Scope, type StateVar } from './model.js';

/**
 * Where a value may come from: `p<i>` (the function's i-th parameter), `sender`, `origin`, `value`, `time`
 * (`block.timestamp`, `now`), `block` (number, hash, difficulty, prevrandao, coinbase), `balance` (an address's
 * ether balance), `tokenBalance` (a `balanceOf` result), `ext` (an external call's result), `state:<C.v>`.
 */
export type Sources = ReadonlySet<string>;
const NONE: Sources = new Set();
/** A contract this function deployed (`new C(…)`): its code is known, so calling it cannot re-enter unseen. */
const CREATED: Sources = new Set(['created']);

const union = (...sets: Sources[]): Sources => {
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

const LOW_LEVEL = new Set(['call', 'delegatecall', 'staticcall', 'callcode']);
const BUILTIN_MEMBERS = new Set([
  'push',
  'pop',
  'encode',
  'encodePacked',
  'encodeWithSelector',
  'encodeWithSignature',
  'encodeCall',
  'decode',
  'concat',
  'selector',
  'length',
  'wrap',
  'unwrap',
  'slot',
  'offset',
  'code',
  'codehash',
]);
const HASHES = new Set(['keccak256', 'sha3', 'sha256', 'ripemd160', 'ecrecover', 'addmod', 'mulmod']);
const IMPLEMENTATION_VAR = /^_?(implementation|impl|logic|masterCopy|singleton)$/i;
const IMPLEMENTATION_SETTER =
  /^_?(setImplementation|upgradeTo|upgradeToAndCall|upgradeToAndCallUUPS|upgradeToAndCallSecure)$/;
const IMPLEMENTATION_SLOT = /IMPLEMENTATION_SLOT$|^IMPLEMENTATION$/i;

/** Names an access-control modifier goes by, when its body is not in the input. */
const ACCESS_MODIFIER_NAME = /^only|auth|restricted|admin|owner|governance|role/i;

/** The name lists the analysis applies, hashed into the rule set. */
export const TUNING = {
  implementationVar: IMPLEMENTATION_VAR.source,
  implementationSetter: IMPLEMENTATION_SETTER.source,
  implementationSlot: IMPLEMENTATION_SLOT.source,
  accessModifierName: ACCESS_MODIFIER_NAME.source,
};

/** Names a reentrancy guard goes by, when its body is not in the input. */
export const GUARD_NAME =
  /^(nonReentrant|noReentrancy|nonReentrantView|reentrancyGuard|lock|locked|mutex|noReentrant)$/i;

interface Frame {
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

interface Flow {
  reads: Set<string>;
  calls: Interaction[];
}

const cloneFlow = (f: Flow): Flow => ({ reads: new Set(f.reads), calls: [...f.calls] });

function joinFlows(a: Flow | null, b: Flow | null): Flow | null {
  if (!a) return b;
  if (!b) return a;
  const reads = new Set(a.reads);
  for (const r of b.reads) reads.add(r);
  const calls = [...a.calls];
  for (const c of b.calls) if (!calls.includes(c)) calls.push(c);
  return { reads, calls };
}

export class Summaries {
  private readonly done = new Map<string, Summary>();
  private readonly inProgress = new Set<string>();

  constructor(readonly project: Project) {}

  /** The summary of a function as the contract `ctx` sees it (virtual calls resolve in `ctx`). */
  of(func: Func, ctx: Context | undefined): Summary {
    const key = `${ctx?.contract.id ?? ''}|${func.id}`;
    const found = this.done.get(key);
    if (found) return found;
    if (this.inProgress.has(key)) return emptySummary(func, true);
    this.inProgress.add(key);
    const summary = new Walker(this, func, ctx).run();
    this.inProgress.delete(key);
    this.done.set(key, summary);
    return summary;
  }
}

function emptySummary(func: Func, unknown: boolean): Summary {
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
function substitute(sources: Sources, args: readonly Sources[]): Sources {
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

class Walker {
  private readonly s: Summary;
  private loopDepth = 0;
  private uncheckedDepth = 0;
  private requireDepth = 0;
  private readonly frames: Frame[] = [];
  private bodyFrame: Frame | undefined;
  /** The body's last statement when it is an `if`: its branch holds the rest of the function. */
  private tailIf: Stmt | undefined;
  /** Results of low-level calls and sends kept in a local: checked when the local is used. */
  private readonly results: { name: string; interaction: Interaction | undefined; send: boolean; at: Span }[] = [];
  private readonly conditionIdents = new Set<string>();
  private readonly ctx: Context | undefined;

  constructor(
    private readonly all: Summaries,
    private readonly func: Func,
    ctx: Context | undefined,
  ) {
    this.s = emptySummary(func, false);
    this.ctx = ctx;
  }

  private get frame(): Frame {
    return this.frames[this.frames.length - 1]!;
  }

  run(): Summary {
    const def = this.func.def;
    const scope = new Scope(this.ctx, this.func, this.all.project);
    const frame = this.newFrame(scope, this.func, undefined);
    this.bodyFrame = frame;
    const last = def.body?.k === 'block' ? def.body.body[def.body.body.length - 1] : undefined;
    this.tailIf = last?.k === 'if' ? last : undefined;
    if (def.kind !== 'modifier' && !def.body) this.s.unknownCallee = true;
    // Modifiers wrap the body in the order written; each `_` runs the next one, the last `_` the body.
    const mods = def.modifiers
      .map((m) => ({ call: m, func: this.ctx?.modifier(m.name) }))
      .filter((m) => m.func || !this.isBaseConstructorCall(m.call.name));
    const runFrom = (i: number, flow: Flow): Flow | null => {
      if (i === mods.length) {
        this.frames.push(frame);
        const out = def.body ? this.stmt(def.body, flow) : flow;
        this.frames.pop();
        return out;
      }
      const m = mods[i]!;
      if (!m.func) {
        // A modifier whose definition is not in the input: its name is all there is to go by.
        if (ACCESS_MODIFIER_NAME.test(m.call.name)) this.s.accessCheck = true;
        if (GUARD_NAME.test(m.call.name)) this.s.guarded = true;
        this.s.unknownCallee = true;
        return runFrom(i + 1, flow);
      }
      this.frames.push(frame);
      const args = m.call.args.map((a) => this.sources(a));
      for (const a of m.call.args) this.expr(a, flow);
      this.frames.pop();
      if (isLockingModifier(m.func, this.ctx, this.all.project) || GUARD_NAME.test(m.call.name)) this.s.guarded = true;
      const mframe = this.newFrame(new Scope(this.ctx, m.func, this.all.project), m.func, args);
      this.frames.push(mframe);
      if (!m.func.def.body) this.s.unknownCallee = true;
      const out = m.func.def.body ? this.stmt(m.func.def.body, flow, (f) => runFrom(i + 1, f)) : runFrom(i + 1, flow);
      this.frames.pop();
      return out;
    };
    runFrom(0, { reads: new Set(), calls: [] });
    // Named return variables return whatever was assigned to them.
    for (const r of def.returns) if (r.name) this.s.returns = union(this.s.returns, frame.locals.get(r.name) ?? NONE);
    if (def.body) this.settleResults(def.body);
    return this.s;
  }

  /** Whether the summarised function is externally callable. */
  private get entry(): boolean {
    const d = this.func.def;
    return d.visibility === 'public' || d.visibility === 'external';
  }

  /** The function's own code, as opposed to its modifiers' and callees'. */
  private get own(): boolean {
    return this.frame === this.bodyFrame;
  }

  /** A low-level call or send whose result lands in a local is checked when that local is ever read. */
  private settleResults(body: Stmt): void {
    if (!this.results.length) return;
    const used = identsRead(body);
    for (const r of this.results) {
      if (!used.has(r.name)) (r.send ? this.s.local.uncheckedSend : this.s.local.uncheckedLowLevel).push(r.at);
      else if (r.interaction && this.conditionIdents.has(r.name)) r.interaction.revertsOnFailure = true;
    }
  }

  /** `x.call(…)`, `x.send(…)` and the like: the kind of result a statement may drop. */
  private resultKind(e: Expr): 'send' | 'lowlevel' | undefined {
    if (e.k !== 'call' || e.callee.k !== 'member') return undefined;
    const t = this.frame.scope.typeOf(e.callee.object);
    if (t && !isAddressType(t)) return undefined;
    if (e.callee.member === 'send' && e.args.length === 1) return 'send';
    if (LOW_LEVEL.has(e.callee.member)) return 'lowlevel';
    return undefined;
  }

  private lastInteraction(): Interaction | undefined {
    return this.s.interactions[this.s.interactions.length - 1];
  }

  private isBaseConstructorCall(name: string): boolean {
    return !!this.all.project.contract(name, this.func.unit.file);
  }

  private newFrame(scope: Scope, func: Func, paramSources: Sources[] | undefined): Frame {
    const frame: Frame = { scope, func, paramSources, locals: new Map(), aliases: new Map(), slots: new Map() };
    func.def.params.forEach((p, i) => {
      if (p.name) frame.locals.set(p.name, paramSources ? (paramSources[i] ?? NONE) : new Set([`p${i}`]));
    });
    for (const r of func.def.returns) if (r.name) frame.locals.set(r.name, NONE);
    if (func.def.body) this.prepareLocals(frame, func.def.body);
    return frame;
  }

  /** Declares the frame's locals and computes their sources to a fixpoint (flow-insensitive). */
  private prepareLocals(frame: Frame, body: Stmt): void {
    const assignments: { name: string; value: Expr; index?: number }[] = [];
    const blocks: Extract<Stmt, { k: 'assembly' }>[] = [];
    const visit = (st: Stmt) => {
      switch (st.k) {
        case 'var':
          st.vars.forEach((v, i) => {
            if (!v) return;
            frame.scope.declare(v.name, v.type);
            if (!frame.locals.has(v.name)) frame.locals.set(v.name, NONE);
            if (st.value)
              assignments.push({ name: v.name, value: st.value, ...(st.vars.length > 1 ? { index: i } : {}) });
          });
          break;
        case 'expr':
          collectLocalAssignments(st.expr, assignments);
          break;
        case 'block':
          st.body.forEach(visit);
          break;
        case 'if':
          visit(st.whenTrue);
          if (st.whenFalse) visit(st.whenFalse);
          break;
        case 'loop':
          if (st.init) visit(st.init);
          if (st.step) collectLocalAssignments(st.step, assignments);
          visit(st.body);
          break;
        case 'assembly':
          blocks.push(st);
          break;
        case 'try':
          for (const r of st.returns) {
            if (!r.name) continue;
            frame.scope.declare(r.name, r.type);
            frame.locals.set(r.name, new Set(['ext']));
          }
          visit(st.body);
          st.catches.forEach(visit);
          break;
      }
    };
    visit(body);
    this.frames.push(frame);
    for (const a of assignments) {
      if (!frame.scope.isLocal(a.name)) continue;
      if (a.value.k === 'ident' && SLOT_NAME.test(a.value.name)) frame.slots.set(a.name, a.value.name);
      const root = frame.scope.rootStateVar(a.value);
      const t = frame.scope.locals.get(a.name);
      if (root && t && t.k !== 'elementary') frame.aliases.set(a.name, root.key);
      else if (a.value.k === 'ident' && frame.aliases.has(a.value.name))
        frame.aliases.set(a.name, frame.aliases.get(a.value.name)!);
      else {
        const p = this.paramRef(a.value);
        if (p !== undefined && t && t.k !== 'elementary') frame.aliases.set(a.name, p);
      }
    }
    // `impl := sload(_IMPLEMENTATION_SLOT)`: the locals of a block that loads a named slot carry that slot.
    for (const st of blocks) {
      const slots = slotNames(st.facts, frame);
      if (!slots.length || !st.facts.builtins.has('sload')) continue;
      for (const id of st.facts.identifiers) {
        if (id.includes('.') || !frame.scope.isLocal(id)) continue;
        frame.locals.set(id, union(frame.locals.get(id) ?? NONE, new Set(slots.map((n) => `state:slot:${n}`))));
      }
    }
    for (let round = 0; round < 4; round++) {
      let changed = false;
      for (const a of assignments) {
        if (!frame.locals.has(a.name)) continue;
        const before = frame.locals.get(a.name)!;
        const next = union(before, this.sources(a.value, true));
        if (next.size !== before.size) {
          frame.locals.set(a.name, next);
          changed = true;
        }
      }
      if (!changed) break;
    }
    this.frames.pop();
  }

  /** `ref:<i>` when an expression is rooted in storage passed as parameter i. */
  private paramRef(e: Expr): string | undefined {
    let cur = e;
    while (cur.k === 'index' || cur.k === 'member') cur = cur.object;
    if (cur.k !== 'ident') return undefined;
    const alias = this.frame.aliases.get(cur.name);
    if (alias?.startsWith('ref:')) return alias;
    const i = this.frame.func.def.params.findIndex((p) => p.name === cur.name);
    if (i < 0 || this.frame.func.def.kind === 'modifier') return undefined;
    const t = this.frame.func.def.params[i]!.type;
    return t && t.k !== 'elementary' ? `ref:${i}` : undefined;
  }

  /** The state key an lvalue or read is rooted in: a state variable, a storage alias, or a storage parameter. */
  private stateKey(e: Expr): string | undefined {
    let cur = e;
    while (cur.k === 'index' || cur.k === 'member') {
      if (cur.k === 'member' && cur.object.k === 'ident' && cur.object.name === 'this') return undefined;
      cur = cur.object;
    }
    if (cur.k !== 'ident') return undefined;
    const alias = this.frame.aliases.get(cur.name);
    if (alias) return alias;
    if (this.frame.scope.isLocal(cur.name)) return this.paramRef(cur);
    return this.frame.scope.stateVar(cur.name)?.key;
  }

  // ---- statements -------------------------------------------------------------------------------------------

  private stmt(st: Stmt, flow: Flow | null, placeholder?: (flow: Flow) => Flow | null): Flow | null {
    if (!flow) return null;
    switch (st.k) {
      case 'block': {
        if (st.unchecked) this.uncheckedDepth++;
        let f: Flow | null = flow;
        for (const s of st.body) f = this.stmt(s, f, placeholder);
        if (st.unchecked) this.uncheckedDepth--;
        return f;
      }
      case 'expr': {
        this.expr(st.expr, flow);
        if (this.own) {
          const kind = this.resultKind(st.expr);
          if (kind) (kind === 'send' ? this.s.local.uncheckedSend : this.s.local.uncheckedLowLevel).push(st.span);
          if (st.expr.k === 'assign' && this.resultKind(st.expr.right)) {
            const first = st.expr.left.k === 'tuple' ? st.expr.left.items[0] : st.expr.left;
            if (first?.k === 'ident') {
              this.results.push({
                name: first.name,
                interaction: this.lastInteraction(),
                send: this.resultKind(st.expr.right) === 'send',
                at: st.span,
              });
            }
          }
        }
        return this.revertsUnconditionally(st.expr) ? null : flow;
      }
      case 'var':
        if (st.value) {
          this.expr(st.value, flow);
          const kind = this.own ? this.resultKind(st.value) : undefined;
          if (kind && st.vars[0]) {
            this.results.push({
              name: st.vars[0].name,
              interaction: this.lastInteraction(),
              send: kind === 'send',
              at: st.span,
            });
          } else if (kind && !st.vars[0]) {
            (kind === 'send' ? this.s.local.uncheckedSend : this.s.local.uncheckedLowLevel).push(st.span);
          }
        }
        return flow;
      case 'if': {
        // A condition guards when failing it reverts; in an entry point's own body also when it returns early or
        // holds the rest of the code in its branch (`if (msg.sender == owner) { … }`).
        const guards =
          endsInRevert(st.whenTrue) ||
          (!!st.whenFalse && endsInRevert(st.whenFalse)) ||
          (this.own &&
            this.entry &&
            ((!st.whenFalse && st === this.tailIf) || endsInReturn(st.whenTrue) || endsInReturn(st.whenFalse)));
        this.condition(st.cond, flow, guards);
        const a = this.stmt(st.whenTrue, cloneFlow(flow), placeholder);
        const b = st.whenFalse ? this.stmt(st.whenFalse, cloneFlow(flow), placeholder) : flow;
        return joinFlows(a, b);
      }
      case 'loop': {
        let f: Flow | null = flow;
        if (st.init) f = this.stmt(st.init, f, placeholder);
        if (!f) return null;
        const bound = new Set<string>();
        if (st.cond) {
          this.condition(st.cond, f, false);
          collectLengthBounds(st.cond, (e) => {
            const k = this.stateKey(e);
            if (k) bound.add(k);
          });
        }
        this.s.loops.push({ at: st.span, boundArrays: bound });
        this.loopDepth++;
        let out: Flow | null = f;
        for (let pass = 0; pass < 2; pass++) {
          const body = this.stmt(st.body, out ? cloneFlow(out) : null, placeholder);
          if (body && st.step) this.expr(st.step, body);
          out = joinFlows(out, body);
        }
        this.loopDepth--;
        return out;
      }
      case 'return':
        if (st.value) {
          this.expr(st.value, flow);
          this.s.returns = union(this.s.returns, this.frames.length === 1 ? this.sources(st.value) : NONE);
        }
        return null;
      case 'emit':
        for (const a of st.args) this.expr(a, flow);
        return flow;
      case 'revert':
        for (const a of st.args) this.expr(a, flow);
        return null;
      case 'try': {
        this.expr(st.call, flow);
        const a = this.stmt(st.body, cloneFlow(flow), placeholder);
        let out = a;
        for (const c of st.catches) out = joinFlows(out, this.stmt(c, cloneFlow(flow), placeholder));
        return out;
      }
      case 'assembly':
        this.assembly(st, flow);
        return flow;
      case 'placeholder':
        return placeholder ? placeholder(flow) : flow;
      default:
        return flow;
    }
  }

  private revertsUnconditionally(e: Expr): boolean {
    return e.k === 'call' && e.callee.k === 'ident' && (e.callee.name === 'revert' || e.callee.name === 'throw');
  }

  private assembly(st: Extract<Stmt, { k: 'assembly' }>, flow: Flow): void {
    const { builtins, identifiers } = st.facts;
    if (this.own) this.s.local.assembly.push(st.span);
    const solidity = [...identifiers].map((i) => i.split('.')[0]!);
    const srcs = union(
      ...solidity.map((name) => {
        if (this.frame.locals.has(name)) return this.frame.locals.get(name)!;
        const sv = this.frame.scope.stateVar(name);
        return sv ? new Set([`state:${sv.key}`]) : NONE;
      }),
    );
    for (const id of identifiers) {
      const [name, member] = id.split('.');
      if (member === 'slot') {
        const sv = this.frame.scope.stateVar(name!);
        if (sv && builtins.has('sstore')) this.write(sv.key, srcs, st.span, flow);
      }
      if (IMPLEMENTATION_SLOT.test(name!) && builtins.has('sstore')) this.s.writesImplementation ??= this.at(st.span);
    }
    for (const name of slotNames(st.facts, this.frame)) {
      if (builtins.has('sload')) this.read(`slot:${name}`, flow);
      if (builtins.has('sstore')) this.write(`slot:${name}`, srcs, st.span, flow);
    }
    if (builtins.has('selfdestruct') || builtins.has('suicide')) {
      this.s.selfdestructs.push({ at: this.at(st.span), beneficiary: srcs });
    }
    for (const op of ['call', 'delegatecall', 'callcode']) {
      if (!builtins.has(op)) continue;
      this.s.opaque = true;
      this.interaction(
        {
          kind: op === 'call' ? 'call' : 'delegatecall',
          eth: false,
          dest: srcs,
          amount: NONE,
          view: false,
          toSelf: false,
          revertsOnFailure: false,
          member: op,
        },
        st.span,
        flow,
        true,
      );
    }
  }

  // ---- expressions ------------------------------------------------------------------------------------------

  /** Walks an expression for its effects in evaluation order. */
  private expr(e: Expr, flow: Flow): void {
    switch (e.k) {
      case 'ident': {
        const k = this.stateKey(e);
        if (k) this.read(k, flow);
        return;
      }
      case 'member':
      case 'index': {
        if (e.k === 'index' && e.index) this.expr(e.index, flow);
        const k = this.stateKey(e);
        if (k) this.read(k, flow);
        else this.expr(e.object, flow);
        return;
      }
      case 'binary':
        this.expr(e.left, flow);
        this.expr(e.right, flow);
        if (this.own) this.binaryFacts(e);
        return;
      case 'unary':
        this.expr(e.operand, flow);
        if (e.op === 'delete' || e.op.startsWith('++') || e.op.startsWith('--')) {
          const k = this.stateKey(e.operand);
          if (k) this.write(k, this.sources(e.operand), e.span, flow);
        }
        return;
      case 'assign': {
        this.expr(e.right, flow);
        const targets = e.left.k === 'tuple' ? e.left.items : [e.left];
        for (const t of targets) {
          if (!t) continue;
          if (t.k === 'index' && t.index) this.expr(t.index, flow);
          const k = this.stateKey(t);
          if (k && this.own) this.arithmetic(e, k);
          if (k) {
            if (e.op !== '=') this.read(k, flow);
            this.write(k, this.sources(e.right), e.span, flow);
            if (IMPLEMENTATION_VAR.test(lastName(t))) this.s.writesImplementation ??= this.at(e.span);
          } else if (t.k !== 'ident') {
            this.expr(t, flow);
            if (mentionsImplementationSlot(t)) this.s.writesImplementation ??= this.at(e.span);
          }
        }
        return;
      }
      case 'conditional':
        this.condition(e.cond, flow, false);
        this.expr(e.whenTrue, flow);
        this.expr(e.whenFalse, flow);
        return;
      case 'tuple':
        for (const i of e.items) if (i) this.expr(i, flow);
        return;
      case 'call':
        this.call(e, flow);
        return;
      default:
        return;
    }
  }

  private condition(c: Expr, flow: Flow, guards: boolean): void {
    this.expr(c, flow);
    this.s.conditions.push(union(this.sources(c), this.keysUsed(c)));
    const check = guards ? this.accessCheck(c) : undefined;
    if (check === 'sender') this.s.accessCheck = true;
    if (check === 'origin') {
      this.s.accessCheck = true;
      this.s.originChecks.push(this.at(c.span));
      if (this.own) this.s.local.originChecks.push(c.span);
    }
    if (!this.own) return;
    for (const name of identsIn(c)) this.conditionIdents.add(name);
    if (comparisons(c).some((x) => this.sources(x.left).has('time') || this.sources(x.right).has('time'))) {
      this.s.local.timestamps.push(c.span);
    }
  }

  private binaryFacts(e: Extract<Expr, { k: 'binary' }>): void {
    if (e.op === '%') {
      // `block.timestamp % 2**32` truncates (Uniswap V2's oracle), it does not draw a number.
      if (isPowerOfTwo(e.right)) return;
      const left = this.sources(e.left);
      if (left.has('block') || left.has('time')) this.s.local.prng.push(e.span);
    } else if (e.op === '==' || e.op === '!=') {
      // `balance == 0` asks whether anything is there; a donation cannot make an empty check wrong.
      if (isZero(e.left) || isZero(e.right)) return;
      const both = union(this.sources(e.left), this.sources(e.right));
      if (both.has('balance') || both.has('tokenBalance')) this.s.local.strictBalance.push(e.span);
    }
  }

  /** Arithmetic whose result is stored: `x += v`, `x = a + b`. */
  private arithmetic(e: Extract<Expr, { k: 'assign' }>, target: string): void {
    const compound = e.op === '+=' || e.op === '-=' || e.op === '*=';
    const direct = e.op === '=' && e.right.k === 'binary' && ['+', '-', '*'].includes(e.right.op);
    if (!compound && !direct) return;
    this.s.local.arithmetic.push({
      at: e.span,
      operands: compound ? union(this.sources(e.left), this.sources(e.right)) : this.sources(e.right),
      stateTarget: target,
      unchecked: this.uncheckedDepth > 0,
    });
  }

  /**
   * Recognises a check of who the caller is: the caller compared with an account that is not the caller's own
   * argument (`msg.sender == owner`), a boolean looked up by caller (`admins[msg.sender]`), or a call that answers
   * for the caller (`hasRole(ROLE, msg.sender)`, `acl.isPoolAdmin(msg.sender)`).
   */
  private accessCheck(c: Expr): 'sender' | 'origin' | undefined {
    const who = (srcs: Sources) => (srcs.has('sender') ? 'sender' : srcs.has('origin') ? 'origin' : undefined);
    switch (c.k) {
      case 'binary': {
        if (c.op === '&&' || c.op === '||') return this.accessCheck(c.left) ?? this.accessCheck(c.right);
        if (c.op !== '==' && c.op !== '!=') return undefined;
        const l = this.sources(c.left);
        const r = this.sources(c.right);
        const account = (srcs: Sources) =>
          srcs.size === 0 || [...srcs].some((s) => s.startsWith('state:') || s === 'ext' || s === 'sender');
        const lw = who(l);
        const rw = who(r);
        // `tx.origin == msg.sender` checks that the caller is not a contract, not who it is.
        if (lw && rw && lw !== rw) return undefined;
        if (lw && !rw && account(r) && !isBoolLiteral(c.right)) return this.checked(c.right, lw);
        if (rw && !lw && account(l) && !isBoolLiteral(c.left)) return this.checked(c.left, rw);
        if (lw && rw) return undefined;
        // `isAdmin[msg.sender] == true`
        if (isBoolLiteral(c.right)) return this.accessCheck(c.left);
        if (isBoolLiteral(c.left)) return this.accessCheck(c.right);
        return undefined;
      }
      case 'unary':
        return c.op === '!' ? this.accessCheck(c.operand) : undefined;
      case 'index': {
        const k = this.stateKey(c);
        if (!k) return undefined;
        const w = who(this.sources(c.index ?? c));
        if (w) this.s.checkedAccounts.add(k);
        return w;
      }
      case 'call': {
        const args = union(...c.args.map((a) => this.sources(a)));
        if (c.callee.k === 'ident' && (c.callee.name === 'require' || c.callee.name === 'assert')) return undefined;
        return who(args);
      }
      default:
        return undefined;
    }
  }

  /** Records the state an access check compares the caller with. */
  private checked(account: Expr, w: 'sender' | 'origin'): 'sender' | 'origin' {
    // The caller compared with a state variable that holds an account (`owner`), not with a field of a record.
    if (account.k === 'ident') {
      const k = this.stateKey(account);
      if (k) this.s.checkedAccounts.add(k);
    }
    return w;
  }

  private call(e: Extract<Expr, { k: 'call' }>, flow: Flow): void {
    const callee = e.callee;
    for (const o of Object.values(e.options)) this.expr(o, flow);
    // require / assert: their condition is a check.
    if (callee.k === 'ident' && (callee.name === 'require' || callee.name === 'assert') && e.args[0]) {
      for (const a of e.args.slice(1)) this.expr(a, flow);
      this.requireDepth++;
      this.condition(e.args[0], flow, true);
      this.requireDepth--;
      return;
    }
    if (callee.k === 'member') this.expr(callee.object, flow);
    for (const a of e.args) this.expr(a, flow);
    if (callee.k === 'ident') {
      const name = callee.name;
      if (name === 'selfdestruct' || name === 'suicide') {
        this.s.selfdestructs.push({ at: this.at(e.span), beneficiary: this.sources(e.args[0] ?? e) });
        return;
      }
      if (this.frame.scope.isLocal(name) || isBuiltinFunction(name) || ELEMENTARY.test(name)) return;
      // A conversion to a contract type, a struct constructor, an event raised the pre-0.4.21 way.
      if (this.all.project.contract(name, this.frame.func.unit.file) || this.isTypeName(name)) return;
      const target =
        this.ctxFor()?.function(name, e.args.length) ??
        (this.frame.func.contract?.def.kind === 'library'
          ? this.ctxFor()?.libraryFunction(this.frame.func.contract, name, e.args.length)
          : undefined) ??
        this.all.project.freeFunction(name, e.args.length, this.frame.func.unit.file);
      if (target) this.internal(target, e.args, e.span, flow);
      else if (!this.frame.scope.stateVar(name)) this.unknownCall(name, e.span);
      return;
    }
    if (callee.k !== 'member') return;
    const obj = callee.object;
    const member = callee.member;
    if (obj.k === 'ident' && obj.name === 'super') {
      const target = this.ctx?.function(member, e.args.length, this.frame.func.contract);
      if (target) this.internal(target, e.args, e.span, flow);
      else this.unknownCall(member, e.span);
      return;
    }
    const t = this.frame.scope.typeOf(obj);
    if (t?.k === 'typeref') {
      const lib = t.contract;
      const target =
        lib.def.kind === 'library'
          ? (this.ctxFor()?.libraryFunction(lib, member, e.args.length) ??
            this.all.project.context(lib).libraryFunction(lib, member, e.args.length))
          : ((this.ctx?.linearisation.includes(lib)
              ? this.ctx.function(member, e.args.length, undefined)
              : undefined) ?? funcIn(lib, member, e.args.length));
      if (target) this.internal(target, e.args, e.span, flow);
      return;
    }
    if (t?.k === 'builtin' || BUILTIN_MEMBERS.has(member)) {
      if (member === 'push' || member === 'pop') {
        const k = this.stateKey(obj);
        if (k) {
          this.write(k, union(...e.args.map((a) => this.sources(a))), e.span, flow);
          this.s.pushes.add(k);
        }
      }
      return;
    }
    const attached = (
      this.ctxFor() ?? (this.frame.func.contract ? this.all.project.context(this.frame.func.contract) : undefined)
    )?.attached(member, e.args.length, t, this.frame.func.unit.file);
    if (attached) {
      this.internal(attached, [obj, ...e.args], e.span, flow);
      return;
    }
    const objSources = this.sources(obj);
    const value = e.options.value;
    const eth = !!value && !(value.k === 'literal' && /^0+$/.test(value.value));
    const amount = value ? this.sources(value) : NONE;
    const toSelf = obj.k === 'ident' && obj.name === 'this';
    if (LOW_LEVEL.has(member) && (!t || isAddressType(t))) {
      this.interaction(
        {
          kind: member === 'callcode' ? 'delegatecall' : (member as InteractionKind),
          eth,
          dest: objSources,
          amount,
          view: member === 'staticcall',
          toSelf,
          revertsOnFailure: false,
          member,
        },
        e.span,
        flow,
      );
      if (member === 'delegatecall' || member === 'callcode') this.s.opaque = true;
      return;
    }
    if ((member === 'send' || member === 'transfer') && e.args.length === 1 && (!t || isAddressType(t))) {
      this.interaction(
        {
          kind: member,
          eth: true,
          dest: objSources,
          amount: this.sources(e.args[0]!),
          view: false,
          toSelf,
          revertsOnFailure: member === 'transfer',
          member,
        },
        e.span,
        flow,
      );
      return;
    }
    if (t?.k === 'contract') {
      const fn = findFunction(this.all.project, t.contract, member, e.args.length);
      const view =
        (fn && (fn.mutability === 'view' || fn.mutability === 'pure')) ||
        (!fn && t.contract.def.stateVars.some((v) => v.name === member && v.visibility === 'public'));
      this.interaction(
        {
          kind: 'high',
          eth,
          dest: objSources,
          amount,
          view: !!view,
          toSelf,
          revertsOnFailure: true,
          member,
        },
        e.span,
        flow,
      );
    }
  }

  private isTypeName(name: string): boolean {
    const local = (c: Contract | undefined) =>
      !!c && (c.def.structs.includes(name) || c.def.enums.includes(name) || c.def.events.includes(name));
    if (this.ctx?.linearisation.some(local) || local(this.frame.func.contract)) return true;
    return this.all.project.units.some((u) => u.typeNames.includes(name));
  }

  private unknownCall(name: string, span: Span): void {
    this.s.unknownCallee = true;
    if (IMPLEMENTATION_SETTER.test(name)) this.s.writesImplementation ??= this.at(span);
  }

  /** The context to resolve internal calls in: the analysed contract, or the library the frame's code is in. */
  private ctxFor(): Context | undefined {
    const c = this.frame.func.contract;
    if (c && c.def.kind === 'library') return this.all.project.context(c);
    return this.ctx;
  }

  private internal(target: Func, args: readonly Expr[], span: Span, flow: Flow): void {
    if (IMPLEMENTATION_SETTER.test(target.def.name) && !target.def.body) this.s.writesImplementation ??= this.at(span);
    const ctx = target.contract?.def.kind === 'library' ? this.all.project.context(target.contract) : this.ctx;
    const callee = this.all.of(target, ctx);
    const argSources = args.map((a) => this.sources(a));
    const argRefs = args.map((a) => this.stateKey(a));
    const mapKey = (k: string) => (k.startsWith('ref:') ? argRefs[Number(k.slice(4))] : k);
    const at = this.at(span);
    // Writes the callee makes after calls it made itself.
    for (const w of callee.writesAfterCalls) {
      const v = mapKey(w.variable);
      if (!v) continue;
      const call = this.relocate(w.call, argSources, at, flow);
      this.s.writesAfterCalls.push({ call, variable: v, at });
    }
    // Its reads happen before its writes as far as earlier calls are concerned.
    for (const r of callee.reads) {
      const k = mapKey(r);
      if (k) this.read(k, flow);
    }
    const before = new Set(flow.reads);
    for (const i of callee.interactions) {
      const call = this.relocate(i, argSources, at, flow, before);
      this.s.interactions.push(call);
      if (!call.view && !call.toSelf && call.kind !== 'staticcall') flow.calls.push(call);
    }
    for (const [w, srcs] of callee.writes) {
      const k = mapKey(w);
      if (k) this.write(k, substitute(srcs, argSources), span, flow, callee.interactions);
    }
    for (const p of callee.pushes) {
      const k = mapKey(p);
      if (k) this.s.pushes.add(k);
    }
    for (const d of callee.selfdestructs) {
      this.s.selfdestructs.push({ at, beneficiary: substitute(d.beneficiary, argSources) });
    }
    for (const c of callee.conditions) this.s.conditions.push(substitute(c, argSources));
    if (callee.accessCheck) this.s.accessCheck = true;
    for (const k of callee.checkedAccounts) {
      const mapped = mapKey(k);
      if (mapped) this.s.checkedAccounts.add(mapped);
    }
    if (callee.originChecks.length) this.s.originChecks.push(at);
    if (callee.unknownCallee) this.s.unknownCallee = true;
    if (callee.opaque) this.s.opaque = true;
    if (callee.writesImplementation) this.s.writesImplementation ??= at;
    if (callee.loops.length)
      this.s.loops.push(
        ...callee.loops.map((l) => ({ at, boundArrays: new Set([...l.boundArrays].map((b) => mapKey(b) ?? b)) })),
      );
  }

  private relocate(i: Interaction, args: readonly Sources[], at: Span, flow: Flow, before?: Set<string>): Interaction {
    return {
      ...i,
      at,
      dest: substitute(i.dest, args),
      amount: substitute(i.amount, args),
      inLoop: i.inLoop || this.loopDepth > 0,
      loopHere: this.loopDepth > 0,
      readsBefore: union(before ?? flow.reads, i.readsBefore),
    };
  }

  private interaction(
    i: Omit<Interaction, 'at' | 'inLoop' | 'loopHere' | 'readsBefore' | 'origin'>,
    span: Span,
    flow: Flow,
    fromAssembly = false,
  ): void {
    if (this.own && !fromAssembly && LOW_LEVEL.has(i.member)) {
      this.s.local.lowLevel.push(span);
    }
    const full: Interaction = {
      ...i,
      revertsOnFailure: i.revertsOnFailure || this.requireDepth > 0,
      at: this.at(span),
      inLoop: this.loopDepth > 0,
      loopHere: this.loopDepth > 0,
      readsBefore: new Set(flow.reads),
      origin: { file: this.frame.func.unit.file, span },
    };
    this.s.interactions.push(full);
    // Calls that can re-enter with effects: not STATICCALLs, not gas-stipend sends, not calls to this contract or
    // to a contract it has just deployed.
    const created = full.dest.size > 0 && [...full.dest].every((x) => x === 'created');
    if (
      !full.view &&
      !full.toSelf &&
      !created &&
      full.kind !== 'staticcall' &&
      full.kind !== 'send' &&
      full.kind !== 'transfer'
    ) {
      if (full.kind !== 'delegatecall') flow.calls.push(full);
    }
  }

  private read(key: string, flow: Flow): void {
    this.s.reads.add(key);
    flow.reads.add(key);
  }

  private write(key: string, srcs: Sources, span: Span, flow: Flow, own?: readonly Interaction[]): void {
    const prev = this.s.writes.get(key);
    this.s.writes.set(key, prev ? union(prev, srcs) : srcs);
    for (const call of flow.calls) {
      if (own?.some((o) => o.origin === call.origin)) continue;
      this.s.writesAfterCalls.push({ call, variable: key, at: this.at(span) });
    }
  }

  /** A location in the summarised function: nested frames report at the outermost call site. */
  private at(span: Span): Span {
    return span;
  }

  // ---- sources ----------------------------------------------------------------------------------------------

  /** Sources of the keys a condition looks records up by (`_shares[account]` mentions `account`). */
  private keysUsed(e: Expr): Sources {
    const out: Sources[] = [];
    const visit = (x: Expr) => {
      switch (x.k) {
        case 'index':
          if (x.index) {
            out.push(this.sources(x.index));
            visit(x.index);
          }
          visit(x.object);
          return;
        case 'member':
          visit(x.object);
          return;
        case 'binary':
          visit(x.left);
          visit(x.right);
          return;
        case 'unary':
          visit(x.operand);
          return;
        case 'call':
          x.args.forEach(visit);
          return;
        default:
          return;
      }
    };
    visit(e);
    return union(...out);
  }

  /** Where an expression's value may come from. */
  sources(e: Expr, _prepass = false): Sources {
    switch (e.k) {
      case 'ident': {
        const f = this.frame;
        if (f.locals.has(e.name)) return f.locals.get(e.name)!;
        if (e.name === 'now') return new Set(['time']);
        const sv = f.scope.stateVar(e.name);
        if (sv) return sv.def.constant ? NONE : new Set([`state:${sv.key}`]);
        return NONE;
      }
      case 'member': {
        const o = e.object;
        if (o.k === 'ident' && !this.frame.scope.isLocal(o.name)) {
          if (o.name === 'msg' && e.member === 'sender') return new Set(['sender']);
          if (o.name === 'msg' && e.member === 'value') return new Set(['value']);
          if (o.name === 'tx' && e.member === 'origin') return new Set(['origin']);
          if (o.name === 'block') return new Set([e.member === 'timestamp' ? 'time' : 'block']);
          if (o.name === 'this' && e.member === 'balance') return new Set(['balance']);
        }
        if (e.member === 'balance') return new Set(['balance']);
        const k = this.stateKey(e);
        if (k) return new Set([`state:${k}`]);
        return this.sources(o);
      }
      case 'index': {
        // The value stored under a key, not the key: `users[i]` is one of the stored users, whatever `i` is.
        const k = this.stateKey(e);
        if (k) return new Set([`state:${k}`]);
        return this.sources(e.object);
      }
      case 'binary':
        return union(this.sources(e.left), this.sources(e.right));
      case 'unary':
        return this.sources(e.operand);
      case 'conditional':
        return union(this.sources(e.whenTrue), this.sources(e.whenFalse));
      case 'tuple':
        return union(...e.items.map((i) => (i ? this.sources(i) : NONE)));
      case 'assign':
        return this.sources(e.right);
      case 'call':
        return this.callSources(e);
      case 'new':
        return CREATED;
      default:
        return NONE;
    }
  }

  private callSources(e: Extract<Expr, { k: 'call' }>): Sources {
    const callee = e.callee;
    if (callee.k === 'new') return CREATED;
    const args = () => union(...e.args.map((a) => this.sources(a)));
    if (callee.k === 'ident') {
      if (callee.name === 'blockhash' || callee.name === 'block.blockhash') return new Set(['block']);
      if (callee.name === '_msgSender' || callee.name === 'msgSender') {
        const f = this.ctx?.function(callee.name, 0);
        if (!f?.def.body) return new Set(['sender']);
      }
      if (
        HASHES.has(callee.name) ||
        isBuiltinFunction(callee.name) ||
        this.frame.scope.typeOf(callee)?.k === 'typeref'
      ) {
        return args();
      }
      if (ELEMENTARY.test(callee.name)) return args();
      const target =
        this.ctx?.function(callee.name, e.args.length) ??
        (this.frame.func.contract?.def.kind === 'library'
          ? this.all.project
              .context(this.frame.func.contract)
              .libraryFunction(this.frame.func.contract, callee.name, e.args.length)
          : undefined);
      if (target) {
        const ctx = target.contract?.def.kind === 'library' ? this.all.project.context(target.contract) : this.ctx;
        return substitute(
          this.all.of(target, ctx).returns,
          e.args.map((a) => this.sources(a)),
        );
      }
      return args();
    }
    if (callee.k === 'member') {
      const o = callee.object;
      if (o.k === 'ident' && o.name === 'block' && callee.member === 'blockhash') return new Set(['block']);
      if (o.k === 'ident' && o.name === 'abi') return args();
      const t = this.frame.scope.typeOf(o);
      if (callee.member === 'balanceOf' && t?.k === 'contract' && !(o.k === 'ident' && o.name === 'this')) {
        return new Set(['tokenBalance', 'ext']);
      }
      if (t?.k === 'typeref' && t.contract.def.kind === 'library') {
        const target = this.all.project.context(t.contract).libraryFunction(t.contract, callee.member, e.args.length);
        if (target)
          return substitute(
            this.all.of(target, this.all.project.context(t.contract)).returns,
            e.args.map((a) => this.sources(a)),
          );
      }
      if (t?.k === 'contract' || LOW_LEVEL.has(callee.member)) return new Set(['ext']);
      const attached = this.ctx?.attached(callee.member, e.args.length, t, this.frame.func.unit.file);
      if (attached) {
        const ctx = attached.contract?.def.kind === 'library' ? this.all.project.context(attached.contract) : this.ctx;
        return substitute(this.all.of(attached, ctx).returns, [this.sources(o), ...e.args.map((a) => this.sources(a))]);
      }
      return union(this.sources(o), args());
    }
    return args();
  }
}

/** Storage slots an assembly block names by constant (`_IMPLEMENTATION_SLOT`, `ADMIN_SLOT`). */
function slotNames(facts: AssemblyFacts, frame: Frame): string[] {
  const out = new Set<string>();
  for (const i of facts.identifiers) {
    if (i.includes('.')) continue;
    if (SLOT_NAME.test(i)) out.add(i);
    else if (frame.slots.has(i)) out.add(frame.slots.get(i)!);
  }
  return [...out];
}

const SLOT_NAME = /_SLOT$|^SLOT_/i;

/** The statement always ends in a revert (`revert`, `throw`, `require(false)`). */
function endsInRevert(s: Stmt): boolean {
  if (s.k === 'revert') return true;
  if (s.k === 'block') return s.body.length > 0 && endsInRevert(s.body[s.body.length - 1]!);
  if (s.k === 'if') return endsInRevert(s.whenTrue) && !!s.whenFalse && endsInRevert(s.whenFalse);
  if (s.k === 'expr' && s.expr.k === 'call' && s.expr.callee.k === 'ident') {
    const name = s.expr.callee.name;
    if (name === 'revert') return true;
    const first = s.expr.args[0];
    if ((name === 'require' || name === 'assert') && first?.k === 'literal' && first.value === 'false') return true;
  }
  return false;
}

function endsInReturn(s: Stmt | null): boolean {
  if (!s) return false;
  if (s.k === 'return') return true;
  if (s.k === 'block') return s.body.length > 0 && endsInReturn(s.body[s.body.length - 1]!);
  return false;
}

/** Comparison sub-expressions of a condition. */
function comparisons(e: Expr): Extract<Expr, { k: 'binary' }>[] {
  const out: Extract<Expr, { k: 'binary' }>[] = [];
  const visit = (x: Expr) => {
    if (x.k === 'binary') {
      if (['<', '>', '<=', '>=', '==', '!='].includes(x.op)) out.push(x);
      visit(x.left);
      visit(x.right);
    } else if (x.k === 'unary') visit(x.operand);
    else if (x.k === 'call') x.args.forEach(visit);
  };
  visit(e);
  return out;
}

/** Identifiers an expression mentions. */
function identsIn(e: Expr): string[] {
  const out: string[] = [];
  const visit = (x: Expr) => {
    switch (x.k) {
      case 'ident':
        out.push(x.name);
        return;
      case 'member':
        visit(x.object);
        return;
      case 'index':
        visit(x.object);
        if (x.index) visit(x.index);
        return;
      case 'call':
        visit(x.callee);
        x.args.forEach(visit);
        for (const o of Object.values(x.options)) visit(o);
        return;
      case 'binary':
      case 'assign':
        visit(x.left);
        visit(x.right);
        return;
      case 'unary':
        visit(x.operand);
        return;
      case 'conditional':
        visit(x.cond);
        visit(x.whenTrue);
        visit(x.whenFalse);
        return;
      case 'tuple':
        for (const i of x.items) if (i) visit(i);
        return;
      default:
        return;
    }
  };
  visit(e);
  return out;
}

/** Identifiers a body reads (an identifier assigned to is not read by that assignment). */
function identsRead(body: Stmt): Set<string> {
  const out = new Set<string>();
  const expr = (x: Expr) => {
    if (x.k === 'assign') {
      const lefts = x.left.k === 'tuple' ? x.left.items : [x.left];
      for (const l of lefts) if (l && l.k !== 'ident') for (const n of identsIn(l)) out.add(n);
      for (const n of identsIn(x.right)) out.add(n);
      return;
    }
    for (const n of identsIn(x)) out.add(n);
  };
  const visit = (s: Stmt) => {
    switch (s.k) {
      case 'block':
        s.body.forEach(visit);
        return;
      case 'expr':
        expr(s.expr);
        return;
      case 'var':
        if (s.value) expr(s.value);
        return;
      case 'if':
        expr(s.cond);
        visit(s.whenTrue);
        if (s.whenFalse) visit(s.whenFalse);
        return;
      case 'loop':
        if (s.init) visit(s.init);
        if (s.cond) expr(s.cond);
        if (s.step) expr(s.step);
        visit(s.body);
        return;
      case 'return':
        if (s.value) expr(s.value);
        return;
      case 'emit':
      case 'revert':
        s.args.forEach(expr);
        return;
      case 'try':
        expr(s.call);
        visit(s.body);
        s.catches.forEach(visit);
        return;
      case 'assembly':
        for (const i of s.facts.identifiers) out.add(i.split('.')[0]!);
        return;
      default:
        return;
    }
  };
  visit(body);
  return out;
}

function lastName(e: Expr): string {
  if (e.k === 'ident') return e.name;
  if (e.k === 'member') return e.member;
  if (e.k === 'index') return lastName(e.object);
  return '';
}

function mentionsImplementationSlot(e: Expr): boolean {
  let found = false;
  const visit = (x: Expr) => {
    if (found) return;
    if (x.k === 'ident' && IMPLEMENTATION_SLOT.test(x.name)) found = true;
    else if (x.k === 'member') {
      if (IMPLEMENTATION_SLOT.test(x.member)) found = true;
      visit(x.object);
    } else if (x.k === 'index') {
      visit(x.object);
      if (x.index) visit(x.index);
    } else if (x.k === 'call') {
      visit(x.callee);
      x.args.forEach(visit);
    }
  };
  visit(e);
  return found;
}

const isBoolLiteral = (e: Expr) => e.k === 'literal' && e.kind === 'bool';
const isPowerOfTwo = (e: Expr): boolean => {
  if (e.k === 'binary' && e.op === '**') return e.left.k === 'literal' && e.left.value === '2';
  if (e.k !== 'literal' || e.kind !== 'number') return false;
  try {
    const n = BigInt(e.value.replace(/_/g, ''));
    return n > 1n && (n & (n - 1n)) === 0n;
  } catch {
    return false;
  }
};
const isZero = (e: Expr) => e.k === 'literal' && e.kind === 'number' && /^0+$/.test(e.value);

const ELEMENTARY = /^(address|payable|address payable|u?int\d*|bytes\d*|bool|string|byte|u?fixed[\dx]*)$/;

const BUILTIN_FUNCTIONS = new Set([
  'require',
  'assert',
  'revert',
  'keccak256',
  'sha3',
  'sha256',
  'ripemd160',
  'ecrecover',
  'addmod',
  'mulmod',
  'gasleft',
  'blockhash',
  'type',
  'selfdestruct',
  'suicide',
]);

function isBuiltinFunction(name: string): boolean {
  return BUILTIN_FUNCTIONS.has(name);
}

function funcIn(c: Contract, name: string, arity: number): Func | undefined {
  const def = c.def.functions.find((f) => f.name === name && f.params.length === arity);
  return def ? funcOf(def, c, c.unit) : undefined;
}

type Contract = NonNullable<Func['contract']>;

function findFunction(project: Project, c: Contract, name: string, arity: number) {
  for (const base of project.linearisation(c)) {
    const f = base.def.functions.find((fn) => fn.name === name && fn.params.length === arity);
    if (f) return f;
  }
  return undefined;
}

function collectLocalAssignments(e: Expr, out: { name: string; value: Expr; index?: number }[]): void {
  const visit = (x: Expr) => {
    switch (x.k) {
      case 'assign':
        if (x.left.k === 'ident') out.push({ name: x.left.name, value: x.right });
        else if (x.left.k === 'tuple') {
          x.left.items.forEach((item, i) => {
            if (item?.k === 'ident') out.push({ name: item.name, value: x.right, index: i });
          });
        }
        visit(x.right);
        return;
      case 'binary':
        visit(x.left);
        visit(x.right);
        return;
      case 'call':
        x.args.forEach(visit);
        return;
      case 'conditional':
        visit(x.cond);
        visit(x.whenTrue);
        visit(x.whenFalse);
        return;
      case 'tuple':
        for (const i of x.items) if (i) visit(i);
        return;
      default:
        return;
    }
  };
  visit(e);
}

/** `i < arr.length`: the state arrays whose length bounds a loop. */
function collectLengthBounds(cond: Expr, found: (array: Expr) => void): void {
  const visit = (x: Expr) => {
    if (x.k === 'member' && x.member === 'length') found(x.object);
    else if (x.k === 'binary') {
      visit(x.left);
      visit(x.right);
    }
  };
  visit(cond);
}

/**
 * A modifier that locks around the body: it checks a state variable, sets it before `_` and resets it after
 * (`require(!locked); locked = true; _; locked = false;`, OpenZeppelin's `_status` pattern).
 */
function isLockingModifier(m: Func, ctx: Context | undefined, project: Project): boolean {
  const body = m.def.body;
  if (body?.k !== 'block') return false;
  const scope = new Scope(ctx, m, project);
  const writesBefore = new Set<string>();
  const writesAfter = new Set<string>();
  let seenPlaceholder = false;
  const checked = new Set<string>();
  const visitExpr = (e: Expr, inCondition: boolean) => {
    if (e.k === 'assign') {
      const sv = scope.rootStateVar(e.left);
      if (sv) (seenPlaceholder ? writesAfter : writesBefore).add(sv.key);
      visitExpr(e.right, inCondition);
      return;
    }
    if (e.k === 'call') {
      const isCheck = e.callee.k === 'ident' && (e.callee.name === 'require' || e.callee.name === 'assert');
      for (const a of e.args) visitExpr(a, inCondition || isCheck);
      // `_nonReentrantBefore()` / `_nonReentrantAfter()`: OpenZeppelin 4.9+ moved the lock into helpers.
      if (e.callee.k === 'ident' && /^_?nonReentrant(Before|After)$/.test(e.callee.name)) {
        (seenPlaceholder ? writesAfter : writesBefore).add('lock');
        checked.add('lock');
      }
      return;
    }
    if (e.k === 'binary') {
      visitExpr(e.left, inCondition);
      visitExpr(e.right, inCondition);
      return;
    }
    if (e.k === 'unary') {
      visitExpr(e.operand, inCondition);
      return;
    }
    if (inCondition) {
      const sv = scope.rootStateVar(e);
      if (sv) checked.add(sv.key);
    }
  };
  const visit = (s: Stmt) => {
    if (s.k === 'placeholder') seenPlaceholder = true;
    else if (s.k === 'expr') visitExpr(s.expr, false);
    else if (s.k === 'block') s.body.forEach(visit);
    else if (s.k === 'if') {
      visitExpr(s.cond, true);
      visit(s.whenTrue);
      if (s.whenFalse) visit(s.whenFalse);
    }
  };
  visit(body);
  return [...writesBefore].some((k) => writesAfter.has(k) && checked.has(k));
}

export type { StateVar };
