/**
 * `ADDRESS_BOOK_FILE`: an address book read from a JSON file instead of the registry's own addresses (a testnet, a
 * fork, or the sandbox world that `protoscore sandbox run` keeps: it writes the world's book there). The file holds
 * exactly what `AddressBook` holds (entry points, tokens and chain id per chain, and the declared allocations of its
 * tokens), so a process reading it reads the chains as it would read mainnet with the registry's addresses.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from '../config/index.js';
import type { AddressBook } from '../registry/address-book.js';
import { TOKEN_LABEL_CATEGORIES } from '../registry/types.js';

const Address = Type.String({ pattern: '^0x[0-9a-f]{40}$' });
const Instant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' });
const Category = Type.Union(TOKEN_LABEL_CATEGORIES.map((c) => Type.Literal(c)));

/** A token's declared allocation (registry/types.ts `TokenDeclaration`). */
const Declaration = Type.Object(
  {
    sourceKind: Type.Union([Type.Literal('project'), Type.Literal('secondary'), Type.Literal('sandbox')]),
    source: Type.String({ minLength: 1 }),
    allocations: Type.Array(
      Type.Object(
        {
          category: Category,
          label: Type.String({ minLength: 1 }),
          amount: Type.String({ pattern: '^\\d+(\\.\\d+)?$' }),
          unlock: Type.Union([
            Type.Null(),
            Type.Object({ kind: Type.Literal('cliff'), at: Instant }, { additionalProperties: false }),
            Type.Object(
              { kind: Type.Literal('linear'), start: Instant, end: Instant, cliff: Type.Optional(Instant) },
              { additionalProperties: false },
            ),
          ]),
          assumptions: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const BookFile = Type.Object(
  {
    origin: Type.Union([Type.Literal('registry'), Type.Literal('sandbox')]),
    chains: Type.Record(
      Type.String(),
      Type.Object(
        {
          chainId: Type.Integer({ minimum: 1 }),
          tokens: Type.Record(
            Type.String(),
            Type.Object({ address: Address, decimals: Type.Integer({ minimum: 0, maximum: 255 }) }),
          ),
          entries: Type.Record(
            Type.String(),
            Type.Object({ address: Address, startBlock: Type.Optional(Type.Integer({ minimum: 0 })) }),
          ),
          declarations: Type.Optional(Type.Record(Type.String(), Declaration)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Reads and checks an address book file; a missing, unreadable or malformed file is the operator's to fix. */
export function readAddressBookFile(file: string): AddressBook {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why =
      err instanceof SyntaxError
        ? 'is not valid JSON'
        : `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new ConfigError('ADDRESS_BOOK_FILE', `${file} ${why}`);
  }
  if (!Value.Check(BookFile, json)) {
    const first = Value.Errors(BookFile, json).First();
    throw new ConfigError(
      'ADDRESS_BOOK_FILE',
      `${file} is not an address book${first ? ` (${first.path || '/'}: ${first.message})` : ''}`,
    );
  }
  return json satisfies Static<typeof BookFile> as AddressBook;
}

/** Writes an address book file whole (a reader never sees half of it). */
export function writeAddressBookFile(file: string, book: AddressBook): void {
  writeJsonFile(file, book);
}

/** Writes a JSON file through a temporary file and a rename. */
export function writeJsonFile(file: string, value: unknown): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temporary, file);
}
