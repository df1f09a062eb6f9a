/**
 * The DataStore keys of keys.ts (and contracts/GmxKeys.sol, which gmx.test.ts reads through them) against GMX's
 * published derivation: the values `@gmx-io/sdk` 1.4.0's configs/dataStore gives for GMX's Arbitrum WETH/USDC market
 * token and WETH (computed with the package, pinned here), and the pool-divisor convention of a single-token market.
 */
import { describe, expect, it } from 'vitest';
import { GMX_KEYS } from './keys.js';
import { gmxPrice, syntheticAddress } from './section.js';

const MARKET = '0x70d95587d40A2caf56bd97485aB3Eec10Bee6336';
const WETH = '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1';

describe('GMX v2 DataStore keys', () => {
  it.each([
    ['MARKET_LIST', GMX_KEYS.MARKET_LIST, '0xcdac201abd09598973b1365dbbaeb65ff0f370d30bb5c7440dc3341f570b2e38'],
    [
      'openInterestKey(market, WETH, true)',
      GMX_KEYS.openInterest(MARKET, WETH, true),
      '0x39b1ba9baf45e2c11e202da432a2c21fa5d136cc112015896e024c20c339a6ea',
    ],
    [
      'openInterestInTokensKey(market, WETH, false)',
      GMX_KEYS.openInterestInTokens(MARKET, WETH, false),
      '0x2d362c965a171fc310ec6aeaddf9af5a996e26ad79dc0010675dc6808889eeef',
    ],
    [
      'poolAmountKey(market, WETH)',
      GMX_KEYS.poolAmount(MARKET, WETH),
      '0xff0b4cfe8dcdf388c21daa548b07a401cf7ee7c64087f47b0849009486ba0af4',
    ],
    [
      'cumulativeBorrowingFactorKey(market, false)',
      GMX_KEYS.cumulativeBorrowingFactor(MARKET, false),
      '0x8c7707e65d7a74337dac7e6d5f40579792af72ffc61d3b1fa0f212ac636377c2',
    ],
    [
      'maxOpenInterestKey(market, true)',
      GMX_KEYS.maxOpenInterest(MARKET, true),
      '0x4c8ff2fed94b668a66292ecb4056bb24b1de2ac1eaea0f8b38e6d815a3fe21de',
    ],
  ])('%s is the SDK’s', (_name, ours, sdk) => {
    expect(ours).toBe(sdk);
  });

  it.each([
    // price USD, decimals, the 30-decimal price per raw unit
    [3000, 18, 3000n * 10n ** 12n],
    [1, 6, 10n ** 24n],
    [60000, 8, 60000n * 10n ** 22n],
    [0.00001, 18, 10n ** 7n],
  ])('prices %s USD at %s decimals as GMX: price × 10^(30 − decimals)', (usd, decimals, expected) => {
    const p = gmxPrice(usd, decimals);
    expect(p.mid).toBe(expected);
    expect(p.min).toBe((expected * 9_999n) / 10_000n);
    expect(p.max).toBe((expected * 10_001n) / 10_000n);
  });

  it('gives a synthetic index token a fixed pseudo-address', () => {
    expect(syntheticAddress('BTC')).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(syntheticAddress('BTC')).toBe(syntheticAddress('BTC'));
    expect(syntheticAddress('BTC')).not.toBe(syntheticAddress('DOGE'));
  });
});
