import type { ProtocolEntry } from '../types.js';

export const swaap: ProtocolEntry = {
  id: 'swaap',
  name: 'Swaap Protocol',
  website: 'https://www.swaap.finance',
  dex: [
    {
      chain: 'ethereum',
      version: 'V2',
      exchangeName: 'Swaap',
      design: 'swaap-v2',
      // Swaap V2 Vault (a Balancer V2 Vault fork; pools register there).
      factory: '0xd315a9C38eC871068FEC378E4Ce78AF528C76293',
      pools: [],
    },
  ],
  github: { orgs: ['swaap-labs'], repos: [] },
  social: { discord: 'swaap', reddit: 'swaap' },
};
