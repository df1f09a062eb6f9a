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
import type { Expr, Span, Stmt } from './ast.js';
import { type Context, type Func, isAddressType, type Project, Scope, type StateVar } from './model.js';
import { FrameWalker } from './summary-frames.js';
import {
  ACCESS_MODIFIER_NAME,
  BUILTIN_MEMBERS,
  ELEMENTARY,
  GUARD_NAME,
  IMPLEMENTATION_SETTER,
  IMPLEMENTATION_SLOT,
  IMPLEMENTATION_VAR,
  isBuiltinFunction,
  LOW_LEVEL,
} from './summary-names.js';
import type { Contract } from './summary-syntax.js';
import {
  collectLengthBounds,
  comparisons,
  endsInReturn,
  endsInRevert,
  findFunction,
  funcIn,
  identsIn,
  identsRead,
  isBoolLiteral,
  isLockingModifier,
  isPowerOfTwo,
  isZero,
  lastName,
  mentionsImplementationSlot,
  slotNames,
} from './summary-syntax.js';
import type { InteractionKind } from './summary-types.js';
import {
  cloneFlow,
  emptySummary,
  type Flow,
  type Interaction,
  joinFlows,
  NONE,
  type Sources,
  type Summary,
  substitute,
  union,
} from './summary-types.js';

export { GUARD_NAME, TUNING } from './summary-names.js';
export type { Interaction, InteractionKind, LocalFacts, Sources, Summary, WriteAfterCall } from './summary-types.js';

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

class Walker extends FrameWalker {
  private loopDepth = 0;
  private uncheckedDepth = 0;
  private requireDepth = 0;
  /** The body's last statement when it is an `if`: its branch holds the rest of the function. */
  private tailIf: Stmt | undefined;
  /** Results of low-level calls and sends kept in a local: checked when the local is used. */
  private readonly results: { name: string; interaction: Interaction | undefined; send: boolean; at: Span }[] = [];
  private readonly conditionIdents = new Set<string>();

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
}

export type { StateVar };
