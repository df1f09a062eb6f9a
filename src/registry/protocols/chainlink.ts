import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const chainlink: ProtocolEntry = {
  id: 'chainlink',
  name: 'Chainlink',
  website: 'https://chain.link',
  token: T.LINK,
  tokenomics: {
    // LINK's creation, 2017-09-16: https://etherscan.io/tx/0x5488510df045770efbff57f25d0c6d2c1404d58c1199b21eb8dc5072b22d91d7
    deployedBlock: 4281611,
    // No published source of Chainlink's lists its non-circulating wallets: none are labelled here (the bridges' L1
    // escrows and the DEX pools are, by the tokenomics area).
    labels: [],
    // 35 % sold in the 2017 token sale, 35 % for node operators and the ecosystem, 30 % to the company. Chainlink Labs
    // published no allocation page of its own that this registry found: the source is a third party's account.
    declaration: {
      sourceKind: 'secondary',
      source:
        'https://wiki.dextrac.com:3443/index.php?title=The_Link_token (Chainlink Community Wiki, "ICO and token allocation")',
      allocations: [
        {
          category: 'investors',
          label: 'token-sale',
          amount: '350000000',
          unlock: { kind: 'cliff', at: '2017-09-19T00:00:00Z' },
          assumptions: [
            'Sold in the September 2017 token sale and transferable from it (the sale’s day stands for it)',
          ],
        },
        {
          category: 'community',
          label: 'node-operators',
          amount: '350000000',
          unlock: null,
          assumptions: ['Held in reserve for node operators and the ecosystem, on no published schedule'],
        },
        {
          category: 'team',
          label: 'company',
          amount: '300000000',
          unlock: null,
          assumptions: ['Held by the company for development, on no published schedule'],
        },
      ],
    },
  },
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
