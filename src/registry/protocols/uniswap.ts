import { ethereumTokens as T } from '../tokens.js';
import type { ProtocolEntry } from '../types.js';

export const uniswap: ProtocolEntry = {
  id: 'uniswap',
  name: 'Uniswap',
  website: 'https://uniswap.org',
  token: T.UNI,
  tokenomics: {
    // https://etherscan.io/tx/0x4b37d2f343608457ca3322accdab2811c707acf3eb07a40dd8d9567093ea5b82 (UNI's creation)
    deployedBlock: 10861674,
    labels: [
      {
        address: '0x1a9C8182C09F50C8318d769245beA52c32BE35BC',
        category: 'treasury',
        kind: 'timelock',
        label: 'governance-timelock',
        source: 'https://docs.uniswap.org/contracts/v3/reference/deployments/ethereum-deployments',
      },
      ...(
        [
          '0x4750c43867EF5F89869132ecCF19B9b6C4286E1a',
          '0xe3953D9d317B834592aB58AB2c7A6aD22b54075D',
          '0x4b4e140D1f131fdaD6fb59C13AF796fD194e4135',
          '0x3D30B1aB88D487B0F3061F40De76845Bec3F1e94',
        ] as const
      ).map((address, i) => ({
        address,
        category: 'treasury' as const,
        kind: 'treasury_vester' as const,
        label: `community-treasury-vester-${i + 1}`,
        source: 'https://blog.uniswap.org/uni (community treasury vesting over four years to the governance timelock)',
      })),
      {
        address: '0x090D4613473dEE047c3f2706764f49E0821D256e',
        category: 'community',
        kind: 'merkle_distributor',
        label: 'airdrop',
        source: "https://github.com/Uniswap/merkle-distributor (the UNI airdrop's distributor)",
      },
      {
        address: '0x000000000000000000000000000000000000dEaD',
        category: 'burn',
        kind: 'burn',
        label: 'dead',
        source: 'a conventional burn address: no key is known for it',
      },
    ],
    // The split of the 1,000,000,000 UNI minted at genesis as the announcement published it (its four-year split):
    // community 60 % (15 % retroactive airdrop, 2 % liquidity mining, 43 % governance treasury), team 21.266 %,
    // investors 18.044 %, advisors 0.69 %.
    declaration: {
      sourceKind: 'project',
      source: 'https://blog.uniswap.org/uni (Introducing UNI, 2020-09-16)',
      allocations: [
        {
          category: 'community',
          label: 'airdrop',
          amount: '150000000',
          unlock: { kind: 'cliff', at: '2020-09-16T00:00:00Z' },
          assumptions: ['Claimable at once from the announcement (its day, 00:00 UTC, stands for it)'],
        },
        {
          category: 'community',
          label: 'liquidity-mining',
          amount: '20000000',
          unlock: { kind: 'linear', start: '2020-09-18T00:00:00Z', end: '2020-11-17T00:00:00Z' },
          assumptions: ["The post's first liquidity-mining programme (2020-09-18 to 2020-11-17), read as linear"],
        },
        {
          category: 'treasury',
          label: 'community-treasury',
          amount: '430000000',
          unlock: { kind: 'linear', start: '2020-09-16T00:00:00Z', end: '2024-09-16T00:00:00Z' },
          assumptions: ['Four years from the announcement, read as linear (the treasury vesters prove it on chain)'],
        },
        {
          category: 'team',
          label: 'team',
          amount: '212660000',
          unlock: { kind: 'linear', start: '2020-09-16T00:00:00Z', end: '2024-09-16T00:00:00Z' },
          assumptions: [
            'Four-year vesting from the announcement, read as linear; the vesting contracts are not labelled',
          ],
        },
        {
          category: 'investors',
          label: 'investors',
          amount: '180440000',
          unlock: { kind: 'linear', start: '2020-09-16T00:00:00Z', end: '2024-09-16T00:00:00Z' },
          assumptions: [
            'Four-year vesting from the announcement, read as linear; the vesting contracts are not labelled',
          ],
        },
        {
          category: 'advisors',
          label: 'advisors',
          amount: '6900000',
          unlock: { kind: 'linear', start: '2020-09-16T00:00:00Z', end: '2024-09-16T00:00:00Z' },
          assumptions: [
            'Four-year vesting from the announcement, read as linear; the vesting contracts are not labelled',
          ],
        },
      ],
    },
  },
  dex: [
    {
      chain: 'ethereum',
      version: 'V3',
      exchangeName: 'Uniswap',
      design: 'uniswap-v3',
      factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
      startBlock: 12369621,
      pools: [
        { address: '0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640', tokens: ['USDC', 'WETH'], feeTier: 500 },
        { address: '0x8ad599c3A0ff1De082011EFDDc58f1908eb6e6D8', tokens: ['USDC', 'WETH'], feeTier: 3000 },
        { address: '0xCBCdF9626bC03E24f779434178A73a0B4bad62eD', tokens: ['WBTC', 'WETH'], feeTier: 3000 },
        { address: '0x4e68Ccd3E89f51C3074ca5072bbAC773960dFa36', tokens: ['WETH', 'USDT'], feeTier: 3000 },
        { address: '0x3416cF6C708Da44DB2624D63ea0AAef7113527C6', tokens: ['USDC', 'USDT'], feeTier: 100 },
        { address: '0x5777d92f208679DB4b9778590Fa3CAB3aC9e2168', tokens: ['DAI', 'USDC'], feeTier: 100 },
        { address: '0x109830a1AAaD605BbF02a9dFA7B0B92EC2FB7dAa', tokens: ['wstETH', 'WETH'], feeTier: 100 },
      ],
    },
    {
      chain: 'ethereum',
      version: 'V2',
      exchangeName: 'Uniswap',
      design: 'uniswap-v2',
      factory: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
      startBlock: 10000835,
      pools: [
        { address: '0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc', tokens: ['USDC', 'WETH'], feeTier: 3000 },
        { address: '0xA478c2975Ab1Ea89e8196811F51A7B7Ade33eB11', tokens: ['DAI', 'WETH'], feeTier: 3000 },
        { address: '0x0d4a11d5EEaaC28EC3F61d100daF4d40471f1852', tokens: ['WETH', 'USDT'], feeTier: 3000 },
      ],
    },
  ],
  security: {
    chains: ['ethereum'],
    contracts: [
      { chain: 'ethereum', name: 'UniswapV3Factory', address: '0x1F98431c8aD98523631AE4a59f267346ea31F984' },
      { chain: 'ethereum', name: 'UniswapV2Factory', address: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f' },
      {
        chain: 'ethereum',
        name: 'NonfungiblePositionManager',
        address: '0xC36442b4a4522E871399CD717aBDD847Ab11FE88',
      },
      { chain: 'ethereum', name: 'SwapRouter02', address: '0x68b3465833fb72A70ecDF485E0e4C7bD8665Fc45' },
      { chain: 'ethereum', name: 'UniversalRouter', address: '0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD' },
      { chain: 'ethereum', name: 'Permit2', address: '0x000000000022D473030F116dDEE9F6B43aC78BA3' },
    ],
  },
  github: { orgs: ['Uniswap'], repos: [] },
  social: { discord: 'uniswap', reddit: 'uniswap' },
};
