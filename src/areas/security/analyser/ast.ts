/**
 * The analyser's own syntax tree: Slang's concrete syntax tree lowered to what the analyses read (contracts,
 * functions, statements, expressions with their source offsets). Lowering once keeps the analyses in plain
 * JavaScript objects: walking Slang's tree through its WebAssembly boundary node by node would dominate the time.
 */

/** A half-open range of UTF-16 offsets into the file's text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type TypeName =
  | { readonly k: 'elementary'; readonly name: string }
  | { readonly k: 'user'; readonly path: string }
  | { readonly k: 'mapping'; readonly key: TypeName; readonly value: TypeName }
  | { readonly k: 'array'; readonly base: TypeName; readonly fixed: boolean }
  | { readonly k: 'function' };

export type Expr =
  | { readonly k: 'ident'; readonly name: string; readonly span: Span }
  | { readonly k: 'member'; readonly object: Expr; readonly member: string; readonly span: Span }
  | { readonly k: 'index'; readonly object: Expr; readonly index: Expr | null; readonly span: Span }
  | {
      readonly k: 'call';
      readonly callee: Expr;
      readonly args: readonly Expr[];
      /** Named arguments (`f({a: 1})`), in the order written. */
      readonly names?: readonly string[];
      /** Call options: `{value: v, gas: g}` or the older `.value(v)` / `.gas(g)` forms, normalised. */
      readonly options: Readonly<Record<string, Expr>>;
      readonly span: Span;
    }
  | { readonly k: 'new'; readonly type: TypeName; readonly span: Span }
  | { readonly k: 'binary'; readonly op: string; readonly left: Expr; readonly right: Expr; readonly span: Span }
  | { readonly k: 'unary'; readonly op: string; readonly operand: Expr; readonly span: Span }
  | { readonly k: 'assign'; readonly op: string; readonly left: Expr; readonly right: Expr; readonly span: Span }
  | {
      readonly k: 'conditional';
      readonly cond: Expr;
      readonly whenTrue: Expr;
      readonly whenFalse: Expr;
      readonly span: Span;
    }
  | { readonly k: 'tuple'; readonly items: readonly (Expr | null)[]; readonly span: Span }
  | {
      readonly k: 'literal';
      readonly kind: 'number' | 'string' | 'bool' | 'hex';
      readonly value: string;
      readonly span: Span;
    }
  | { readonly k: 'type'; readonly type: TypeName; readonly span: Span };

export interface VarDecl {
  readonly name: string;
  readonly type: TypeName | null;
  readonly span: Span;
}

/** What an inline assembly block does, as far as the analyses ask. */
export interface AssemblyFacts {
  /** The Yul built-ins called (`sstore`, `call`, `delegatecall`, `selfdestruct`, …). */
  readonly builtins: ReadonlySet<string>;
  /** Solidity identifiers the block reads or assigns (`x.slot`, locals). */
  readonly identifiers: ReadonlySet<string>;
}

export type Stmt =
  | { readonly k: 'block'; readonly body: readonly Stmt[]; readonly unchecked: boolean; readonly span: Span }
  | { readonly k: 'expr'; readonly expr: Expr; readonly span: Span }
  | { readonly k: 'var'; readonly vars: readonly (VarDecl | null)[]; readonly value: Expr | null; readonly span: Span }
  | {
      readonly k: 'if';
      readonly cond: Expr;
      readonly whenTrue: Stmt;
      readonly whenFalse: Stmt | null;
      readonly span: Span;
    }
  | {
      readonly k: 'loop';
      readonly kind: 'for' | 'while' | 'do';
      readonly init: Stmt | null;
      readonly cond: Expr | null;
      readonly step: Expr | null;
      readonly body: Stmt;
      readonly span: Span;
    }
  | { readonly k: 'return'; readonly value: Expr | null; readonly span: Span }
  | { readonly k: 'emit'; readonly event: string; readonly args: readonly Expr[]; readonly span: Span }
  | { readonly k: 'revert'; readonly args: readonly Expr[]; readonly span: Span }
  | {
      readonly k: 'try';
      readonly call: Expr;
      readonly returns: readonly VarDecl[];
      readonly body: Stmt;
      readonly catches: readonly Stmt[];
      readonly span: Span;
    }
  | { readonly k: 'assembly'; readonly facts: AssemblyFacts; readonly span: Span }
  | { readonly k: 'placeholder'; readonly span: Span }
  | { readonly k: 'jump'; readonly kind: 'break' | 'continue'; readonly span: Span };

export type Visibility = 'public' | 'external' | 'internal' | 'private';
export type Mutability = 'pure' | 'view' | 'payable' | 'nonpayable';

export interface ModifierCall {
  readonly name: string;
  readonly args: readonly Expr[];
  readonly span: Span;
}

export interface FunctionDef {
  readonly name: string;
  readonly kind: 'function' | 'constructor' | 'fallback' | 'receive' | 'modifier';
  readonly visibility: Visibility;
  readonly mutability: Mutability;
  readonly virtual: boolean;
  readonly modifiers: readonly ModifierCall[];
  readonly params: readonly VarDecl[];
  readonly returns: readonly VarDecl[];
  readonly body: Stmt | null;
  readonly span: Span;
  /** The span of the name (or keyword): where a finding about the whole function points. */
  readonly nameSpan: Span;
}

export interface StateVarDef {
  readonly name: string;
  readonly type: TypeName;
  readonly visibility: Visibility;
  readonly constant: boolean;
  readonly immutable: boolean;
  readonly value: Expr | null;
  readonly span: Span;
}

export interface UsingFor {
  /** The library, or undefined for `using {f, g} for T` with free functions. */
  readonly library?: string;
  readonly functions: readonly string[];
  /** The target type, or null for `*`. */
  readonly target: TypeName | null;
}

export interface ContractDef {
  readonly kind: 'contract' | 'interface' | 'library';
  readonly abstract: boolean;
  readonly name: string;
  readonly bases: readonly { readonly name: string; readonly args: readonly Expr[] }[];
  readonly usings: readonly UsingFor[];
  readonly stateVars: readonly StateVarDef[];
  readonly functions: readonly FunctionDef[];
  readonly modifiers: readonly FunctionDef[];
  readonly structs: readonly string[];
  readonly enums: readonly string[];
  /** Events and errors: before 0.4.21 an event was raised by calling it like a function. */
  readonly events: readonly string[];
  readonly span: Span;
  readonly nameSpan: Span;
}

export interface PragmaDef {
  /** The version expression as written (`^0.8.0`, `>=0.4.22 <0.9.0`). */
  readonly text: string;
  readonly span: Span;
}

export interface ImportDef {
  readonly path: string;
  readonly span: Span;
}

export interface SourceUnit {
  readonly file: string;
  readonly text: string;
  readonly pragmas: readonly PragmaDef[];
  readonly imports: readonly ImportDef[];
  readonly contracts: readonly ContractDef[];
  readonly freeFunctions: readonly FunctionDef[];
  readonly usings: readonly UsingFor[];
  /** Structs, enums, events, errors and value types declared at file level. */
  readonly typeNames: readonly string[];
  /** Offsets at which each line starts (line 1 at index 0). */
  readonly lineStarts: readonly number[];
  /** For each line (index 0 = line 1): whether a token other than comments and whitespace is on it. */
  readonly codeLines: readonly boolean[];
  /** The Solidity version the file was parsed as. */
  readonly parsedAs: string;
  readonly errors: readonly { readonly message: string; readonly span: Span }[];
}

/** Line (1-based) of an offset. */
export function lineOf(unit: Pick<SourceUnit, 'lineStarts'>, offset: number): number {
  const starts = unit.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
