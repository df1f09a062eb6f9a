import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { type AddressBook, addressBookFromRegistry, EMPTY_BOOK } from '../../registry/address-book.js';
import { registry } from '../../registry/index.js';
import { EvmChains } from '../../sources/evm/chains.js';
import { NO_SOURCES, SourceMap } from '../../sources/index.js';
import type { AreaEnv } from '../kit/module.js';
import { stablecoinArea } from './index.js';
import { stablecoinTargets } from './targets.js';

const evm = new EvmChains([{ id: 'ethereum', rpcUrl: 'http://127.0.0.1:1', finalityDepth: 2 }], {
  log: pino({ level: 'silent' }),
});
const env = (book: AddressBook, sources = new SourceMap({ evm })): AreaEnv => ({
  config: loadConfig({ PUBLISH_EVERY_SECONDS: '0' }),
  registry,
  book,
  sources,
});

describe('stablecoin targets and jobs', () => {
  it('reads nothing and has no jobs when the book names no stablecoin entry point (the sandbox without them)', () => {
    const sandboxBook: AddressBook = {
      origin: 'sandbox',
      chains: { ethereum: { chainId: 31337, tokens: { USDC: { address: '0x01', decimals: 6 } }, entries: {} } },
    };
    for (const book of [EMPTY_BOOK, sandboxBook]) {
      expect(stablecoinTargets(env(book))).toEqual([]);
      expect(stablecoinArea.jobs(env(book))).toEqual([]);
    }
    expect(stablecoinArea.jobs(env(addressBookFromRegistry(registry, ['ethereum']), NO_SOURCES))).toEqual([]);
  });

  it('on mainnet: the Chainlog and the TroveManager from the registry, measured against USD stablecoins', () => {
    const book = addressBookFromRegistry(registry, ['ethereum']);
    const targets = stablecoinTargets(env(book));
    expect(targets.map((t) => [t.protocol, t.design, t.entryPoint])).toEqual([
      ['liquity', 'liquity-v1', '0xa39739ef8b0231dbfa0dcda07d7e29faabcf4bb2'],
      ['makerdao', 'maker-mcd', '0x9ef05f7f6deb616fd37ac3c959a2ddd25a54e4f5'],
    ]);
    const maker = targets.find((t) => t.protocol === 'makerdao')!;
    expect(maker.quotes.map((q) => q.symbol)).toEqual(['USDC', 'USDT']);
    expect(targets.find((t) => t.protocol === 'liquity')!.quotes.map((q) => q.symbol)).toEqual(['USDC', 'USDT', 'DAI']);
    expect(maker.wrappedNative).toBe('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
    const jobs = stablecoinArea.jobs(env(book));
    expect(jobs.map((j) => j.name)).toEqual(['stablecoin.ingest', 'stablecoin.compute']);
  });
});
