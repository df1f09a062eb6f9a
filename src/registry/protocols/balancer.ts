import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const balancer: ProtocolEntry = {
  id: 'balancer',
  name: 'Balancer',
  website: 'https://balancer.fi',
  token: T.BAL,
  dex: [
    {
      chain: 'ethereum',
      version: 'V2',
      exchangeName: 'Balancer',
      design: 'balancer-v2',
      // The Vault: every V2 pool registers there.
      factory: '0xBA12222222228d8Ba445958a75a0704d566BF2C8',
      startBlock: 12272146,
      pools: [
        { address: '0x5c6Ee304399DBdB9C8Ef030aB642B10820DB8F56', tokens: ['BAL', 'WETH'] },
        { address: '0x32296969Ef14EB0c6d29669C550D4a0449130230', tokens: ['wstETH', 'WETH'] },
        { address: '0x93d199263632a4EF4Bb438F1feB99e57b4b5f0BD', tokens: ['wstETH', 'WETH'] },
      ],
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'Vault', address: '0xBA12222222228d8Ba445958a75a0704d566BF2C8' },
      { chain: 'ethereum', name: 'Authorizer', address: '0xA331D84eC860Bf466b4CdCcFb4aC09a1B43F3aE6' },
      { chain: 'ethereum', name: 'VotingEscrow (veBAL)', address: '0xC128a9954e6c874eA3d62ce62B468bA073093F25' },
      { chain: 'ethereum', name: 'BAL token', address: T.BAL.address },
    ],
  },
  github: { orgs: ['balancer'], repos: [] },
  social: { discord: 'balancer', reddit: 'balancer' },
};
