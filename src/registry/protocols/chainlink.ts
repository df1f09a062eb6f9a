import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const chainlink: ProtocolEntry = {
  id: 'chainlink',
  name: 'Chainlink',
  website: 'https://chain.link',
  token: T.LINK,
  oracle: {
    // Aggregator proxies (EACAggregatorProxy) of the Ethereum mainnet price feeds.
    feeds: [
      {
        pair: 'ETH-USD',
        chain: 'ethereum',
        address: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419',
        heartbeatSeconds: 3600,
        deviationThresholdPct: 0.5,
      },
      {
        pair: 'BTC-USD',
        chain: 'ethereum',
        address: '0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c',
        heartbeatSeconds: 3600,
        deviationThresholdPct: 0.5,
      },
      {
        pair: 'USDC-USD',
        chain: 'ethereum',
        address: '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6',
        heartbeatSeconds: 86400,
        deviationThresholdPct: 0.25,
      },
      {
        pair: 'DAI-USD',
        chain: 'ethereum',
        address: '0xAed0c38402a5d19df6E4c03F4E2DceD6e29c1ee9',
        heartbeatSeconds: 3600,
        deviationThresholdPct: 0.25,
      },
      {
        pair: 'USDT-USD',
        chain: 'ethereum',
        address: '0x3E7d1eAB13ad0104d2750B8863b489D65364e32D',
        heartbeatSeconds: 86400,
        deviationThresholdPct: 0.25,
      },
      {
        pair: 'LINK-USD',
        chain: 'ethereum',
        address: '0x2c1d072e956AFFC0D435Cb7AC38EF18d24d9127c',
        heartbeatSeconds: 3600,
        deviationThresholdPct: 0.5,
      },
      {
        pair: 'STETH-USD',
        chain: 'ethereum',
        address: '0xCfE54B5cD566aB89272946F602D76Ea879CAb4a8',
        heartbeatSeconds: 3600,
        deviationThresholdPct: 1,
      },
    ],
  },
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'LINK token', address: T.LINK.address },
      { chain: 'ethereum', name: 'ETH / USD aggregator proxy', address: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419' },
      { chain: 'ethereum', name: 'BTC / USD aggregator proxy', address: '0xF4030086522a5bEEa4988F8cA5B36dbC97BeE88c' },
    ],
  },
  github: { orgs: ['smartcontractkit'], repos: [] },
  social: { discord: 'chainlink', reddit: 'chainlink' },
};
