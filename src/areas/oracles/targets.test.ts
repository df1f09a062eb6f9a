import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { registry } from '../../registry/index.js';
import { openSources, registryBook } from '../../runtime/sources.js';
import type { AreaEnv } from '../kit/module.js';
import { oracleTargets } from './targets.js';

describe('the feeds that price liquid staking collateral (issue 13)', () => {
  it('STETH-USD prices wstETH through its exchange rate; ETH-USD prices its underlying', () => {
    const config = loadConfig({ RPC_URL_ETHEREUM: 'https://eth.example/v1' });
    const ctx = { role: 'worker' as const, logger: pino({ level: 'silent' }), labels: new Map() };
    const env: AreaEnv = { config, registry, book: registryBook(config), sources: openSources(config, ctx) };
    const targets = oracleTargets(env);
    expect(targets.find((f) => f.pair === 'STETH-USD')?.pricesCollateral).toEqual([
      {
        protocol: 'lido',
        symbol: 'wstETH',
        token_address: '0x7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0',
        role: 'lst',
        via: 'answer × exchange rate',
      },
    ]);
    expect(targets.find((f) => f.pair === 'ETH-USD')?.pricesCollateral).toMatchObject([
      { protocol: 'lido', symbol: 'WETH', role: 'underlying' },
    ]);
    expect(targets.find((f) => f.pair === 'BTC-USD')?.pricesCollateral).toEqual([]);
  });
});
