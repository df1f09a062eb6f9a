/**
 * Parsing: Slang's parser for the file's Solidity version, its concrete syntax tree taken across the WebAssembly
 * boundary once (as JSON), and lowered here to the analyser's own tree (`ast.ts`) with source offsets.
 */
import { Parser } from '@nomicfoundation/slang/parser';
import type {
  AssemblyFacts,
  ContractDef,
  Expr,
  FunctionDef,
  ImportDef,
  ModifierCall,
  Mutability,
  PragmaDef,
  SourceUnit,
  Span,
  StateVarDef,
  Stmt,
  TypeName,
  UsingFor,
  VarDecl,
  Visibility,
} from './ast.js';

/** A node of Slang's tree with offsets, trivia dropped. */
interface Node {
  readonly kind: string;
  readonly label: string;
  readonly start: number;
  readonly end: number;
  readonly children: Node[];
  readonly text?: string;
}

interface JsonNode {
  readonly kind: string;
  readonly text?: string;
  readonly children?: readonly { readonly label: string; readonly node: JsonNode }[];
}

const TRIVIA = new Set([
  'Whitespace',
  'EndOfLine',
  'SingleLineComment',
  'MultiLineComment',
  'SingleLineNatSpecComment',
  'MultiLineNatSpecComment',
]);

const parsers = new Map<string, Parser>();

function parserFor(version: string): Parser {
  let parser = parsers.get(version);
  if (!parser) {
    parser = Parser.create(version);
    parsers.set(version, parser);
  }
  return parser;
}

/** Offsets of line starts: LF, CRLF and lone CR end a line, as Solidity's scanner counts them. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** Slang's JSON tree → offset nodes; `tokens` receives the span of every non-trivia terminal, in order. */
function convert(root: JsonNode, tokens: number[]): Node {
  let offset = 0;
  const visit = (json: JsonNode, label: string): Node | undefined => {
    if (json.text !== undefined) {
      const start = offset;
      offset += json.text.length;
      if (TRIVIA.has(json.kind)) return undefined;
      tokens.push(start, offset);
      return { kind: json.kind, label, start, end: offset, children: [], text: json.text };
    }
    const before = offset;
    const children: Node[] = [];
    for (const edge of json.children ?? []) {
      const child = visit(edge.node, edge.label);
      if (child) children.push(child);
    }
    // A node's span is that of its tokens: the comments and whitespace Slang attaches to it are not part of it.
    const start = children.length ? children[0]!.start : before;
    const end = children.length ? children[children.length - 1]!.end : before;
    return { kind: json.kind, label, start, end, children };
  };
  return visit(root, 'Root')!;
}

const child = (n: Node | undefined, label: string): Node | undefined => n?.children.find((c) => c.label === label);
const items = (n: Node | undefined): Node[] => (n ? n.children.filter((c) => c.label === 'Item') : []);
const span = (n: Node): Span => ({ start: n.start, end: n.end });

/** Follows `Variant` edges down to the node that says what the construct is. */
function unwrap(n: Node): Node {
  let cur = n;
  for (;;) {
    if (cur.kind === 'StringExpression') return cur;
    const v = cur.children.length === 1 && cur.children[0]!.label === 'Variant' ? cur.children[0]! : undefined;
    if (!v) return cur;
    cur = v;
  }
}

function textOf(n: Node | undefined): string {
  if (!n) return '';
  if (n.text !== undefined) return n.text;
  return n.children.map(textOf).join('');
}

/** `a.b.c` of an IdentifierPath. */
function pathText(n: Node | undefined): string {
  return items(n)
    .map((i) => i.text ?? textOf(i))
    .join('.');
}

const ELEMENTARY_ALIASES: Record<string, string> = {
  uint: 'uint256',
  int: 'int256',
  ufixed: 'ufixed128x18',
  fixed: 'fixed128x18',
  byte: 'bytes1',
};

function elementaryName(n: Node): string {
  const v = unwrap(n);
  if (v.kind === 'AddressType') return child(v, 'PayableKeyword') ? 'address payable' : 'address';
  const text = v.text ?? textOf(v);
  return ELEMENTARY_ALIASES[text] ?? text;
}

function lowerType(n: Node | undefined): TypeName {
  if (!n) return { k: 'elementary', name: 'unknown' };
  const v = unwrap(n);
  switch (v.kind) {
    case 'ElementaryType':
    case 'AddressType':
      return { k: 'elementary', name: elementaryName(v) };
    case 'IdentifierPath':
      return { k: 'user', path: pathText(v) };
    case 'ArrayTypeName':
      return { k: 'array', base: lowerType(child(v, 'Operand')), fixed: !!child(v, 'Index') };
    case 'MappingType': {
      const key = unwrap(child(child(v, 'KeyType'), 'KeyType') ?? child(v, 'KeyType')!);
      const value = child(child(v, 'ValueType'), 'TypeName');
      return {
        k: 'mapping',
        key:
          key.kind === 'IdentifierPath'
            ? { k: 'user', path: pathText(key) }
            : { k: 'elementary', name: elementaryName(key) },
        value: lowerType(value),
      };
    }
    case 'FunctionType':
      return { k: 'function' };
    default:
      if (v.text !== undefined) return { k: 'elementary', name: ELEMENTARY_ALIASES[v.text] ?? v.text };
      return { k: 'elementary', name: textOf(v) };
  }
}

interface Args {
  readonly args: Expr[];
  readonly names?: string[];
}

function lowerArgs(n: Node | undefined): Args {
  if (!n) return { args: [] };
  const v = unwrap(n);
  if (v.kind === 'NamedArgumentsDeclaration') {
    const named = items(child(child(v, 'Arguments'), 'Arguments'));
    return {
      args: named.map((a) => lowerExpr(child(a, 'Value')!)),
      names: named.map((a) => textOf(child(a, 'Name'))),
    };
  }
  return { args: items(child(v, 'Arguments')).map(lowerExpr) };
}

function options(n: Node | undefined): Record<string, Expr> {
  const out: Record<string, Expr> = {};
  for (const a of items(n)) out[textOf(child(a, 'Name'))] = lowerExpr(child(a, 'Value')!);
  return out;
}

const BINARY = new Set([
  'OrExpression',
  'AndExpression',
  'EqualityExpression',
  'InequalityExpression',
  'BitwiseOrExpression',
  'BitwiseXorExpression',
  'BitwiseAndExpression',
  'ShiftExpression',
  'AdditiveExpression',
  'MultiplicativeExpression',
  'ExponentiationExpression',
]);

function lowerExpr(n: Node): Expr {
  const v = unwrap(n);
  const s = span(v);
  if (v.text !== undefined) {
    switch (v.kind) {
      case 'TrueKeyword':
      case 'FalseKeyword':
        return { k: 'literal', kind: 'bool', value: v.text, span: s };
      default:
        return { k: 'ident', name: ELEMENTARY_ALIASES[v.text] ?? v.text, span: s };
    }
  }
  if (BINARY.has(v.kind)) {
    return {
      k: 'binary',
      op: textOf(child(v, 'Operator')),
      left: lowerExpr(child(v, 'LeftOperand')!),
      right: lowerExpr(child(v, 'RightOperand')!),
      span: s,
    };
  }
  switch (v.kind) {
    case 'AssignmentExpression':
      return {
        k: 'assign',
        op: textOf(child(v, 'Operator')),
        left: lowerExpr(child(v, 'LeftOperand')!),
        right: lowerExpr(child(v, 'RightOperand')!),
        span: s,
      };
    case 'ConditionalExpression':
      return {
        k: 'conditional',
        cond: lowerExpr(child(v, 'Operand')!),
        whenTrue: lowerExpr(child(v, 'TrueExpression')!),
        whenFalse: lowerExpr(child(v, 'FalseExpression')!),
        span: s,
      };
    case 'PostfixExpression':
    case 'PrefixExpression': {
      const op = textOf(child(v, 'Operator'));
      return {
        k: 'unary',
        op: v.kind === 'PostfixExpression' ? `${op}post` : op,
        operand: lowerExpr(child(v, 'Operand')!),
        span: s,
      };
    }
    case 'MemberAccessExpression':
      return { k: 'member', object: lowerExpr(child(v, 'Operand')!), member: textOf(child(v, 'Member')), span: s };
    case 'IndexAccessExpression': {
      const start = child(v, 'Start');
      return { k: 'index', object: lowerExpr(child(v, 'Operand')!), index: start ? lowerExpr(start) : null, span: s };
    }
    case 'FunctionCallExpression': {
      const operand = unwrap(child(v, 'Operand')!);
      const { args, names } = lowerArgs(child(v, 'Arguments'));
      let callee: Expr;
      let opts: Record<string, Expr> = {};
      if (operand.kind === 'CallOptionsExpression') {
        callee = lowerExpr(child(operand, 'Operand')!);
        opts = options(child(operand, 'Options'));
      } else {
        callee = lowerExpr(operand);
      }
      // Before 0.7 `f.value(v)(args)` / `f.gas(g)(args)`: fold the option into the call it configures.
      while (
        callee.k === 'call' &&
        callee.callee.k === 'member' &&
        (callee.callee.member === 'value' || callee.callee.member === 'gas') &&
        callee.args.length === 1
      ) {
        opts = { [callee.callee.member]: callee.args[0]!, ...callee.options, ...opts };
        callee = callee.callee.object;
      }
      return { k: 'call', callee, args, ...(names ? { names } : {}), options: opts, span: s };
    }
    case 'NewExpression':
      return { k: 'new', type: lowerType(child(v, 'TypeName')), span: s };
    case 'TupleExpression':
      return {
        k: 'tuple',
        items: items(child(v, 'Items')).map((i) => {
          const e = child(i, 'Expression');
          return e ? lowerExpr(e) : null;
        }),
        span: s,
      };
    case 'ArrayExpression':
      return { k: 'tuple', items: items(child(v, 'Items')).map(lowerExpr), span: s };
    case 'TypeExpression':
      return { k: 'type', type: lowerType(child(v, 'TypeName')), span: s };
    case 'HexNumberExpression':
    case 'DecimalNumberExpression':
      return { k: 'literal', kind: 'number', value: textOf(v), span: s };
    case 'StringExpression': {
      const text = textOf(v);
      return { k: 'literal', kind: text.startsWith('hex') ? 'hex' : 'string', value: text, span: s };
    }
    case 'ElementaryType':
    case 'AddressType':
      return { k: 'ident', name: elementaryName(v), span: s };
    default:
      return { k: 'ident', name: textOf(v), span: s };
  }
}

function lowerVarDecls(params: Node | undefined): VarDecl[] {
  return items(child(params, 'Parameters')).map((p) => ({
    name: textOf(child(p, 'Name')),
    type: lowerType(child(p, 'TypeName')),
    span: span(p),
  }));
}

function assemblyFacts(block: Node): AssemblyFacts {
  const builtins = new Set<string>();
  const identifiers = new Set<string>();
  const walk = (n: Node) => {
    if (n.kind === 'YulFunctionCallExpression') {
      const op = unwrap(child(n, 'Operand')!);
      const name = op.kind === 'YulPath' ? pathText(op) : textOf(op);
      builtins.add(name);
    } else if (n.kind === 'YulPath') {
      identifiers.add(pathText(n));
    }
    for (const c of n.children) walk(c);
  };
  walk(block);
  return { builtins, identifiers };
}

function lowerStmt(n: Node): Stmt {
  const v = unwrap(n);
  const s = span(v);
  switch (v.kind) {
    case 'Block':
      return { k: 'block', body: items(child(v, 'Statements')).map(lowerStmt), unchecked: false, span: s };
    case 'UncheckedBlock': {
      const block = child(v, 'Block')!;
      return { k: 'block', body: items(child(block, 'Statements')).map(lowerStmt), unchecked: true, span: s };
    }
    case 'ExpressionStatement': {
      const expr = lowerExpr(child(v, 'Expression')!);
      if (expr.k === 'ident' && expr.name === '_') return { k: 'placeholder', span: s };
      return { k: 'expr', expr, span: s };
    }
    case 'VariableDeclarationStatement': {
      const typeNode = unwrap(child(v, 'VariableType')!);
      const type = typeNode.kind === 'VarKeyword' ? null : lowerType(typeNode);
      const value = child(child(v, 'Value'), 'Expression');
      const name = child(v, 'Name')!;
      return {
        k: 'var',
        vars: [{ name: textOf(name), type, span: span(name) }],
        value: value ? lowerExpr(value) : null,
        span: s,
      };
    }
    case 'TupleDeconstructionStatement': {
      const elements = items(child(v, 'Elements'));
      const value = lowerExpr(child(v, 'Expression')!);
      const members = elements.map((e) => {
        const m = child(e, 'Member');
        return m ? unwrap(m) : undefined;
      });
      const declares = !!child(v, 'VarKeyword') || members.some((m) => m?.kind === 'TypedTupleMember');
      if (declares) {
        return {
          k: 'var',
          vars: members.map((m) =>
            m
              ? {
                  name: textOf(child(m, 'Name')),
                  type: m.kind === 'TypedTupleMember' ? lowerType(child(m, 'TypeName')) : null,
                  span: span(m),
                }
              : null,
          ),
          value,
          span: s,
        };
      }
      const left: Expr = {
        k: 'tuple',
        items: members.map((m) => (m ? { k: 'ident', name: textOf(child(m, 'Name')), span: span(m) } : null)),
        span: s,
      };
      return { k: 'expr', expr: { k: 'assign', op: '=', left, right: value, span: s }, span: s };
    }
    case 'IfStatement': {
      const elseBody = child(child(v, 'ElseBranch'), 'Body');
      return {
        k: 'if',
        cond: lowerExpr(child(v, 'Condition')!),
        whenTrue: lowerStmt(child(v, 'Body')!),
        whenFalse: elseBody ? lowerStmt(elseBody) : null,
        span: s,
      };
    }
    case 'ForStatement': {
      const init = unwrap(child(v, 'Initialization')!);
      const cond = unwrap(child(v, 'Condition')!);
      const step = child(v, 'Iterator');
      return {
        k: 'loop',
        kind: 'for',
        init: init.kind === 'Semicolon' ? null : lowerStmt(init),
        cond: cond.kind === 'ExpressionStatement' ? lowerExpr(child(cond, 'Expression')!) : null,
        step: step ? lowerExpr(step) : null,
        body: lowerStmt(child(v, 'Body')!),
        span: s,
      };
    }
    case 'WhileStatement':
    case 'DoWhileStatement':
      return {
        k: 'loop',
        kind: v.kind === 'WhileStatement' ? 'while' : 'do',
        init: null,
        cond: lowerExpr(child(v, 'Condition')!),
        step: null,
        body: lowerStmt(child(v, 'Body')!),
        span: s,
      };
    case 'ContinueStatement':
      return { k: 'jump', kind: 'continue', span: s };
    case 'BreakStatement':
      return { k: 'jump', kind: 'break', span: s };
    case 'ReturnStatement': {
      const e = child(v, 'Expression');
      return { k: 'return', value: e ? lowerExpr(e) : null, span: s };
    }
    case 'ThrowStatement':
      return { k: 'revert', args: [], span: s };
    case 'RevertStatement':
      return { k: 'revert', args: lowerArgs(child(v, 'Arguments')).args, span: s };
    case 'EmitStatement':
      return { k: 'emit', event: pathText(child(v, 'Event')), args: lowerArgs(child(v, 'Arguments')).args, span: s };
    case 'TryStatement': {
      const returns = child(v, 'Returns');
      return {
        k: 'try',
        call: lowerExpr(child(v, 'Expression')!),
        returns: returns ? lowerVarDecls(child(returns, 'Variables')) : [],
        body: lowerStmt(child(v, 'Body')!),
        catches: items(child(v, 'CatchClauses')).map((c) => lowerStmt(child(c, 'Body')!)),
        span: s,
      };
    }
    case 'AssemblyStatement':
      return { k: 'assembly', facts: assemblyFacts(child(v, 'Body') ?? v), span: s };
    default:
      return { k: 'block', body: [], unchecked: false, span: s };
  }
}

const VISIBILITY: Record<string, Visibility> = {
  PublicKeyword: 'public',
  ExternalKeyword: 'external',
  InternalKeyword: 'internal',
  PrivateKeyword: 'private',
};
const MUTABILITY: Record<string, Mutability> = {
  PureKeyword: 'pure',
  ViewKeyword: 'view',
  ConstantKeyword: 'view',
  PayableKeyword: 'payable',
};

function lowerFunction(v: Node, contractName: string | undefined): FunctionDef {
  let kind: FunctionDef['kind'];
  let name: string;
  let nameNode: Node = v;
  switch (v.kind) {
    case 'ConstructorDefinition':
      kind = 'constructor';
      name = 'constructor';
      nameNode = child(v, 'ConstructorKeyword') ?? v;
      break;
    case 'ReceiveFunctionDefinition':
      kind = 'receive';
      name = 'receive';
      nameNode = child(v, 'ReceiveKeyword') ?? v;
      break;
    case 'FallbackFunctionDefinition':
    case 'UnnamedFunctionDefinition':
      kind = 'fallback';
      name = 'fallback';
      nameNode = child(v, 'FallbackKeyword') ?? child(v, 'FunctionKeyword') ?? v;
      break;
    case 'ModifierDefinition':
      kind = 'modifier';
      nameNode = child(v, 'Name')!;
      name = textOf(nameNode);
      break;
    default: {
      nameNode = unwrap(child(v, 'Name')!);
      name = textOf(nameNode);
      // Before 0.5 a function named as its contract is the constructor; `function()` is the fallback.
      if (name === contractName) kind = 'constructor';
      else if (nameNode.kind === 'FallbackKeyword') kind = 'fallback';
      else if (nameNode.kind === 'ReceiveKeyword') kind = 'receive';
      else kind = 'function';
    }
  }
  let visibility: Visibility | undefined;
  let mutability: Mutability = 'nonpayable';
  let virtual = false;
  const modifiers: ModifierCall[] = [];
  for (const attr of items(child(v, 'Attributes'))) {
    const a = unwrap(attr);
    if (a.kind === 'ModifierInvocation') {
      modifiers.push({ name: pathText(child(a, 'Name')), args: lowerArgs(child(a, 'Arguments')).args, span: span(a) });
    } else if (VISIBILITY[a.kind]) visibility = VISIBILITY[a.kind];
    else if (MUTABILITY[a.kind]) mutability = MUTABILITY[a.kind]!;
    else if (a.kind === 'VirtualKeyword') virtual = true;
  }
  const bodyNode = child(v, 'Body');
  const body = bodyNode ? unwrap(bodyNode) : undefined;
  return {
    name,
    kind,
    visibility: visibility ?? (kind === 'fallback' || kind === 'receive' ? 'external' : 'public'),
    mutability,
    virtual,
    modifiers,
    params: lowerVarDecls(child(v, 'Parameters')),
    returns: lowerVarDecls(child(child(v, 'Returns'), 'Variables')),
    body: body && body.kind === 'Block' ? lowerStmt(body) : null,
    span: span(v),
    nameSpan: span(nameNode),
  };
}

function lowerStateVar(v: Node): StateVarDef {
  let visibility: Visibility = 'internal';
  let constant = false;
  let immutable = false;
  for (const attr of items(child(v, 'Attributes'))) {
    const a = unwrap(attr);
    if (VISIBILITY[a.kind]) visibility = VISIBILITY[a.kind]!;
    else if (a.kind === 'ConstantKeyword') constant = true;
    else if (a.kind === 'ImmutableKeyword') immutable = true;
  }
  const value = child(child(v, 'Value'), 'Value');
  return {
    name: textOf(child(v, 'Name')),
    type: lowerType(child(v, 'TypeName')),
    visibility,
    constant,
    immutable,
    value: value ? lowerExpr(value) : null,
    span: span(v),
  };
}

function lowerUsing(v: Node): UsingFor {
  const clause = unwrap(child(v, 'Clause')!);
  const target = unwrap(child(v, 'Target')!);
  const targetType = target.kind === 'Asterisk' ? null : lowerType(target);
  if (clause.kind === 'IdentifierPath') return { library: pathText(clause), functions: [], target: targetType };
  return {
    functions: items(child(clause, 'Symbols')).map((sym) => pathText(child(sym, 'Name'))),
    target: targetType,
  };
}

function lowerContract(v: Node): ContractDef {
  const kind = v.kind === 'InterfaceDefinition' ? 'interface' : v.kind === 'LibraryDefinition' ? 'library' : 'contract';
  const nameNode = child(v, 'Name')!;
  const name = textOf(nameNode);
  const inheritance: Node[] = [];
  for (const sp of items(child(v, 'Specifiers'))) {
    const u = unwrap(sp);
    if (u.kind === 'InheritanceSpecifier') inheritance.push(u);
  }
  const direct = child(v, 'Inheritance');
  if (direct) inheritance.push(direct);
  const bases = inheritance.flatMap((spec) =>
    items(child(spec, 'Types')).map((t) => ({
      name: pathText(child(t, 'TypeName')),
      args: lowerArgs(child(t, 'Arguments')).args,
    })),
  );
  const usings: UsingFor[] = [];
  const stateVars: StateVarDef[] = [];
  const functions: FunctionDef[] = [];
  const modifiers: FunctionDef[] = [];
  const structs: string[] = [];
  const enums: string[] = [];
  const events: string[] = [];
  for (const m of items(child(v, 'Members'))) {
    const u = unwrap(m);
    switch (u.kind) {
      case 'UsingDirective':
        usings.push(lowerUsing(u));
        break;
      case 'StateVariableDefinition':
        stateVars.push(lowerStateVar(u));
        break;
      case 'ModifierDefinition':
        modifiers.push(lowerFunction(u, name));
        break;
      case 'FunctionDefinition':
      case 'ConstructorDefinition':
      case 'ReceiveFunctionDefinition':
      case 'FallbackFunctionDefinition':
      case 'UnnamedFunctionDefinition':
        functions.push(lowerFunction(u, kind === 'contract' ? name : undefined));
        break;
      case 'StructDefinition':
        structs.push(textOf(child(u, 'Name')));
        break;
      case 'EnumDefinition':
        enums.push(textOf(child(u, 'Name')));
        break;
      case 'EventDefinition':
      case 'ErrorDefinition':
      case 'UserDefinedValueTypeDefinition':
        events.push(textOf(child(u, 'Name')));
        break;
    }
  }
  return {
    kind,
    abstract: !!child(v, 'AbstractKeyword'),
    name,
    bases,
    usings,
    stateVars,
    functions,
    modifiers,
    structs,
    enums,
    events,
    span: span(v),
    nameSpan: span(nameNode),
  };
}

function stringValue(literal: string): string {
  return literal.replace(/^(unicode)?["']|["']$/g, '');
}

/** Parses one file as the given Solidity version and lowers it. */
export function parseSource(file: string, text: string, version: string): SourceUnit {
  const output = parserFor(version).parseFileContents(text);
  const tokens: number[] = [];
  const root = convert(JSON.parse(output.tree.toJson()) as JsonNode, tokens);
  const lineStarts = lineStartsOf(text);
  const codeLines = new Array<boolean>(lineStarts.length).fill(false);
  let line = 0;
  for (let i = 0; i < tokens.length; i += 2) {
    const start = tokens[i]!;
    const end = tokens[i + 1]!;
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= start) line++;
    let l = line;
    codeLines[l] = true;
    while (l + 1 < lineStarts.length && lineStarts[l + 1]! < end) codeLines[++l] = true;
  }
  const pragmas: PragmaDef[] = [];
  const imports: ImportDef[] = [];
  const contracts: ContractDef[] = [];
  const freeFunctions: FunctionDef[] = [];
  const usings: UsingFor[] = [];
  const typeNames: string[] = [];
  for (const m of items(child(root, 'Members'))) {
    const u = unwrap(m);
    switch (u.kind) {
      case 'PragmaDirective': {
        const p = unwrap(child(u, 'Pragma')!);
        if (p.kind === 'VersionPragma') pragmas.push({ text: textOfSpaced(child(p, 'Sets')), span: span(u) });
        break;
      }
      case 'ImportDirective': {
        const clause = unwrap(child(u, 'Clause')!);
        const path = child(clause, 'Path');
        if (path) imports.push({ path: stringValue(textOf(path)), span: span(u) });
        break;
      }
      case 'ContractDefinition':
      case 'InterfaceDefinition':
      case 'LibraryDefinition':
        contracts.push(lowerContract(u));
        break;
      case 'FunctionDefinition':
        freeFunctions.push(lowerFunction(u, undefined));
        break;
      case 'UsingDirective':
        usings.push(lowerUsing(u));
        break;
      case 'StructDefinition':
      case 'EnumDefinition':
      case 'EventDefinition':
      case 'ErrorDefinition':
      case 'UserDefinedValueTypeDefinition':
        typeNames.push(textOf(child(u, 'Name')));
        break;
    }
  }
  return {
    file,
    typeNames,
    text,
    pragmas,
    imports,
    contracts,
    freeFunctions,
    usings,
    lineStarts,
    codeLines,
    parsedAs: version,
    errors: output.errors().map((e) => ({
      message: e.message,
      span: { start: e.textRange.start.utf16, end: e.textRange.end.utf16 },
    })),
  };
}

/** The text of a version pragma's expression, with single spaces where the source separated terms. */
function textOfSpaced(n: Node | undefined): string {
  if (!n) return '';
  const parts: { start: number; end: number; text: string }[] = [];
  const walk = (x: Node) => {
    if (x.text !== undefined) parts.push({ start: x.start, end: x.end, text: x.text });
    else for (const c of x.children) walk(c);
  };
  walk(n);
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    if (i > 0 && parts[i]!.start > parts[i - 1]!.end) out += ' ';
    out += parts[i]!.text;
  }
  return out;
}
