import { arbitrumTokens as A } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

/** GMX V2 (GMX Synthetics) markets on Arbitrum: GM pools are the DEX pools, their index tokens the perps pairs. */
export const gmx: ProtocolEntry = {
  id: 'gmx',
  name: 'GMX',
  website: 'https://gmx.io',
  token: A.GMX,
  dex: [
    {
      chain: 'arbitrum',
      version: 'V2',
      exchangeName: 'GMX',
      design: 'gmx-v2',
      // DataStore: the V2 registry in which every market is listed.
      factory: '0xFD70de6b91282D8017aA4E741e9Ae325CAb992d8',
      // GM market tokens `[long token, short token]`.
      pools: [
        { address: '0x70d95587d40A2caf56bd97485aB3Eec10Bee6336', tokens: ['WETH', 'USDC'] },
        { address: '0x47c031236e19d024b42f8AE6780E44A573170703', tokens: ['WBTC', 'USDC'] },
        { address: '0xC25cEf6061Cf5dE5eb761b50E4743c1F5D7E5407', tokens: ['ARB', 'USDC'] },
        { address: '0x7f1fa204bb700853D36994DA19F830b6Ad18455C', tokens: ['LINK', 'USDC'] },
        { address: '0x09400D9DB990D5ed3f35D7be61DfAEB900Af03C9', tokens: ['SOL', 'USDC'] },
      ],
    },
  ],
  derivatives: {
    chain: 'arbitrum',
    version: 'V2',
    venue: {
      design: 'gmx-v2',
      dataStore: '0xFD70de6b91282D8017aA4E741e9Ae325CAb992d8',
      eventEmitter: '0xC8ee91A54287DB53897056e12D9819156D3822Fb',
    },
    // Index tokens of GMX v2's Arbitrum markets (gmx-synthetics config/markets.ts); ETH-USD aggregates the WETH-USDC
    // and the WETH-only markets. The venue's figures cover every market, these pairs or not.
    pairs: [
      'ETH-USD',
      'BTC-USD',
      'ARB-USD',
      'LINK-USD',
      'SOL-USD',
      'UNI-USD',
      'DOGE-USD',
      'LTC-USD',
      'XRP-USD',
      'BNB-USD',
      'AAVE-USD',
      'AVAX-USD',
      'ATOM-USD',
      'NEAR-USD',
      'OP-USD',
    ],
  },
  security: {
    chains: ['arbitrum'],
    contracts: [
      { chain: 'arbitrum', name: 'DataStore (V2)', address: '0xFD70de6b91282D8017aA4E741e9Ae325CAb992d8' },
      { chain: 'arbitrum', name: 'RoleStore (V2)', address: '0x3c3d99FD298f679DBC2CEcd132b4eC4d0F5e6e72' },
      { chain: 'arbitrum', name: 'EventEmitter (V2)', address: '0xC8ee91A54287DB53897056e12D9819156D3822Fb' },
      { chain: 'arbitrum', name: 'Vault (V1)', address: '0x489ee077994B6658eAfA855C308275EAd8097C4A' },
      { chain: 'arbitrum', name: 'GMX token', address: A.GMX.address },
    ],
  },
  github: { orgs: ['gmx-io'], repos: [] },
  social: { discord: 'gmx', reddit: 'gmx' },
};
