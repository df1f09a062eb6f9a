import path from 'node:path';
import ts from 'typescript';

/**
 * Type-checks recorded wire answers against a service's published TypeScript types (`discord-api-types`): each
 * answer becomes `const name: Wire<Type> = <the JSON>;` in a module that exists only in memory, and the compiler's
 * complaints about it are returned.
 *
 * Why this is a sound check of a JSON value against a type: an object literal assigned to a declared type is
 * checked for every required property, every property's type (a discriminated union by its discriminant), `null`
 * where the type does not allow it, and — object literals being "fresh" — every property the type does not name
 * (excess property checking). `Wire<T>` only undoes what JSON cannot spell: a string enum's members become their
 * string values (JSON has `"ANIMATED_BANNER"`, not `GuildFeature.AnimatedBanner`); number enums need nothing (a
 * number literal is assignable to the member of that value), except bitfields: a property named in `bitfields`
 * (`flags`) holds any combination of its enum's bits, 0 included, which is any integer on the wire.
 */

const wire = (bitfields: readonly string[]) => `
type Bitfield = ${bitfields.length ? bitfields.map((b) => `'${b}'`).join(' | ') : 'never'};
type Wire<T> = T extends string
  ? \`\${T}\`
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: K extends Bitfield ? number : Wire<T[K]> }
      : T;
`;

export interface Recorded {
  /** A name for the diagnostics (`messages_3`). */
  readonly name: string;
  /** The type, as written in the module (`D.RESTGetAPIChannelMessagesResult`). */
  readonly type: string;
  readonly value: unknown;
}

/**
 * `imports`: the module's import lines (`import type * as D from 'discord-api-types/v10';`), resolved from `dir`
 * (a directory whose `node_modules` has the types). Returns `name: message` lines, empty when every answer fits.
 */
export function typeCheckAnswers(
  dir: string,
  imports: string,
  answers: readonly Recorded[],
  bitfields: readonly string[] = [],
): string[] {
  const file = path.join(dir, '__wire_answers__.ts');
  const consts = answers.map((a) => `export const ${a.name}: Wire<${a.type}> = ${JSON.stringify(a.value)};`);
  const text = `${imports}\n${wire(bitfields)}\n${consts.join('\n')}\n`;
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const original = { getSourceFile: host.getSourceFile, fileExists: host.fileExists, readFile: host.readFile };
  host.getSourceFile = (name, language, onError, create) =>
    path.resolve(name) === file
      ? ts.createSourceFile(name, text, language)
      : original.getSourceFile.call(host, name, language, onError, create);
  host.fileExists = (name) => path.resolve(name) === file || original.fileExists.call(host, name);
  host.readFile = (name) => (path.resolve(name) === file ? text : original.readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  const source = program.getSourceFile(file)!;
  const lines = text.split('\n');
  return ts.getPreEmitDiagnostics(program, source).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.file === undefined || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const name = /^export const (\w+)/.exec(lines[line] ?? '')?.[1] ?? `line ${line + 1}`;
    return `${name}: ${message}`;
  });
}
