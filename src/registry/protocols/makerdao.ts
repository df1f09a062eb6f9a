import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const makerdao: ProtocolEntry = {
  id: 'makerdao',
  name: 'MakerDAO',
  website: 'https://makerdao.com',
  token: T.MKR,
  stablecoin: {
    token: T.DAI,
    chains: ['ethereum'],
    collaterals: [T.WETH, T.WBTC, T.wstETH, T.USDC],
    // The Chainlog names every MCD contract (MCD_VAT, MCD_DAI, ILK_REGISTRY, MCD_PSM_*…); the Vat's deployment
    // block (MCD launch, Nov 2019) bounds a complete replay of its LogNote logs: ingestion starts just below it.
    entryPoint: { design: 'maker-mcd', address: '0x9eF05f7F6deB616fd37aC3c959a2dDD25A54E4F5', startBlock: 8_928_000 },
  },
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'Vat', address: '0x35D1b3F3D7966A1DFe207aa4514C12a259A0492B' },
      { chain: 'ethereum', name: 'Dog', address: '0x135954d155898D42C90D2a57824C690e0c7BEf1B' },
      { chain: 'ethereum', name: 'Jug', address: '0x19c0976f590D67707E62397C87829d896Dc0f1F1' },
      { chain: 'ethereum', name: 'Pot', address: '0x197E90f9FAD81970bA7976f33CbD77088E5D7cf7' },
      { chain: 'ethereum', name: 'Spotter', address: '0x65C79fcB50Ca1594B025960e539eD7A9a6D434A3' },
      { chain: 'ethereum', name: 'DaiJoin', address: '0x9759A6Ac90977b93B58547b4A71c78317f391A28' },
      { chain: 'ethereum', name: 'ETH-A join', address: '0x2F0b23f53734252Bda2277357e97e1517d6B042A' },
      { chain: 'ethereum', name: 'PSM USDC-A', address: '0x89B78CfA322F6C5dE0aBcEecab66Aee45393cC5A' },
      { chain: 'ethereum', name: 'Chainlog', address: '0x9eF05f7F6deB616fd37aC3c959a2dDD25A54E4F5' },
      { chain: 'ethereum', name: 'DAI token', address: T.DAI.address },
    ],
  },
  github: { orgs: ['makerdao'], repos: [] },
  social: { discord: 'makerdao', reddit: 'makerdao' },
};
