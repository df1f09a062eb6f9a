import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * (Here rather than in core/, which reaches no I/O module, and rather than in runtime/, which the sandbox may not
 * import: the sandbox's two threads use it, and runtime/ composes the sandbox.)
 *
 * The entry of a worker thread whose module sits beside the caller's: `<name>.js` in the build, `<name>.ts` when
 * running from sources (tsx, vitest), where the thread first registers tsx's ESM loader (a worker does not inherit
 * the parent's hooks, and tsx's CommonJS build cannot register ESM hooks from a worker). `callerUrl` is the caller's
 * `import.meta.url`; pass both fields to `new Worker(filename, { eval })`.
 */
export function threadEntry(callerUrl: string, name: string): { filename: string | URL; eval: boolean } {
  if (!callerUrl.endsWith('.ts')) return { filename: new URL(`./${name}.js`, callerUrl), eval: false };
  const tsxRoot = path.dirname(createRequire(callerUrl).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href;
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  return {
    filename: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`,
    eval: true,
  };
}
