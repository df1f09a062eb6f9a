import { optimismTokens as O, ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

/** Synthetix Perps V2 on Optimism (markets quoted in sUSD, named `<ASSET>-USD`). */
export const synthetix: ProtocolEntry = {
  id: 'synthetix',
  name: 'Synthetix',
  website: 'https://synthetix.io',
  token: T.SNX,
  derivatives: {
    chain: 'optimism',
    version: 'V2',
    pairs: [
      'ETH-USD',
      'BTC-USD',
      'LINK-USD',
      'SOL-USD',
      'AVAX-USD',
      'AAVE-USD',
      'UNI-USD',
      'MATIC-USD',
      'ATOM-USD',
      'DOGE-USD',
      'OP-USD',
      'ARB-USD',
      'APE-USD',
      'DYDX-USD',
      'BNB-USD',
      'FTM-USD',
      'NEAR-USD',
      'LTC-USD',
      'XRP-USD',
      'ADA-USD',
      'INJ-USD',
      'SUI-USD',
      'XAU-USD',
      'XAG-USD',
      'EUR-USD',
    ],
  },
  security: {
    chains: ['ethereum', 'optimism'],
    contracts: [
      { chain: 'ethereum', name: 'AddressResolver', address: '0x823bE81bbF96BEc0e25CA13170F5AaCb5B79ba83' },
      { chain: 'ethereum', name: 'SNX (ProxyERC20)', address: T.SNX.address },
      { chain: 'ethereum', name: 'sUSD (ProxyERC20)', address: T.sUSD.address },
      { chain: 'optimism', name: 'AddressResolver', address: '0x95A6a3f44a70172E7d50a9e28c85Dfd712756B8C' },
      { chain: 'optimism', name: 'SNX (ProxyERC20)', address: O.SNX.address },
      { chain: 'optimism', name: 'sUSD (ProxyERC20)', address: O.sUSD.address },
    ],
  },
  github: { orgs: ['Synthetixio'], repos: [] },
  social: { discord: 'synthetix', reddit: 'synthetix' },
};
