/**
 * The layering rules of DESIGN.md, checked on the import graph of `src/` (tests excluded): this test guards them
 * and is never loosened to let a change pass. A rule that fails names the file, the import and the rule.
 *
 * - `core/` is pure: it imports only `core/`, and reaches no `node:` module, store, source, network client or clock.
 * - An area's `compute.ts` and `score.ts` (at its top, or in one of its parts' folders) are pure: what they reach at
 *   run time stays in `core/`, `registry/` and the area's own pure files (or another area's pure files through its
 *   `public.ts`), and they name no store, source, http, jobs or runtime module even as a type.
 * - An area's parts (`AreaModule.parts`, issue 25) are its folders with a `jobs.ts`, each declared, each with its
 *   `index.ts`; a part imports no sibling part, and of the area's own files only its `index.ts`, `routes.ts` and
 *   `public.ts` import a part (what the parts share, such as blockchain's `prices.ts`, imports none).
 * - `store/` and `sources/` import no area; `sources/` writes nothing, so it imports no store either.
 * - An area imports another area only through that area's `public.ts`, and only when it declares the dependency
 *   (`dependsOn`) on its module.
 * - No area constructs a source's client (`new …Source(`, `new …Client(`): it takes the opened one from `env.sources`.
 * - `http/` and `areas/` do not import each other; `jobs/`, `paths/` and `metrics/` import no area and no http.
 * - Only the composition (`runtime/`, `cli/`) imports the sandbox; the sandbox imports no area, store, job or http.
 * - A stand-in reaches no area, store, job, http or composition module, even transitively: it sees the world
 *   through its start options (issue 25).
 * - The sandbox world (`sandbox/world/`) imports protocols only through their list (`sandbox/protocols/index.ts`),
 *   and every protocol folder is on the list; the list reaches no artifact and no viem when it loads (the address
 *   book, `sandbox info` and every start read it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AREAS } from '../src/areas/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

interface Import {
  /** Resolved file under src/ (relative, posix), or the bare specifier of a package or `node:` module. */
  readonly target: string;
  readonly typeOnly: boolean;
  readonly internal: boolean;
  /** The value names imported (`import { a, type B }` → `['a']`); undefined for `*`, default or side effects. */
  readonly names?: readonly string[];
  /** `import('…')`: loaded when the code runs, not when the importing module loads. */
  readonly dynamic?: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    if (e.name.endsWith('.json')) return [p];
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const rel = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Import[] = [];
  const add = (specifier: string, typeOnly: boolean, names?: readonly string[], dynamic = false) => {
    const how = dynamic ? { dynamic } : {};
    if (!specifier.startsWith('.')) {
      out.push({ target: specifier, typeOnly, internal: false, ...how });
      return;
    }
    const resolved = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
    out.push({ target: rel(resolved), typeOnly, internal: true, ...(names ? { names } : {}), ...how });
  };
  const valueNames = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
    elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      const named =
        clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings)
          ? valueNames(clause.namedBindings.elements)
          : undefined;
      add(node.moduleSpecifier.text, typeOnly, named);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly =
        node.isTypeOnly ||
        (!!node.exportClause &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      const named =
        node.exportClause && ts.isNamedExports(node.exportClause) ? valueNames(node.exportClause.elements) : undefined;
      add(node.moduleSpecifier.text, typeOnly, named);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false, undefined, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const FILES = sourceFiles(SRC).map(rel).sort();
const GRAPH = new Map(FILES.map((f) => [f, f.endsWith('.json') ? [] : importsOf(path.join(SRC, f))]));

/** `areas/<x>/…` → `x`; `areas/kit/…`, `areas/index.ts` → undefined (shared). */
function areaOf(file: string): string | undefined {
  const m = /^areas\/([a-z-]+)\//.exec(file);
  return m && m[1] !== 'kit' ? m[1] : undefined;
}

const top = (file: string) => file.split('/')[0]!.replace(/\.ts$/, '');

/** The declared parts of each area (`defineArea({ parts })`), by area id. */
const PARTS = new Map(AREAS.map((a) => [a.id as string, a.parts]));

/** `areas/<x>/<part>/…` → `part` when `part` is one of area x's declared parts; else undefined. */
function partOf(file: string): string | undefined {
  const m = /^areas\/([a-z-]+)\/([a-z0-9-]+)\//.exec(file);
  return m && PARTS.get(m[1]!)?.includes(m[2]!) ? m[2] : undefined;
}

/** Network clients and other I/O packages that pure code must never reach. */
const IO_PACKAGES = [
  'pg',
  'better-sqlite3',
  'better-sqlite3-node20',
  'kysely',
  'ioredis',
  'fastify',
  '@fastify/',
  '@octokit/',
  'undici',
  'viem',
  'pino',
  'prom-client',
  '@foundry-rs/',
  'commander',
];
const isIoPackage = (spec: string) =>
  spec.startsWith('node:') || IO_PACKAGES.some((p) => (p.endsWith('/') ? spec.startsWith(p) : spec === p));

/**
 * The modules of a barrel (`public.ts`) that a value import of `names` from it actually uses: each name is
 * followed to the module that re-exports it, so that taking a pure function from another area's public face does
 * not count as reaching that area's jobs.
 */
function barrelTargets(barrel: string, names: readonly string[]): string[] {
  const exports = (GRAPH.get(barrel) ?? []).filter((i) => i.internal && i.names);
  return names.map((name) => exports.find((e) => e.names!.includes(name))?.target ?? barrel);
}

/** Files reached at run time (value imports, transitively) from `start`, each with the file that imports it. */
function reached(start: string): Map<string, string> {
  const via = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length) {
    const file = queue.shift()!;
    for (const imp of GRAPH.get(file) ?? []) {
      if (imp.typeOnly || !imp.internal) continue;
      const targets =
        imp.target.endsWith('/public.ts') && imp.names ? barrelTargets(imp.target, imp.names) : [imp.target];
      for (const target of targets) {
        if (via.has(target)) continue;
        via.set(target, file);
        queue.push(target);
      }
    }
  }
  return via;
}

function violations(check: (file: string, imp: Import) => string | undefined): string[] {
  const out: string[] = [];
  for (const [file, imports] of GRAPH) {
    for (const imp of imports) {
      const why = check(file, imp);
      if (why) out.push(`${file} imports ${imp.target}${imp.typeOnly ? ' (type)' : ''}: ${why}`);
    }
  }
  return out;
}

const PURE_FORBIDDEN_LAYERS = new Set([
  'store',
  'sources',
  'http',
  'jobs',
  'runtime',
  'cli',
  'sandbox',
  'metrics',
  'config',
]);

describe('layering (DESIGN.md)', () => {
  it('sees the whole source tree', () => {
    expect(FILES.length).toBeGreaterThan(100);
    for (const [file, imports] of GRAPH) {
      for (const imp of imports.filter((i) => i.internal)) {
        expect(FILES, `${file} imports a missing file ${imp.target}`).toContain(imp.target);
      }
    }
  });

  it('core/ is pure', () => {
    const bad = violations((file, imp) => {
      if (top(file) !== 'core') return undefined;
      if (imp.internal) return top(imp.target) === 'core' ? undefined : 'core imports only core';
      return isIoPackage(imp.target) ? 'core reaches no I/O module' : undefined;
    });
    expect(bad).toEqual([]);
  });

  it("an area's compute and score are pure", () => {
    const bad: string[] = [];
    // `compute.ts` and `score.ts` of an area, and of each of its declared parts (`areas/<area>/<part>/`).
    const pure = FILES.filter((f) => {
      const m = /^areas\/([a-z-]+)\/(?:([a-z0-9-]+)\/)?(compute|score)\.ts$/.exec(f);
      return !!m && (m[2] === undefined || !!PARTS.get(m[1]!)?.includes(m[2]));
    });
    expect(pure).toContain('areas/blockchain/bitcoin/compute.ts');
    for (const file of pure) {
      for (const [reachedFile, from] of reached(file)) {
        for (const imp of GRAPH.get(reachedFile) ?? []) {
          const what = `${file} reaches ${reachedFile} (via ${from}), which imports ${imp.target}`;
          if (!imp.internal) {
            if (!imp.typeOnly && isIoPackage(imp.target)) bad.push(`${what}: an I/O module`);
            continue;
          }
          const layer = top(imp.target);
          if (PURE_FORBIDDEN_LAYERS.has(layer)) {
            // A type of a pure data shape is harmless; a value import is not, nor any import of these layers'
            // modules by compute/score themselves.
            if (!imp.typeOnly || reachedFile === file) bad.push(`${what}: ${layer}/ from pure code`);
          }
          if (!imp.typeOnly && layer === 'areas') {
            const area = areaOf(imp.target);
            if (area === undefined && !imp.target.startsWith('areas/kit/schema')) {
              bad.push(`${what}: only the kit's schema pieces are pure`);
            }
          }
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it("an area's parts are declared folders, and a part reads no sibling part", () => {
    // A folder of an area with a `jobs.ts` is a part, and every declared part is such a folder with its index.ts.
    const withJobs = FILES.flatMap((f) => {
      const m = /^areas\/([a-z-]+)\/([a-z0-9-]+)\/jobs\.ts$/.exec(f);
      return m ? [`${m[1]}/${m[2]}`] : [];
    });
    const declared = [...PARTS].flatMap(([area, parts]) => parts.map((p) => `${area}/${p}`));
    expect(withJobs.sort()).toEqual([...declared].sort());
    for (const part of declared) expect(FILES, `${part} declares itself`).toContain(`areas/${part}/index.ts`);
    expect(declared).toEqual(expect.arrayContaining(['blockchain/evm', 'blockchain/bitcoin']));
    const bad = violations((file, imp) => {
      if (!imp.internal) return undefined;
      const from = partOf(file);
      const to = partOf(imp.target);
      if (!to || areaOf(file) !== areaOf(imp.target)) return undefined;
      if (from !== undefined) return from === to ? undefined : `a part imports no sibling part (${from} → ${to})`;
      const area = areaOf(file)!;
      if ([`areas/${area}/index.ts`, `areas/${area}/routes.ts`, `areas/${area}/public.ts`].includes(file)) {
        return undefined;
      }
      return `only the area's index.ts, routes.ts and public.ts import its part ${to}`;
    });
    expect(bad).toEqual([]);
  });

  it('store/ and sources/ import no area; sources/ write no store', () => {
    const bad = violations((file, imp) => {
      const layer = top(file);
      if (layer !== 'store' && layer !== 'sources') return undefined;
      if (!imp.internal) return undefined;
      const target = top(imp.target);
      if (target === 'areas') return `${layer}/ imports no area`;
      if (['http', 'jobs', 'runtime', 'cli', 'sandbox'].includes(target)) return `${layer}/ imports no ${target}/`;
      if (layer === 'sources' && target === 'store') return 'a source reads, it never writes the store';
      return undefined;
    });
    expect(bad).toEqual([]);
  });

  it('an area imports another area only through its public.ts and a declared dependency', () => {
    const declared = new Map(AREAS.map((a) => [a.id as string, new Set<string>(a.dependsOn)]));
    const bad = violations((file, imp) => {
      const from = areaOf(file);
      const to = imp.internal ? areaOf(imp.target) : undefined;
      if (!from || !to || from === to) return undefined;
      if (imp.target !== `areas/${to}/public.ts`) return `another area is read through areas/${to}/public.ts only`;
      if (!declared.get(from)?.has(to)) return `${from} must declare dependsOn: ['${to}']`;
      return undefined;
    });
    expect(bad).toEqual([]);
    // And no area declares a dependency it does not use, or one that closes a circle.
    for (const area of AREAS) {
      for (const dep of area.dependsOn) {
        const uses = FILES.some(
          (f) => areaOf(f) === area.id && GRAPH.get(f)!.some((i) => i.target === `areas/${dep}/public.ts`),
        );
        expect(uses, `${area.id} declares dependsOn ${dep} but never imports its public.ts`).toBe(true);
        expect(declared.get(dep)?.has(area.id), `${area.id} and ${dep} depend on each other`).toBe(false);
      }
    }
  });

  it("no area constructs a source's client: it takes the one the runtime opened from env.sources", () => {
    const constructs = /\bnew\s+(EvmChains|EvmSource|RpcClient|[A-Z][A-Za-z]*(Source|Client|RpcClient))\s*\(/;
    const bad = FILES.filter((f) => top(f) === 'areas').flatMap((f) => {
      const found = constructs.exec(readFileSync(path.join(SRC, f), 'utf8'));
      return found ? [`${f}: constructs a client (${found[0]})`] : [];
    });
    expect(bad).toEqual([]);
  });

  it('http/ and areas/ do not import each other; jobs/, paths/ and metrics/ import neither', () => {
    const bad = violations((file, imp) => {
      if (!imp.internal) return undefined;
      const from = top(file);
      const to = top(imp.target);
      if (from === 'http' && to === 'areas') return 'http/ serves the path table it is given, it imports no area';
      if (from === 'areas' && to === 'http') return 'areas/ do not import http/ (paths/ is the shared concept)';
      if (['jobs', 'paths', 'metrics'].includes(from) && (to === 'areas' || to === 'http')) {
        return `${from}/ imports no ${to}/`;
      }
      return undefined;
    });
    expect(bad).toEqual([]);
  });

  it('only the composition imports the sandbox, and the sandbox imports no service layer', () => {
    const bad = violations((file, imp) => {
      if (!imp.internal) return undefined;
      const from = top(file);
      const to = top(imp.target);
      if (to === 'sandbox' && !['sandbox', 'runtime', 'cli'].includes(from)) {
        return 'production code never depends on the sandbox (runtime/ and cli/ compose it)';
      }
      if (from === 'sandbox' && ['areas', 'store', 'jobs', 'http', 'runtime', 'cli'].includes(to)) {
        return `the sandbox imports no ${to}/`;
      }
      return undefined;
    });
    expect(bad).toEqual([]);
  });

  it('a stand-in reaches no area, store, job or http module, not even through another module', () => {
    const standins = FILES.filter((f) => f.startsWith('sandbox/standins/') && f.endsWith('.ts'));
    expect(standins.length).toBeGreaterThan(10);
    const forbidden = ['areas', 'store', 'jobs', 'http', 'runtime', 'cli'];
    const bad: string[] = [];
    for (const file of standins) {
      // Types too: a stand-in is given what it sees (its start options), it does not read the service's layers.
      for (const imp of GRAPH.get(file) ?? []) {
        if (imp.internal && forbidden.includes(top(imp.target))) bad.push(`${file} imports ${imp.target}`);
      }
      for (const [target, via] of reached(file)) {
        if (forbidden.includes(top(target))) bad.push(`${file} reaches ${target} (through ${via})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the sandbox world names no protocol: world/ imports protocols only through the list (protocols/index.ts)', () => {
    const bad = violations((file, imp) => {
      if (!file.startsWith('sandbox/world/') || !imp.internal) return undefined;
      if (!imp.target.startsWith('sandbox/protocols/') || imp.target === 'sandbox/protocols/index.ts') return undefined;
      return 'world/ reaches a protocol only through protocols/index.ts (a protocol is one folder plus one line)';
    });
    expect(bad).toEqual([]);
    // The list is where the protocols are: every folder with a protocol.ts is on it.
    const folders = FILES.filter((f) => /^sandbox\/protocols\/[^/]+\/protocol\.ts$/.test(f));
    const listed = (GRAPH.get('sandbox/protocols/index.ts') ?? []).map((i) => i.target);
    expect(folders.length).toBeGreaterThanOrEqual(7);
    for (const f of folders) expect(listed, f).toContain(f);
  });

  it('the protocol list stays light: it reaches no contract artifact and no viem at load (hooks load their modules)', () => {
    // What loading the list loads: static value imports, transitively (a hook's `import()` waits until it runs).
    const loaded = new Map([['sandbox/protocols/index.ts', 'sandbox/protocols/index.ts']]);
    const queue = ['sandbox/protocols/index.ts'];
    const bad: string[] = [];
    while (queue.length) {
      const file = queue.shift()!;
      if (file.endsWith('.json')) bad.push(`${file} (through ${loaded.get(file)})`);
      for (const imp of GRAPH.get(file) ?? []) {
        if (imp.typeOnly || imp.dynamic) continue;
        if (!imp.internal) {
          if (imp.target.startsWith('viem')) bad.push(`${file} imports viem`);
          continue;
        }
        if (loaded.has(imp.target)) continue;
        loaded.set(imp.target, file);
        queue.push(imp.target);
      }
    }
    expect(loaded.size).toBeGreaterThan(8);
    expect(bad).toEqual([]);
  });
});
