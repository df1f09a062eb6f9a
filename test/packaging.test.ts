import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { composeServices, ROOT } from '../bench/scale/deployment.js';
import { buildCli } from '../src/cli/main.js';
import { CONFIG_KEYS } from '../src/config/index.js';

/**
 * The packaging for operators (Dockerfile, compose.yaml, .dockerignore, docs/operations.md and the README's
 * operations section) uses only commands the CLI has and variables the configuration reads. The image is not built
 * here (no registry to pull the base image from): these checks are static.
 */

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const cli = buildCli();

/** Whether `args` is a command line the CLI accepts: known (sub)commands, then known options. */
function commandProblem(args: readonly string[]): string | undefined {
  let command: Command = cli;
  let i = 0;
  for (; i < args.length && command.commands.length; i++) {
    const next = command.commands.find((c) => c.name() === args[i]);
    if (!next) return `no command ${JSON.stringify(args.slice(0, i + 1).join(' '))}`;
    command = next;
  }
  if (command === cli) return 'no command';
  if (command.commands.length) return `${args.join(' ')}: a subcommand is missing`;
  for (const arg of args.slice(i)) {
    if (!arg.startsWith('-')) continue;
    const name = arg.split('=')[0]!;
    if (!command.options.some((o) => o.long === name || o.short === name))
      return `${args.join(' ')}: no option ${name} on ${command.name()}`;
  }
  return undefined;
}
/** A key the configuration reads: the table's, `RPC_URL_<CHAIN>`, and `CONFIG_FILE` (the file of the others). */
const isConfigKey = (key: string) =>
  key in CONFIG_KEYS || /^RPC_URL_[A-Z0-9_]+$/.test(key) || key === 'RPC_URL_<CHAIN>' || key === 'CONFIG_FILE';

/** The code of a Markdown text: fenced blocks and inline code spans (prose may say "protoscore" freely). */
function codeOf(text: string): string[] {
  const blocks = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const rest = text.replace(/```[a-z]*\n[\s\S]*?```/g, '');
  return [...blocks.flatMap((b) => b.split('\n')), ...[...rest.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)];
}

/** `protoscore …` and `docker compose run --rm <service> …` command lines in a text's code, up to a comment. */
function protoscoreCommands(text: string): string[][] {
  const out: string[][] = [];
  for (const code of codeOf(text)) {
    const line = code.split('#')[0]!.trim();
    const own = /(?:^|\s)(?:npx )?protoscore ((?:[a-z][\w-]*)(?: \S+)*)/.exec(line);
    if (own) out.push(own[1]!.split(/\s+/));
    // The image's entry point is `protoscore`.
    const compose = /docker compose run --rm [\w-]+ (.*)/.exec(line);
    if (compose?.[1]?.trim()) out.push(compose[1].trim().split(/\s+/));
  }
  return out;
}

/** Upper-case names in backticks that read as configuration keys (`PORT`, `RPC_URL_<CHAIN>`). */
function mentionedKeys(text: string): string[] {
  return [...text.matchAll(/`([A-Z][A-Z0-9_]*(?:<CHAIN>)?)(?:=[^`]*)?`/g)].map((m) => m[1]!);
}

/** Words that are not protoscore's configuration, by where they belong. */
const NOT_CONFIG = new Set([
  // Node's own
  'NODE_ENV',
  // compose.yaml's own interpolation variables (documented in docs/operations.md)
  'API_PORTS',
  'API_REPLICAS',
  'WORKERS',
  'WORKERS_DEMO',
  // constants of the source that the README names (src/http/app.ts)
  'OVERLOAD_DEFAULTS',
]);

describe('packaging: compose.yaml', () => {
  const services = composeServices();
  const raw = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<string, { depends_on?: Record<string, unknown>; volumes?: string[]; env_file?: unknown }>;
    volumes: Record<string, unknown>;
  };

  it('runs the image with CLI commands that exist, and only configuration keys', () => {
    expect(Object.keys(services).sort()).toEqual(['demo-worker', 'migrate', 'sandbox', 'serve', 'worker']);
    for (const [name, service] of Object.entries(services)) {
      expect(commandProblem(service.command), `${name}: ${service.command.join(' ')}`).toBeUndefined();
      for (const key of Object.keys(service.environment))
        expect(isConfigKey(key), `${name}: ${key} is not a configuration key`).toBe(true);
    }
  });

  it('names only services and volumes it defines, and documents its own variables', () => {
    for (const [name, service] of Object.entries(raw.services)) {
      for (const dep of Object.keys(service.depends_on ?? {}))
        expect(raw.services[dep], `${name} depends on ${dep}`).toBeDefined();
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        expect(raw.volumes[source], `${name} mounts ${source}`).toBeDefined();
      }
    }
    const text = read('compose.yaml');
    const operations = read('docs/operations.md');
    for (const m of text.matchAll(/\$\{([A-Z_]+)(?::-[^}]*)?\}/g)) {
      expect(NOT_CONFIG.has(m[1]!) || isConfigKey(m[1]!), m[1]).toBe(true);
      expect(operations, `docs/operations.md explains ${m[1]}`).toContain(`\`${m[1]}\``);
    }
  });

  it('the demo workers read the configuration file `sandbox run` writes, from its volume', () => {
    const sandboxDir = services.sandbox!.environment.DATA_DIR!;
    expect(services['demo-worker']!.environment.CONFIG_FILE).toBe(`${sandboxDir}/sandbox/config.json`);
    expect(services['demo-worker']!.command).toEqual(services.worker!.command);
  });

  it('is what the multi-process test runs: every command through composeCommand', () => {
    const deployment = read('bench/scale/deployment.ts');
    const test = read('test/multi-process.test.ts');
    for (const service of ['sandbox', 'serve', 'worker', 'migrate'])
      expect(`${deployment}\n${test}`, service).toContain(`composeCommand('${service}')`);
  });
});

/**
 * The Node.js majors an `engines` range takes whole from their first supported release: `^20.19.0` gives 20, `>=24`
 * gives 24 and every later line up to 40.
 */
function declaredLines(range: string): number[] {
  const lines: number[] = [];
  for (const part of range.split('||').map((p) => p.trim())) {
    const caret = /^\^(\d+)\.\d+\.\d+$/.exec(part);
    const atLeast = /^>=\s*(\d+)(?:\.0\.0)?$/.exec(part);
    if (caret) lines.push(Number(caret[1]));
    else if (atLeast) for (let m = Number(atLeast[1]); m <= 40; m++) lines.push(m);
    else throw new Error(`engines: ${part} is neither ^X.Y.Z nor >=X`);
  }
  return lines;
}

describe('packaging: the build', () => {
  // `npm run build` is tsc alone: it writes a JSON file of src/ to dist/ only when a module imports it. A file read by
  // path (createRequire, readFile next to the module) works under tsx, which the tests use, and is missing from the
  // built service (`npm start` once failed at its first start on the sandbox's blobs.json).
  it('carries every data file of src/: each JSON file is imported as JSON by a module', () => {
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
      );
    const files = walk(path.join(ROOT, 'src'));
    const sources = files
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => readFileSync(f, 'utf8'));
    const data = files.filter((f) => f.endsWith('.json'));
    expect(data.length).toBeGreaterThan(0);
    const notImported = data.filter(
      (f) => !sources.some((text) => text.includes(`/${path.basename(f)}' with { type: 'json' }`)),
    );
    expect(notImported.map((f) => path.relative(ROOT, f))).toEqual([]);
  });
});

describe('packaging: Dockerfile and .dockerignore', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => /^[A-Z]+ /.test(l));

  it('starts the CLI the package declares, with a command it has', () => {
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string>; engines: { node: string } };
    const entry = instructions.find((l) => l.startsWith('ENTRYPOINT '))!;
    expect(JSON.parse(entry.slice('ENTRYPOINT '.length))).toEqual(['node', pkg.bin.protoscore]);
    const cmd = JSON.parse(instructions.find((l) => l.startsWith('CMD '))!.slice(4)) as string[];
    expect(commandProblem(cmd)).toBeUndefined();
    // Both stages run one Node.js line: one that `engines` declares whole and that CI runs the suite on.
    const majors = new Set(
      instructions.filter((l) => l.startsWith('FROM ')).map((l) => /^FROM node:(\d+)[.-]/.exec(l)?.[1] ?? l),
    );
    expect(majors.size).toBe(1);
    const [major] = [...majors];
    expect(declaredLines(pkg.engines.node), pkg.engines.node).toContain(Number(major));
    expect(read('.ci/run')).toMatch(new RegExp(`\\.ci/with-node ${major} `));
  });

  it('sets only configuration keys, and copies what exists and what the build writes', () => {
    for (const line of instructions.filter((l) => l.startsWith('ENV '))) {
      for (const m of line.slice(4).matchAll(/([A-Z_][A-Z0-9_]*)=/g))
        expect(NOT_CONFIG.has(m[1]!) || isConfigKey(m[1]!), m[1]).toBe(true);
    }
    const build = JSON.parse(read('tsconfig.build.json')) as { compilerOptions: { outDir: string } };
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    // `npm ci` builds (the prepare script), into the directory the final stage copies.
    expect(scripts.prepare).toBe('npm run build');
    expect(dockerfile).toContain(
      `COPY --from=build /app/${build.compilerOptions.outDir} ./${build.compilerOptions.outDir}`,
    );
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const line of instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from'))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) {
        expect(existsSync(path.join(ROOT, source)), `${source} exists`).toBe(true);
        expect(ignored, `.dockerignore keeps ${source}`).not.toContain(source);
      }
    }
    expect(ignored).toContain('node_modules');
  });
});

describe('packaging: docs/operations.md and the README', () => {
  const operations = read('docs/operations.md');
  const readme = read('README.md');
  const readmeOperations = readme.slice(readme.indexOf('## CLI'), readme.indexOf('## Development'));

  it('names only commands the CLI has', () => {
    const commands = [...protoscoreCommands(operations), ...protoscoreCommands(readmeOperations)];
    expect(commands.length).toBeGreaterThan(10);
    for (const args of commands) expect(commandProblem(args), args.join(' ')).toBeUndefined();
  });

  it('names only configuration keys (or says whose they are)', () => {
    const keys = [...mentionedKeys(operations), ...mentionedKeys(readmeOperations)];
    expect(keys).toContain('DATABASE_URL');
    for (const key of keys) expect(NOT_CONFIG.has(key) || isConfigKey(key), key).toBe(true);
    // The README's configuration table lists every key.
    for (const key of Object.keys(CONFIG_KEYS)) expect(readme, key).toContain(`| \`${key}\` |`);
  });

  it('names only metrics the service exports', () => {
    const metrics = read('src/metrics/metrics.ts');
    const named = [...operations.matchAll(/`(protoscore_[a-z_]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(4);
    for (const name of named) expect(metrics, name).toContain(`'${name}'`);
  });
});
