import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

/** SparkLend, the Aave V3 fork of the Maker ecosystem (not in the legacy social list: no social ids). */
export const spark: ProtocolEntry = {
  id: 'spark',
  name: 'Spark',
  website: 'https://spark.fi',
  lending: [
    {
      chain: 'ethereum',
      version: 'V1',
      baseAsset: 'DAI',
      marketName: 'SparkLend Ethereum',
      design: 'aave-v3',
      poolAddress: '0xC13e21B648A5Ee794902342038FF3aDAB66BE987',
      assets: [T.DAI, T.sDAI, T.USDC, T.WETH, T.wstETH, T.rETH, T.WBTC, T.GNO],
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'Pool', address: '0xC13e21B648A5Ee794902342038FF3aDAB66BE987' },
      { chain: 'ethereum', name: 'PoolAddressesProvider', address: '0x02C3eA4e34C0cBd694D2adFa2c690EECbC1793eE' },
    ],
  },
  github: { orgs: ['sparkdotfi'], repos: [] },
};
