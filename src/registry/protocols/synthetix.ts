import { optimismTokens as O, ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

/**
 * Synthetix's perpetuals exchange on Ethereum mainnet (its fourth version: an off-chain order book settling on
 * Ethereum), read through its info API (`POST /v1/info`, SYNTHETIX_API_URL). The legacy API served Perps V2 on
 * Optimism, which Synthetix wound down for this exchange. Its markets are named `<BASE>-USDT`; the pairs are
 * `<BASE>-USD` (the listing's `markets` carries the exchange's own symbol). The pairs are the legacy pairs among the
 * markets Synthetix's API documentation names (BTC, ETH, SOL); the venue's figures cover every market it lists.
 */
export const synthetix: ProtocolEntry = {
  id: 'synthetix',
  name: 'Synthetix',
  website: 'https://synthetix.io',
  token: T.SNX,
  derivatives: {
    chain: 'ethereum',
    version: 'V4',
    venue: { design: 'synthetix-exchange' },
    pairs: ['BTC-USD', 'ETH-USD', 'SOL-USD'],
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
