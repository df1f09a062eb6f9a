import { describe, expect, it } from 'vitest';
import {
  KEY,
  marketPropertyKey,
  maxOpenInterestKey,
  openInterestInTokensKey,
  openInterestKey,
  poolAmountKey,
  savedFundingFactorPerSecondKey,
} from './keys.js';

// GMX v2's ETH/USD market on Arbitrum, WETH and USDC: the vectors below are the outputs of @gmx-io/sdk 1.4.0's
// `configs/dataStore` (openInterestKey, openInterestInTokensKey, poolAmountKey, maxOpenInterestKey, MARKET_LIST_KEY)
// for these arguments, run once by hand; addresses in either case give the same key.
const MARKET = '0x70d95587d40A2caf56bd97485aB3Eec10Bee6336';
const WETH = '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1';
const USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';

describe('GMX DataStore keys (Keys.sol)', () => {
  it.each([
    ['MARKET_LIST', KEY.MARKET_LIST, '0xcdac201abd09598973b1365dbbaeb65ff0f370d30bb5c7440dc3341f570b2e38'],
    ['OPEN_INTEREST', KEY.OPEN_INTEREST, '0x4259c04608de5df0fa0e375507d66e8ffc81773c9f3dd501a181cbb349ae4fe0'],
    [
      'openInterestKey(ETH/USD, WETH, long)',
      openInterestKey(MARKET, WETH, true),
      '0x39b1ba9baf45e2c11e202da432a2c21fa5d136cc112015896e024c20c339a6ea',
    ],
    [
      'openInterestInTokensKey(ETH/USD, USDC, short)',
      openInterestInTokensKey(MARKET.toLowerCase(), USDC.toLowerCase(), false),
      '0xb2e38bb49cdd8a464a80bc33b668e72c105d3fee146c9b26d644cdbd22ed7dff',
    ],
    [
      'poolAmountKey(ETH/USD, WETH)',
      poolAmountKey(MARKET, WETH),
      '0xff0b4cfe8dcdf388c21daa548b07a401cf7ee7c64087f47b0849009486ba0af4',
    ],
    [
      'maxOpenInterestKey(ETH/USD, long)',
      maxOpenInterestKey(MARKET, true),
      '0x4c8ff2fed94b668a66292ecb4056bb24b1de2ac1eaea0f8b38e6d815a3fe21de',
    ],
    [
      'savedFundingFactorPerSecondKey(ETH/USD)',
      savedFundingFactorPerSecondKey(MARKET),
      '0x2e710b6b808edef5b63f223b8a7d869c0342fdbcc6859a53637f549caca27386',
    ],
  ])('%s', (_, key, expected) => {
    expect(key).toBe(expected);
  });

  it('keys differ by side and collateral, and market properties by property', () => {
    const keys = [
      openInterestKey(MARKET, WETH, true),
      openInterestKey(MARKET, WETH, false),
      openInterestKey(MARKET, USDC, true),
      openInterestInTokensKey(MARKET, WETH, true),
      marketPropertyKey(MARKET, 'INDEX_TOKEN'),
      marketPropertyKey(MARKET, 'LONG_TOKEN'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
