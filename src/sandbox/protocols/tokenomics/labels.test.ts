import { describe, expect, it } from 'vitest';
import { bookKey } from '../../../registry/address-book.js';
import { CEX_VENUES } from '../../standins/coingecko/world.js';
import type { ManifestTokenomicsHolder, WorldManifest } from '../../world/manifest.js';
import { EXCHANGES, exchangeLabel } from './plan.js';
import { tokenomics } from './protocol.js';

/** The venues a label names by the tokenomics area's rule (identifier or name, or identifier-dash-slug). */
const named = (label: string) =>
  CEX_VENUES.filter(
    (v) => label === v.id || label.toLowerCase() === v.name.toLowerCase() || label.startsWith(`${v.id}-`),
  ).map((v) => v.id);

describe("the sandbox's exchange wallet labels", () => {
  it("each names exactly one of the CoinGecko stand-in's venues, a different one", () => {
    const venues = EXCHANGES.map((e) => named(e.label));
    expect(venues).toEqual([['sandbox_binance'], ['sandbox_coinbase'], ['sandbox_kraken']]);
    // The former labels named none.
    expect(EXCHANGES.flatMap((e) => named(e.formerly))).toEqual([]);
  });

  it("renames a saved world's former labels in the address book, same wallets; other labels stay", () => {
    expect(exchangeLabel('binance-hot-1')).toBe('sandbox_binance-hot-1');
    expect(exchangeLabel('sandbox_kraken-hot-1')).toBe('sandbox_kraken-hot-1');
    expect(exchangeLabel('team-1')).toBe('team-1');
    const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as const;
    const holders: ManifestTokenomicsHolder[] = [
      ...EXCHANGES.map((e, i) => ({
        address: address(0xa0 + i),
        category: 'exchange' as const,
        kind: 'eoa' as const,
        label: e.formerly,
        amount: '1',
      })),
      // A label that is some former exchange label but of another category is not renamed.
      { address: address(0xb0), category: 'team', kind: 'eoa', label: 'binance-hot-1', amount: '1' },
    ];
    const manifest = {
      genesisTimestamp: 1_700_000_000,
      tokenomics: {
        startBlock: 1,
        tokens: [
          {
            symbol: 'AAVE',
            protocol: 'aave',
            address: address(0xff),
            standard: 'oz-fixed-supply',
            totalSupply: '4',
            issuer: address(0xee),
            holders,
          },
        ],
      },
    } as unknown as WorldManifest;
    const book = { entries: {}, tokens: {}, declarations: {} } as Parameters<
      NonNullable<typeof tokenomics.addressBook>
    >[1];
    tokenomics.addressBook!(manifest, book);
    expect(book.entries).toEqual({
      [bookKey.tokenomics('aave', 'exchange', 'eoa', 'sandbox_binance-hot-1')]: { address: address(0xa0) },
      [bookKey.tokenomics('aave', 'exchange', 'eoa', 'sandbox_coinbase-hot-1')]: { address: address(0xa1) },
      [bookKey.tokenomics('aave', 'exchange', 'eoa', 'sandbox_kraken-hot-1')]: { address: address(0xa2) },
      [bookKey.tokenomics('aave', 'team', 'eoa', 'binance-hot-1')]: { address: address(0xb0) },
    });
  });
});
