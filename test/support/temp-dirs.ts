import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** A new empty directory under the system's temporary directory, and its removal (with everything in it). */
export function makeTempDir(prefix: string): { readonly path: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { path: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Temporary directories for one test file, removed after the file's tests (sandbox worlds write megabytes). Call at
 * the file's top level (it registers an `afterAll` hook). `beforeRemoval` runs first in that hook: stop there what
 * still writes into the directories (a world saves on stop), whatever order the file's other hooks run in.
 */
export function useTempDirs(beforeRemoval?: () => Promise<unknown>): (prefix: string) => string {
  const dirs: { remove(): void }[] = [];
  afterAll(async () => {
    await beforeRemoval?.();
    for (const dir of dirs) dir.remove();
  });
  return (prefix) => {
    const dir = makeTempDir(prefix);
    dirs.push(dir);
    return dir.path;
  };
}
