import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const aave: ProtocolEntry = {
  id: 'aave',
  name: 'Aave',
  website: 'https://aave.com',
  token: T.AAVE,
  lending: [
    {
      chain: 'ethereum',
      version: 'V3',
      // The legacy API names Aave's Ethereum market by USDC.
      baseAsset: 'USDC',
      marketName: 'Ethereum Market',
      design: 'aave-v3',
      poolAddress: '0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2',
      assets: [T.USDC, T.USDT, T.DAI, T.WETH, T.WBTC, T.wstETH, T.LINK],
      startBlock: 16291127,
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'Pool (V3)', address: '0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2' },
      { chain: 'ethereum', name: 'PoolAddressesProvider (V3)', address: '0x2f39d218133AFaB8F2B819B1066c7E434Ad94E9e' },
      { chain: 'ethereum', name: 'PoolConfigurator (V3)', address: '0x64b761D848206f447Fe2dd461b0c635Ec39EbB27' },
      { chain: 'ethereum', name: 'AaveOracle (V3)', address: '0x54586bE62E3c3580375aE3723C145253060Ca0C2' },
      { chain: 'ethereum', name: 'LendingPool (V2)', address: '0x7d2768dE32b0b80b7a3454c06BdAc94A69DDc7A9' },
      { chain: 'ethereum', name: 'AAVE token', address: T.AAVE.address },
    ],
  },
  github: { orgs: ['aave'], repos: [] },
  social: { discord: 'aave', reddit: 'aave' },
};
