import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

/**
 * dYdX v4: the perpetuals exchange on dYdX's own chain (Cosmos SDK), read through its indexer and the chain's bank
 * module. The legacy API served dYdX V3 (StarkEx on Ethereum), which stopped trading in 2024; the pairs kept are the
 * legacy ones that are markets of v4 (its genesis markets, `dydxprotocol/v4-chain` `protocol/testing/genesis.sh`;
 * the others are listed in docs/methodology/derivatives.md with why they were dropped). The venue's figures cover
 * every market its indexer lists, these pairs or not.
 */
export const dydx: ProtocolEntry = {
  id: 'dydx',
  name: 'dYdX',
  website: 'https://dydx.exchange',
  token: T.DYDX,
  derivatives: {
    // Its own chain, which is no registry chain: it has no EVM RPC, and its source is the indexer (DYDX_INDEXER_URL).
    chain: 'dydx',
    version: 'V4',
    venue: { design: 'dydx-v4' },
    pairs: [
      'BTC-USD',
      'ETH-USD',
      'LINK-USD',
      'CRV-USD',
      'SOL-USD',
      'ADA-USD',
      'AVAX-USD',
      'FIL-USD',
      'LTC-USD',
      'DOGE-USD',
      'ATOM-USD',
      'DOT-USD',
      'UNI-USD',
      'BCH-USD',
      'NEAR-USD',
      'MKR-USD',
      'XLM-USD',
      'ETC-USD',
      'COMP-USD',
    ],
  },
  security: {
    chains: ['ethereum'],
    contracts: [
      {
        chain: 'ethereum',
        name: 'StarkPerpetual (L2 perpetual)',
        address: '0xD54f502e184B6B739d7D27a6410a67dc462D69c8',
      },
      { chain: 'ethereum', name: 'DydxGovernor', address: '0x7E9B1672616FF6D6629Ef2879419aaE79A9018D2' },
      { chain: 'ethereum', name: 'SafetyModule', address: '0x65f7BA4Ec257AF7c55fd5854E5f6356bBd0fb8EC' },
      { chain: 'ethereum', name: 'DYDX token', address: T.DYDX.address },
    ],
  },
  github: { orgs: ['dydxprotocol'], repos: [] },
  social: { discord: 'dydx', reddit: 'dydx' },
};
