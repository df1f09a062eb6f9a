import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const lido: ProtocolEntry = {
  id: 'lido',
  name: 'Lido',
  website: 'https://lido.fi',
  token: T.LDO,
  liquidStaking: {
    token: T.wstETH,
    underlying: T.WETH,
    lendingExposure: [
      { chain: 'ethereum', protocol: 'aave', version: 'V3', baseAsset: 'USDC' },
      { chain: 'ethereum', protocol: 'compound', version: 'V3', baseAsset: 'ETH' },
    ],
    dexExposure: [
      { chain: 'ethereum', protocol: 'curve', version: 'V3', pools: ['0xDC24316b9AE028F1497c275EB9192a3Ea0f67022'] },
    ],
  },
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'stETH (Lido)', address: T.stETH.address },
      { chain: 'ethereum', name: 'wstETH', address: T.wstETH.address },
      { chain: 'ethereum', name: 'WithdrawalQueueERC721', address: '0x889edC2eDab5f40e902b864aD4d7AdE8E412F9B1' },
      { chain: 'ethereum', name: 'Aragon Agent', address: '0x3e40D73EB977Dc6a537aF587D48316feE66E9C8c' },
      { chain: 'ethereum', name: 'Aragon Voting', address: '0x2e59A20f205bB85a89C53f1936454680651E618e' },
    ],
  },
  github: { orgs: ['lidofinance'], repos: [] },
  social: { discord: 'lido', reddit: 'lido' },
};
