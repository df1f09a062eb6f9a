import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const liquity: ProtocolEntry = {
  id: 'liquity',
  name: 'Liquity',
  website: 'https://www.liquity.org',
  token: T.LQTY,
  stablecoin: {
    token: T.LUSD,
    chains: ['ethereum'],
    // Troves hold native ETH; WETH stands for it on chain.
    collaterals: [T.WETH],
    // TroveManager: its getters name the StabilityPool, ActivePool, LUSD token and PriceFeed; deployed in the
    // launch of Apr 2021: ingestion starts just below it, where a complete TroveUpdated replay starts.
    entryPoint: { design: 'liquity-v1', address: '0xA39739EF8b0231DbFA0DcdA07d7e29faAbCf4bb2', startBlock: 12_178_000 },
  },
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'TroveManager', address: '0xA39739EF8b0231DbFA0DcdA07d7e29faAbCf4bb2' },
      { chain: 'ethereum', name: 'BorrowerOperations', address: '0x24179CD81c9e782A4096035f7eC97fB8B783e007' },
      { chain: 'ethereum', name: 'StabilityPool', address: '0x66017D22b0f8556afDd19FC67041899Eb65a21bb' },
      { chain: 'ethereum', name: 'ActivePool', address: '0xDf9Eb223bAFBE5c5271415C75aeCD68C21fE3D7F' },
      { chain: 'ethereum', name: 'LUSD token', address: T.LUSD.address },
    ],
  },
  github: { orgs: ['liquity'], repos: [] },
  social: { discord: 'liquity', reddit: 'liquity' },
};
