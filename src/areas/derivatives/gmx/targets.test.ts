import { describe, expect, it } from 'vitest';
import { addressBookFromRegistry, EMPTY_BOOK } from '../../../registry/address-book.js';
import { registry } from '../../../registry/index.js';
import { SourceMap } from '../../../sources/index.js';
import { gmxTargets } from './targets.js';

/** An EVM source map that has exactly these chains (targets only ask `has`). */
const evmWith = (chains: string[]) => new SourceMap({ evm: { has: (c: string) => chains.includes(c) } as never });

describe('gmxTargets', () => {
  it('reads the registry’s gmx-v2 venue at the address book’s DataStore and EventEmitter', () => {
    const book = addressBookFromRegistry(registry, ['arbitrum']);
    const targets = gmxTargets({ registry, book, sources: evmWith(['arbitrum']) });
    expect(targets).toEqual([
      expect.objectContaining({
        protocol: 'gmx',
        chain: 'arbitrum',
        version: 'V2',
        dataStore: '0xfd70de6b91282d8017aa4e741e9ae325cab992d8',
        eventEmitter: '0xc8ee91a54287db53897056e12d9819156d3822fb',
      }),
    ]);
    expect(targets[0]!.pairs).toContain('ETH-USD');
  });

  it.each([
    ['no EVM source for the chain', addressBookFromRegistry(registry, ['arbitrum']), evmWith(['ethereum'])],
    ['no book entries', EMPTY_BOOK, evmWith(['arbitrum'])],
  ])('has none with %s', (_, book, sources) => {
    expect(gmxTargets({ registry, book, sources })).toEqual([]);
  });
});
