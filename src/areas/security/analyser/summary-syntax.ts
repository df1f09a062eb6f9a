/** Questions the function summaries ask of the syntax tree alone (pure): what a statement, expression or modifier is. */
import type { AssemblyFacts, Expr, Stmt } from './ast.js';
import { type Context, type Func, funcOf, type Project, Scope } from './model.js';
import { IMPLEMENTATION_SLOT, SLOT_NAME } from './summary-names.js';
import type { Frame } from './summary-types.js';

/** Storage slots an assembly block names by constant (`_IMPLEMENTATION_SLOT`, `ADMIN_SLOT`). */
export function slotNames(facts: AssemblyFacts, frame: Frame): string[] {
  const out = new Set<string>();
  for (const i of facts.identifiers) {
    if (i.includes('.')) continue;
    if (SLOT_NAME.test(i)) out.add(i);
    else if (frame.slots.has(i)) out.add(frame.slots.get(i)!);
  }
  return [...out];
}

/** The statement always ends in a revert (`revert`, `throw`, `require(false)`). */
export function endsInRevert(s: Stmt): boolean {
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

export function endsInReturn(s: Stmt | null): boolean {
  if (!s) return false;
  if (s.k === 'return') return true;
  if (s.k === 'block') return s.body.length > 0 && endsInReturn(s.body[s.body.length - 1]!);
  return false;
}

/** Comparison sub-expressions of a condition. */
export function comparisons(e: Expr): Extract<Expr, { k: 'binary' }>[] {
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
export function identsIn(e: Expr): string[] {
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
export function identsRead(body: Stmt): Set<string> {
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

export function lastName(e: Expr): string {
  if (e.k === 'ident') return e.name;
  if (e.k === 'member') return e.member;
  if (e.k === 'index') return lastName(e.object);
  return '';
}

export function mentionsImplementationSlot(e: Expr): boolean {
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

export const isBoolLiteral = (e: Expr) => e.k === 'literal' && e.kind === 'bool';
export const isPowerOfTwo = (e: Expr): boolean => {
  if (e.k === 'binary' && e.op === '**') return e.left.k === 'literal' && e.left.value === '2';
  if (e.k !== 'literal' || e.kind !== 'number') return false;
  try {
    const n = BigInt(e.value.replace(/_/g, ''));
    return n > 1n && (n & (n - 1n)) === 0n;
  } catch {
    return false;
  }
};
export const isZero = (e: Expr) => e.k === 'literal' && e.kind === 'number' && /^0+$/.test(e.value);

export function funcIn(c: Contract, name: string, arity: number): Func | undefined {
  const def = c.def.functions.find((f) => f.name === name && f.params.length === arity);
  return def ? funcOf(def, c, c.unit) : undefined;
}

export type Contract = NonNullable<Func['contract']>;

export function findFunction(project: Project, c: Contract, name: string, arity: number) {
  for (const base of project.linearisation(c)) {
    const f = base.def.functions.find((fn) => fn.name === name && fn.params.length === arity);
    if (f) return f;
  }
  return undefined;
}

export function collectLocalAssignments(e: Expr, out: { name: string; value: Expr; index?: number }[]): void {
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
export function collectLengthBounds(cond: Expr, found: (array: Expr) => void): void {
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
export function isLockingModifier(m: Func, ctx: Context | undefined, project: Project): boolean {
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
