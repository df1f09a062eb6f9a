import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const compound: ProtocolEntry = {
  id: 'compound',
  name: 'Compound',
  website: 'https://compound.finance',
  token: T.COMP,
  lending: [
    {
      chain: 'ethereum',
      version: 'V3',
      // ETH market: the base token on chain is WETH (the WETH/ETH rule of registry.test.ts).
      baseAsset: 'ETH',
      marketName: 'Ethereum ETH Market',
      design: 'compound-v3',
      poolAddress: '0xA17581A9E3356d9A858b789D68B4d866e593aE94',
      assets: [T.WETH, T.wstETH, T.cbETH, T.rETH],
      startBlock: 16400710,
    },
    {
      chain: 'ethereum',
      version: 'V3',
      baseAsset: 'USDC',
      marketName: 'Ethereum USDC Market',
      design: 'compound-v3',
      poolAddress: '0xc3d688B66703497DAA19211EEdff47f25384cdc3',
      assets: [T.USDC, T.WETH, T.WBTC, T.LINK, T.COMP, T.UNI],
      startBlock: 15331586,
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'cUSDCv3 (Comet)', address: '0xc3d688B66703497DAA19211EEdff47f25384cdc3' },
      { chain: 'ethereum', name: 'cWETHv3 (Comet)', address: '0xA17581A9E3356d9A858b789D68B4d866e593aE94' },
      { chain: 'ethereum', name: 'Configurator (V3)', address: '0x316f9708bB98af7dA9c68C1C3b5e79039cD336E3' },
      { chain: 'ethereum', name: 'Comptroller (V2)', address: '0x3d9819210A31b4961b30EF54bE2aeD79B9c9Cd3B' },
      { chain: 'ethereum', name: 'GovernorBravo', address: '0xc0Da02939E1441F497fd74F78cE7Decb17B66529' },
      { chain: 'ethereum', name: 'Timelock', address: '0x6d903f6003cca6255D85CcA4D3B5E5146dC33925' },
    ],
  },
  github: { orgs: ['compound-finance'], repos: [] },
  social: { discord: 'compound', reddit: 'compound' },
};
