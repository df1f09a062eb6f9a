import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const curve: ProtocolEntry = {
  id: 'curve',
  name: 'Curve',
  website: 'https://curve.fi',
  token: T.CRV,
  dex: [
    {
      chain: 'ethereum',
      version: 'V3',
      exchangeName: 'Curve.fi',
      design: 'curve',
      // Curve's AddressProvider: the registry from which pools are discovered.
      factory: '0x0000000022D53366457F9d5E68Ec105046FC4383',
      pools: [
        { address: '0xbEbc44782C7dB0a1A60Cb6fe97d0b483032FF1C7', tokens: ['DAI', 'USDC', 'USDT'] },
        { address: '0xDC24316b9AE028F1497c275EB9192a3Ea0f67022', tokens: ['ETH', 'stETH'] },
        { address: '0xD51a44d3FaE010294C616388b506AcdA1bfAAE46', tokens: ['USDT', 'WBTC', 'WETH'] },
        { address: '0xa1F8A6807c402E4A15ef4EBa36528A3FED24E577', tokens: ['ETH', 'frxETH'] },
      ],
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'AddressProvider', address: '0x0000000022D53366457F9d5E68Ec105046FC4383' },
      { chain: 'ethereum', name: '3pool', address: '0xbEbc44782C7dB0a1A60Cb6fe97d0b483032FF1C7' },
      { chain: 'ethereum', name: 'stETH/ETH pool', address: '0xDC24316b9AE028F1497c275EB9192a3Ea0f67022' },
      { chain: 'ethereum', name: 'GaugeController', address: '0x2F50D538606Fa9EDD2B11E2446BEb18C9D5846bB' },
      { chain: 'ethereum', name: 'VotingEscrow (veCRV)', address: '0x5f3b5DfEb7B28CDbD7FAba78963EE202a494e2A2' },
      { chain: 'ethereum', name: 'CRV token', address: T.CRV.address },
    ],
  },
  github: { orgs: ['curvefi'], repos: [] },
  social: { discord: 'curve', reddit: 'curve' },
};
