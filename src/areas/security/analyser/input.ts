/**
 * What the analyser reads: source texts by path (a file, a folder's files, or a standard-JSON compiler input), the
 * remappings and the compiler version when the input names them, and import resolution within that set. Pure: the
 * caller reads the files.
 */

export interface AnalysisInput {
  /** Source unit name (a path with `/`) → Solidity text. */
  readonly sources: Readonly<Record<string, string>>;
  /** solc remappings, `[context:]prefix=target`. */
  readonly remappings?: readonly string[];
  /** The compiler version the sources were built with (`0.8.10` or `v0.8.10+commit.fc410830`), when known. */
  readonly compilerVersion?: string;
  /** The files whose contracts are reported (default: all); the others only resolve imports and inheritance. */
  readonly targets?: readonly string[];
}

/** Bad input: an error the caller shows as is (the CLI exits 2). */
export class InputError extends Error {
  override readonly name = 'InputError';
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A standard-JSON compiler input (`{language, sources: {path: {content}}, settings}`) as analyser input. Accepts
 * Etherscan's double-braced form (`{{ … }}`) of the same document.
 */
export function fromStandardJson(input: unknown, compilerVersion?: string): AnalysisInput {
  let doc = input;
  if (typeof doc === 'string') {
    const text = doc.trim();
    const unwrapped = text.startsWith('{{') && text.endsWith('}}') ? text.slice(1, -1) : text;
    try {
      doc = JSON.parse(unwrapped);
    } catch (err) {
      throw new InputError(`not a standard-JSON compiler input: ${(err as Error).message}`);
    }
  }
  if (!isRecord(doc)) throw new InputError('not a standard-JSON compiler input: expected an object');
  if (doc.language !== undefined && doc.language !== 'Solidity') {
    throw new InputError(`standard-JSON input in ${JSON.stringify(doc.language)}: only Solidity is analysed`);
  }
  if (!isRecord(doc.sources) || Object.keys(doc.sources).length === 0) {
    throw new InputError('standard-JSON input without sources: expected "sources": {"<path>": {"content": "…"}}');
  }
  const sources: Record<string, string> = {};
  for (const [path, entry] of Object.entries(doc.sources)) {
    if (!isRecord(entry) || typeof entry.content !== 'string') {
      throw new InputError(`standard-JSON source ${JSON.stringify(path)} has no "content" (URLs are not fetched)`);
    }
    sources[path] = entry.content;
  }
  const settings = isRecord(doc.settings) ? doc.settings : {};
  const remappings = settings.remappings;
  if (remappings !== undefined && (!Array.isArray(remappings) || remappings.some((r) => typeof r !== 'string'))) {
    throw new InputError('standard-JSON "settings.remappings" must be an array of strings');
  }
  return {
    sources,
    ...(remappings ? { remappings: remappings as string[] } : {}),
    ...(compilerVersion ? { compilerVersion } : {}),
  };
}

/** `a/./b/../c` → `a/c`; keeps leading `..` that cannot be resolved. */
export function normalisePath(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length && out[out.length - 1] !== '..') out.pop();
    else out.push(part);
  }
  return (path.startsWith('/') ? '/' : '') + out.join('/');
}

const dirname = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

interface Remapping {
  readonly context: string;
  readonly prefix: string;
  readonly target: string;
}

function parseRemapping(text: string): Remapping | undefined {
  const eq = text.indexOf('=');
  if (eq < 0) return undefined;
  const left = text.slice(0, eq);
  const colon = left.indexOf(':');
  return {
    context: colon < 0 ? '' : left.slice(0, colon),
    prefix: colon < 0 ? left : left.slice(colon + 1),
    target: text.slice(eq + 1),
  };
}

/**
 * Resolves imports the way solc names source units: a relative path against the importing unit, remappings
 * (longest context, then longest prefix), then the path itself; and, for folders whose imports name packages
 * (`@aave/core-v3/contracts/…`), the one source whose path ends the import path or is ended by it.
 */
export class ImportResolver {
  private readonly remappings: Remapping[];
  private readonly byBase = new Map<string, string[]>();

  constructor(
    private readonly paths: ReadonlySet<string>,
    remappings: readonly string[] = [],
  ) {
    this.remappings = remappings.map(parseRemapping).filter((r): r is Remapping => r !== undefined);
    for (const p of paths) {
      const base = p.slice(p.lastIndexOf('/') + 1);
      const list = this.byBase.get(base);
      if (list) list.push(p);
      else this.byBase.set(base, [p]);
    }
  }

  /** The import's source unit name (whether or not it is among the sources). */
  unitName(from: string, imported: string): string {
    if (imported.startsWith('./') || imported.startsWith('../')) return normalisePath(`${dirname(from)}/${imported}`);
    let best: Remapping | undefined;
    for (const r of this.remappings) {
      if (!imported.startsWith(r.prefix) || !from.startsWith(r.context)) continue;
      if (
        !best ||
        r.context.length > best.context.length ||
        (r.context.length === best.context.length && r.prefix.length > best.prefix.length)
      )
        best = r;
    }
    return best ? normalisePath(best.target + imported.slice(best.prefix.length)) : normalisePath(imported);
  }

  resolve(from: string, imported: string): string | undefined {
    const name = this.unitName(from, imported);
    if (this.paths.has(name)) return name;
    const base = name.slice(name.lastIndexOf('/') + 1);
    const candidates = (this.byBase.get(base) ?? []).filter(
      (p) => name.endsWith(`/${p}`) || p.endsWith(`/${name}`) || p === name,
    );
    if (candidates.length === 1) return candidates[0];
    return undefined;
  }
}
