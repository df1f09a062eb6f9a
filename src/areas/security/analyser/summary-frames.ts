/**
 * The frames of a function summary's walk (`summary.ts`): a function's or modifier's locals, storage aliases and
 * named slots, computed to a fixpoint before the walk, and where an expression's value may come from (its taint
 * sources), following internal calls through their summaries.
 */
import type { Expr, Stmt } from './ast.js';
import type { Context, Func, Scope } from './model.js';
import type { Summaries } from './summary.js';
import { ELEMENTARY, HASHES, isBuiltinFunction, LOW_LEVEL, SLOT_NAME } from './summary-names.js';
import { collectLocalAssignments, slotNames } from './summary-syntax.js';
import {
  CREATED,
  emptySummary,
  type Frame,
  NONE,
  type Sources,
  type Summary,
  substitute,
  union,
} from './summary-types.js';

/** The walk's frames and taint sources; the walk itself (statements, calls, interactions) extends it. */
export abstract class FrameWalker {
  protected readonly s: Summary;
  protected readonly frames: Frame[] = [];
  protected bodyFrame: Frame | undefined;
  protected readonly ctx: Context | undefined;

  constructor(
    protected readonly all: Summaries,
    protected readonly func: Func,
    ctx: Context | undefined,
  ) {
    this.s = emptySummary(func, false);
    this.ctx = ctx;
  }

  protected get frame(): Frame {
    return this.frames[this.frames.length - 1]!;
  }

  /** Whether the summarised function is externally callable. */
  protected get entry(): boolean {
    const d = this.func.def;
    return d.visibility === 'public' || d.visibility === 'external';
  }

  /** The function's own code, as opposed to its modifiers' and callees'. */
  protected get own(): boolean {
    return this.frame === this.bodyFrame;
  }

  protected newFrame(scope: Scope, func: Func, paramSources: Sources[] | undefined): Frame {
    const frame: Frame = { scope, func, paramSources, locals: new Map(), aliases: new Map(), slots: new Map() };
    func.def.params.forEach((p, i) => {
      if (p.name) frame.locals.set(p.name, paramSources ? (paramSources[i] ?? NONE) : new Set([`p${i}`]));
    });
    for (const r of func.def.returns) if (r.name) frame.locals.set(r.name, NONE);
    if (func.def.body) this.prepareLocals(frame, func.def.body);
    return frame;
  }

  /** Declares the frame's locals and computes their sources to a fixpoint (flow-insensitive). */
  protected prepareLocals(frame: Frame, body: Stmt): void {
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
  protected paramRef(e: Expr): string | undefined {
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
  protected stateKey(e: Expr): string | undefined {
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

  // ---- sources ----------------------------------------------------------------------------------------------

  /** Sources of the keys a condition looks records up by (`_shares[account]` mentions `account`). */
  protected keysUsed(e: Expr): Sources {
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

  protected callSources(e: Extract<Expr, { k: 'call' }>): Sources {
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
