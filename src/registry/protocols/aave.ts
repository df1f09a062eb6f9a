import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const aave: ProtocolEntry = {
  id: 'aave',
  name: 'Aave',
  website: 'https://aave.com',
  token: T.AAVE,
  tokenomics: {
    // The AAVE proxy's creation (2020-10-02): https://etherscan.io/address/0x7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9
    // (block 10926829, also the start block Compound's and others' indexers use for AAVE).
    deployedBlock: 10926829,
    labels: [
      {
        address: '0x25F2226B597E8F9514B3F68F00f494cF4f286491',
        category: 'treasury',
        kind: 'reserve',
        label: 'ecosystem-reserve',
        source: 'https://github.com/bgd-labs/aave-address-book/blob/main/src/ts/AaveMisc.ts (ECOSYSTEM_RESERVE)',
      },
      {
        address: '0x464C71f6c2F760DdA6093dCB91C24c39e5d6e18c',
        category: 'treasury',
        kind: 'reserve',
        label: 'collector',
        source:
          "https://etherscan.io/address/0x464C71f6c2F760DdA6093dCB91C24c39e5d6e18c ('Aave: Treasury Collector V2'); Aave's deployment scripts name it V2_COLLECTOR",
      },
    ],
    // Aavenomics: of the 16,000,000 AAVE, 13,000,000 redeemable by LEND holders (100 LEND for 1 AAVE) and 3,000,000
    // in the Aave Ecosystem Reserve.
    declaration: {
      sourceKind: 'project',
      source: 'https://github.com/aave/aavenomics/blob/master/README.md (Token Migration)',
      allocations: [
        {
          category: 'community',
          label: 'lend-migration',
          amount: '13000000',
          unlock: { kind: 'cliff', at: '2020-10-02T00:00:00Z' },
          assumptions: ['Redeemable by LEND holders from the migration’s opening (the token’s deployment day)'],
        },
        {
          category: 'treasury',
          label: 'ecosystem-reserve',
          amount: '3000000',
          unlock: null,
          assumptions: ['Released by governance, on no published schedule'],
        },
      ],
    },
  },
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
