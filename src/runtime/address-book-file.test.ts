import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configWith, loadConfig } from '../config/index.js';
import { type AddressBook, addressBookFromRegistry } from '../registry/address-book.js';
import { registry } from '../registry/index.js';
import { readAddressBookFile, writeAddressBookFile } from './address-book-file.js';
import { registryBook } from './sources.js';

const dir = mkdtempSync(path.join(tmpdir(), 'book-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const book: AddressBook = {
  origin: 'sandbox',
  chains: {
    ethereum: {
      chainId: 31337,
      tokens: { WETH: { address: `0x${'2'.repeat(40)}`, decimals: 18 } },
      entries: { 'dex/uniswap/V3': { address: `0x${'a'.repeat(40)}` } },
      declarations: {
        uniswap: {
          sourceKind: 'sandbox',
          source: 'sandbox world: the UNI genesis distribution',
          allocations: [
            {
              category: 'team',
              label: 'team-1',
              amount: '127596000',
              unlock: { kind: 'linear', start: '2023-11-14T22:00:00Z', end: '2023-12-14T22:00:00Z' },
              assumptions: [],
            },
          ],
        },
      },
    },
  },
};

describe('ADDRESS_BOOK_FILE', () => {
  it('is the book a process reads instead of the registry', () => {
    const file = path.join(dir, 'book.json');
    writeAddressBookFile(file, book);
    expect(readAddressBookFile(file)).toEqual(book);
    const config = loadConfig({ RPC_URL_ETHEREUM: 'http://127.0.0.1:1', DATA_DIR: dir });
    expect(registryBook(config).origin).toBe('registry');
    expect(registryBook(configWith(config, { ADDRESS_BOOK_FILE: file }))).toEqual(book);
  });

  it('refuses a file that is not a book, naming the key', () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        origin: 'sandbox',
        chains: { ethereum: { chainId: 1, tokens: {}, entries: { x: { address: 'nope' } } } },
      }),
    );
    expect(() => readAddressBookFile(bad)).toThrow(/ADDRESS_BOOK_FILE.*not an address book/);
    const ethereum = book.chains.ethereum!;
    const declaration = ethereum.declarations!.uniswap!;
    const badAllocation = { ...declaration.allocations[0]!, amount: '1e9' };
    writeFileSync(
      bad,
      JSON.stringify({
        ...book,
        chains: {
          ethereum: { ...ethereum, declarations: { uniswap: { ...declaration, allocations: [badAllocation] } } },
        },
      }),
    );
    expect(() => readAddressBookFile(bad)).toThrow(/not an address book \(\/chains\/ethereum\/declarations/);
    writeFileSync(bad, '{');
    expect(() => readAddressBookFile(bad)).toThrow(/ADDRESS_BOOK_FILE.*not valid JSON/);
    expect(() => readAddressBookFile(path.join(dir, 'missing.json'))).toThrow(/ADDRESS_BOOK_FILE.*ENOENT/);
  });

  it("reads back the registry's own book, declarations included", () => {
    const file = path.join(dir, 'registry.json');
    const own = addressBookFromRegistry(registry, ['ethereum']);
    writeAddressBookFile(file, own);
    expect(readAddressBookFile(file)).toEqual(JSON.parse(JSON.stringify(own)));
  });
});
