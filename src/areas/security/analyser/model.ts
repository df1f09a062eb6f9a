/**
 * The semantic model: every contract of the input with its C3 linearisation (as solc orders bases: the last one
 * listed is the most derived), name resolution for state variables, functions, modifiers, libraries and
 * `using … for`, and the types of expressions as far as the detectors need them (is this a contract, an address, a
 * mapping?).
 */
import type { ContractDef, Expr, FunctionDef, SourceUnit, StateVarDef, TypeName, UsingFor } from './ast.js';
import { ImportResolver } from './input.js';

export interface Contract {
  readonly def: ContractDef;
  readonly unit: SourceUnit;
  /** Unique within the project: `file:Name`. */
  readonly id: string;
}

export interface Func {
  readonly def: FunctionDef;
  readonly contract: Contract | undefined;
  readonly unit: SourceUnit;
  /** Unique within the project: `file:Contract.name(arity)@offset`. */
  readonly id: string;
}

export interface StateVar {
  readonly def: StateVarDef;
  readonly contract: Contract;
  /** `Contract.name`: the key the analyses use. */
  readonly key: string;
}

/** The type of an expression as far as the analyses care. */
export type ValueType =
  | TypeName
  | { readonly k: 'contract'; readonly contract: Contract }
  | { readonly k: 'typeref'; readonly contract: Contract }
  | { readonly k: 'builtin'; readonly name: string };

export class Project {
  readonly units: readonly SourceUnit[];
  private readonly byName = new Map<string, Contract[]>();
  private readonly reachable = new Map<string, Set<string>>();
  readonly contracts: readonly Contract[];
  readonly unresolvedImports: { file: string; path: string }[] = [];
  private readonly linearisations = new Map<string, Contract[]>();
  private readonly contexts = new Map<string, Context>();

  constructor(units: readonly SourceUnit[], remappings: readonly string[] = []) {
    this.units = units;
    const resolver = new ImportResolver(new Set(units.map((u) => u.file)), remappings);
    const direct = new Map<string, string[]>();
    for (const u of units) {
      const targets: string[] = [];
      for (const imp of u.imports) {
        const target = resolver.resolve(u.file, imp.path);
        if (target) targets.push(target);
        else this.unresolvedImports.push({ file: u.file, path: imp.path });
      }
      direct.set(u.file, targets);
    }
    for (const u of units) {
      const seen = new Set<string>([u.file]);
      const queue = [u.file];
      while (queue.length) {
        for (const t of direct.get(queue.pop()!) ?? []) {
          if (!seen.has(t)) {
            seen.add(t);
            queue.push(t);
          }
        }
      }
      this.reachable.set(u.file, seen);
    }
    const all: Contract[] = [];
    for (const unit of units) {
      for (const def of unit.contracts) {
        const c: Contract = { def, unit, id: `${unit.file}:${def.name}` };
        all.push(c);
        const list = this.byName.get(def.name);
        if (list) list.push(c);
        else this.byName.set(def.name, [c]);
      }
    }
    this.contracts = all;
  }

  /** The contract a name means in a file: one the file sees through its imports first, else the only one. */
  contract(name: string, fromFile: string): Contract | undefined {
    const simple = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
    const list = this.byName.get(simple);
    if (!list) return undefined;
    if (list.length === 1) return list[0];
    const seen = this.reachable.get(fromFile);
    return list.find((c) => c.unit.file === fromFile) ?? list.find((c) => seen?.has(c.unit.file)) ?? list[0];
  }

  /** C3 linearisation, most derived first. Falls back to a depth-first order when the bases are inconsistent. */
  linearisation(c: Contract): Contract[] {
    const cached = this.linearisations.get(c.id);
    if (cached) return cached;
    this.linearisations.set(c.id, [c]); // cuts cycles
    const bases = c.def.bases
      .map((b) => this.contract(b.name, c.unit.file))
      .filter((b): b is Contract => b !== undefined && b !== c);
    const sequences = [...bases.reverse().map((b) => [...this.linearisation(b)]), [...bases]];
    const result: Contract[] = [c];
    for (;;) {
      const nonEmpty = sequences.filter((s) => s.length);
      if (!nonEmpty.length) break;
      const head = nonEmpty.map((s) => s[0]!).find((h) => !nonEmpty.some((s) => s.indexOf(h) > 0));
      if (!head) {
        for (const s of nonEmpty) for (const x of s) if (!result.includes(x)) result.push(x);
        break;
      }
      result.push(head);
      for (const s of nonEmpty) if (s[0] === head) s.shift();
    }
    this.linearisations.set(c.id, result);
    return result;
  }

  context(c: Contract): Context {
    let ctx = this.contexts.get(c.id);
    if (!ctx) {
      ctx = new Context(this, c);
      this.contexts.set(c.id, ctx);
    }
    return ctx;
  }

  /** Free functions visible from a file (its own and those of the files it imports). */
  freeFunction(name: string, arity: number, fromFile: string): Func | undefined {
    const seen = this.reachable.get(fromFile);
    for (const u of this.units) {
      if (u.file !== fromFile && !seen?.has(u.file)) continue;
      const def = u.freeFunctions.find((f) => f.name === name && f.params.length === arity);
      if (def) return funcOf(def, undefined, u);
    }
    return undefined;
  }
}

const funcCache = new WeakMap<FunctionDef, Func>();

export function funcOf(def: FunctionDef, contract: Contract | undefined, unit: SourceUnit): Func {
  let f = funcCache.get(def);
  if (!f) {
    f = {
      def,
      contract,
      unit,
      id: `${unit.file}:${contract ? `${contract.def.name}.` : ''}${def.name}(${def.params.length})@${def.span.start}`,
    };
    funcCache.set(def, f);
  }
  return f;
}

const ADDRESS: TypeName = { k: 'elementary', name: 'address' };
const UINT: TypeName = { k: 'elementary', name: 'uint256' };
const BOOL: TypeName = { k: 'elementary', name: 'bool' };

/** Globals and their members' types. */
const GLOBAL_MEMBERS: Record<string, Record<string, TypeName>> = {
  msg: {
    sender: ADDRESS,
    value: UINT,
    data: { k: 'elementary', name: 'bytes' },
    sig: { k: 'elementary', name: 'bytes4' },
  },
  tx: { origin: ADDRESS, gasprice: UINT },
  block: {
    timestamp: UINT,
    number: UINT,
    difficulty: UINT,
    prevrandao: UINT,
    coinbase: ADDRESS,
    gaslimit: UINT,
    chainid: UINT,
    basefee: UINT,
  },
};

export const isAddressType = (t: ValueType | undefined): boolean =>
  !!t && t.k === 'elementary' && (t.name === 'address' || t.name === 'address payable');

/** A contract seen from one most-derived contract: what its names mean. */
export class Context {
  readonly linearisation: readonly Contract[];
  private readonly stateVars = new Map<string, StateVar>();
  private readonly functionsByName = new Map<string, Func[]>();
  private readonly modifiersByName = new Map<string, Func>();
  readonly usings: readonly { using: UsingFor; from: Contract | undefined; file: string }[];

  constructor(
    readonly project: Project,
    readonly contract: Contract,
  ) {
    this.linearisation = project.linearisation(contract);
    for (const c of this.linearisation) {
      for (const v of c.def.stateVars) {
        if (!this.stateVars.has(v.name))
          this.stateVars.set(v.name, { def: v, contract: c, key: `${c.def.name}.${v.name}` });
      }
      for (const f of c.def.functions) {
        const list = this.functionsByName.get(f.name);
        const func = funcOf(f, c, c.unit);
        if (list) list.push(func);
        else this.functionsByName.set(f.name, [func]);
      }
      for (const m of c.def.modifiers) {
        // The most derived implemented definition wins (a virtual modifier without body is overridden).
        const existing = this.modifiersByName.get(m.name);
        if (!existing || (!existing.def.body && m.body)) this.modifiersByName.set(m.name, funcOf(m, c, c.unit));
      }
    }
    this.usings = [
      ...this.linearisation.flatMap((c) => c.def.usings.map((u) => ({ using: u, from: c, file: c.unit.file }))),
      ...contract.unit.usings.map((u) => ({ using: u, from: undefined, file: contract.unit.file })),
    ];
  }

  stateVar(name: string): StateVar | undefined {
    return this.stateVars.get(name);
  }

  allStateVars(): StateVar[] {
    return [...this.stateVars.values()];
  }

  modifier(name: string): Func | undefined {
    return this.modifiersByName.get(name);
  }

  /**
   * The function a call by name reaches: the most derived definition with that arity (overloads by arity only),
   * implemented ones first; `after` starts the search after a contract (for `super`).
   */
  function(name: string, arity: number, after?: Contract): Func | undefined {
    const list = this.functionsByName.get(name);
    if (!list) return undefined;
    const order = this.linearisation;
    const start = after ? order.indexOf(after) + 1 : 0;
    const eligible = list.filter((f) => f.def.params.length === arity && order.indexOf(f.contract!) >= start);
    eligible.sort((a, b) => order.indexOf(a.contract!) - order.indexOf(b.contract!));
    return eligible.find((f) => f.def.body) ?? eligible[0];
  }

  /** Every function the contract has, each signature once (the most derived definition). */
  functions(): Func[] {
    const out: Func[] = [];
    const seen = new Set<string>();
    for (const c of this.linearisation) {
      for (const f of c.def.functions) {
        const sig =
          f.kind === 'function'
            ? `${f.name}(${f.params.map((p) => typeKey(p.type)).join(',')})`
            : f.kind === 'constructor'
              ? `constructor@${c.id}`
              : f.kind;
        if (seen.has(sig)) continue;
        seen.add(sig);
        out.push(funcOf(f, c, c.unit));
      }
    }
    return out;
  }

  /** A library function `lib.name` or a `using … for` attached function called on a value of type `t`. */
  libraryFunction(library: Contract, name: string, arity: number): Func | undefined {
    const defs = library.def.functions.filter((f) => f.name === name);
    const def = defs.find((f) => f.params.length === arity) ?? defs[0];
    return def ? funcOf(def, library, library.unit) : undefined;
  }

  /** The function `value.name(…)` reaches through `using … for`, with the value as first argument. */
  attached(name: string, arity: number, t: ValueType | undefined, fromFile: string): Func | undefined {
    for (const { using, file } of this.usings) {
      if (using.target && t && !sameType(using.target, t, this.project, fromFile)) continue;
      if (using.library) {
        const lib = this.project.contract(using.library, file);
        if (!lib) continue;
        const f = this.libraryFunction(lib, name, arity + 1);
        if (f && f.def.params.length === arity + 1) return f;
      } else if (using.functions.includes(name)) {
        const f = this.project.freeFunction(name, arity + 1, file);
        if (f) return f;
      }
    }
    return undefined;
  }
}

export function typeKey(t: TypeName | null): string {
  if (!t) return '?';
  switch (t.k) {
    case 'elementary':
      return t.name === 'address payable' ? 'address' : t.name;
    case 'user':
      return t.path;
    case 'mapping':
      return `mapping(${typeKey(t.key)}=>${typeKey(t.value)})`;
    case 'array':
      return `${typeKey(t.base)}[]`;
    default:
      return 'function';
  }
}

function sameType(target: TypeName, t: ValueType, project: Project, fromFile: string): boolean {
  if (t.k === 'contract') {
    return target.k === 'user' && project.contract(target.path, fromFile) === t.contract;
  }
  if (t.k === 'typeref' || t.k === 'builtin') return false;
  if (target.k === 'elementary' && t.k === 'elementary') {
    const norm = (n: string) => (n === 'address payable' ? 'address' : n);
    return norm(target.name) === norm(t.name);
  }
  return typeKey(target) === typeKey(t as TypeName);
}

/** Names in a function's scope: parameters, returns and locals (flow-insensitively), then the contract's. */
export class Scope {
  readonly locals = new Map<string, TypeName | null>();
  readonly params: readonly string[];

  constructor(
    readonly ctx: Context | undefined,
    readonly func: Func,
    readonly project: Project,
  ) {
    this.params = func.def.params.map((p) => p.name);
    for (const p of func.def.params) if (p.name) this.locals.set(p.name, p.type);
    for (const r of func.def.returns) if (r.name) this.locals.set(r.name, r.type);
  }

  get file(): string {
    return this.func.unit.file;
  }

  declare(name: string, type: TypeName | null): void {
    this.locals.set(name, type);
  }

  isLocal(name: string): boolean {
    return this.locals.has(name);
  }

  stateVar(name: string): StateVar | undefined {
    if (this.locals.has(name)) return undefined;
    return this.ctx?.stateVar(name) ?? (this.func.contract ? libraryStateVar(this.func.contract, name) : undefined);
  }

  /** The state variable an lvalue or read (`x`, `x[k]`, `x.f`, `x[k].f[j]`) is rooted in, if any. */
  rootStateVar(e: Expr): StateVar | undefined {
    let cur = e;
    while (cur.k === 'index' || cur.k === 'member') {
      if (cur.k === 'member' && cur.object.k === 'ident' && cur.object.name === 'this') return undefined;
      cur = cur.object;
    }
    return cur.k === 'ident' ? this.stateVar(cur.name) : undefined;
  }

  resolveType(t: TypeName | null | undefined): ValueType | undefined {
    if (!t) return undefined;
    if (t.k === 'user') {
      const c = this.project.contract(t.path, this.file);
      if (c) return { k: 'contract', contract: c };
    }
    return t;
  }

  typeOf(e: Expr): ValueType | undefined {
    switch (e.k) {
      case 'ident': {
        if (this.locals.has(e.name)) return this.resolveType(this.locals.get(e.name));
        const sv = this.stateVar(e.name);
        if (sv) return this.resolveType(sv.def.type);
        if (e.name === 'this' && this.ctx) return { k: 'contract', contract: this.ctx.contract };
        if (e.name === 'now') return UINT;
        if (e.name in GLOBAL_MEMBERS || e.name === 'abi' || e.name === 'super') return { k: 'builtin', name: e.name };
        const c = this.project.contract(e.name, this.file);
        if (c) return { k: 'typeref', contract: c };
        return undefined;
      }
      case 'member': {
        if (e.object.k === 'ident' && GLOBAL_MEMBERS[e.object.name] && !this.locals.has(e.object.name)) {
          return GLOBAL_MEMBERS[e.object.name]![e.member];
        }
        if (e.member === 'balance' || e.member === 'length') return UINT;
        const t = this.typeOf(e.object);
        if (t?.k === 'contract') {
          const sv = t.contract.def.stateVars.find((v) => v.name === e.member);
          if (sv) return this.resolveType(sv.type);
        }
        return undefined;
      }
      case 'index': {
        const t = this.typeOf(e.object);
        if (t?.k === 'mapping') return this.resolveType(t.value);
        if (t?.k === 'array') return this.resolveType(t.base);
        return undefined;
      }
      case 'call':
        return this.callResultType(e);
      case 'new':
        return this.resolveType(e.type);
      case 'binary':
        return ['==', '!=', '<', '>', '<=', '>=', '&&', '||'].includes(e.op) ? BOOL : this.typeOf(e.left);
      case 'unary':
        return e.op === '!' ? BOOL : this.typeOf(e.operand);
      case 'conditional':
        return this.typeOf(e.whenTrue);
      case 'literal':
        return e.kind === 'bool' ? BOOL : e.kind === 'number' ? UINT : { k: 'elementary', name: 'string' };
      case 'tuple':
        return e.items.length === 1 && e.items[0] ? this.typeOf(e.items[0]) : undefined;
      default:
        return undefined;
    }
  }

  private callResultType(e: Extract<Expr, { k: 'call' }>): ValueType | undefined {
    const callee = e.callee;
    if (callee.k === 'ident') {
      if (callee.name === 'address' || callee.name === 'address payable' || callee.name === 'payable') {
        return { k: 'elementary', name: callee.name === 'address' ? 'address' : 'address payable' };
      }
      if (!this.locals.has(callee.name) && !this.ctx?.stateVar(callee.name)) {
        const c = this.project.contract(callee.name, this.file);
        if (c) return { k: 'contract', contract: c };
        const f = this.ctx?.function(callee.name, e.args.length);
        if (f) return this.resolveType(f.def.returns[0]?.type);
      }
      if (/^u?int\d*$|^bytes\d+$|^bool$/.test(callee.name)) return { k: 'elementary', name: callee.name };
      return undefined;
    }
    if (callee.k === 'member') {
      const t = this.typeOf(callee.object);
      if (t?.k === 'contract') {
        const f = t.contract.def.functions.find(
          (fn) => fn.name === callee.member && fn.params.length === e.args.length,
        );
        if (f) return this.resolveType(f.returns[0]?.type);
        const project = this.project;
        for (const base of project.linearisation(t.contract)) {
          const g = base.def.functions.find((fn) => fn.name === callee.member && fn.params.length === e.args.length);
          if (g) return this.resolveType(g.returns[0]?.type);
        }
      }
      if (t?.k === 'typeref' && t.contract.def.kind === 'library') {
        const f = t.contract.def.functions.find((fn) => fn.name === callee.member);
        if (f) return this.resolveType(f.returns[0]?.type);
      }
    }
    return undefined;
  }
}

/** State variables (constants) of a library, visible to its own functions. */
function libraryStateVar(contract: Contract, name: string): StateVar | undefined {
  const def = contract.def.stateVars.find((v) => v.name === name);
  return def ? { def, contract, key: `${contract.def.name}.${name}` } : undefined;
}
