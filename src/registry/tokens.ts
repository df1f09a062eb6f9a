/**
 * Tokens shared by several registry entries (one definition per chain and address, so every entry that names a
 * token agrees on its symbol and decimals). Symbols keep their on-chain case (`wstETH`, `cbETH`); only base assets
 * and pair symbols are uppercase.
 */
import type { Address, TokenRef } from './types.js';

function token(
  chain: string,
  symbol: string,
  address: Address,
  decimals: number,
  name: string,
  coingeckoId?: string,
): TokenRef {
  return { chain, symbol, address, decimals, name, ...(coingeckoId ? { coingeckoId } : {}) };
}

/**
 * The reference coins market figures are measured against (correlation, dominance), by their CoinGecko ids: native
 * ETH and BTC have no token contract, so no `TokenRef` carries them.
 */
export const REFERENCE_COINS = { ETH: 'ethereum', BTC: 'bitcoin' } as const;

/** Ethereum mainnet tokens. */
export const ethereumTokens = {
  USDC: token('ethereum', 'USDC', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 6, 'USD Coin', 'usd-coin'),
  USDT: token('ethereum', 'USDT', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 6, 'Tether USD', 'tether'),
  DAI: token('ethereum', 'DAI', '0x6B175474E89094C44Da98b954EedeAC495271d0F', 18, 'Dai Stablecoin', 'dai'),
  sDAI: token('ethereum', 'sDAI', '0x83F20F44975D03b1b09e64809B757c47f942BEeA', 18, 'Savings Dai', 'savings-dai'),
  LUSD: token('ethereum', 'LUSD', '0x5f98805A4E8be255a32880FDeC7F6728C6568bA0', 18, 'LUSD Stablecoin', 'liquity-usd'),
  FRAX: token('ethereum', 'FRAX', '0x853d955aCEf822Db058eb8505911ED77F175b99e', 18, 'Frax', 'frax'),
  WETH: token('ethereum', 'WETH', '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 18, 'Wrapped Ether', 'weth'),
  WBTC: token('ethereum', 'WBTC', '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', 8, 'Wrapped BTC', 'wrapped-bitcoin'),
  stETH: token(
    'ethereum',
    'stETH',
    '0xae7ab96520DE3A18E5e111B5EaAb095312D7fE84',
    18,
    'Liquid staked Ether 2.0',
    'staked-ether',
  ),
  wstETH: token(
    'ethereum',
    'wstETH',
    '0x7f39C581F595B53c5cb19bD0b3f8dA6c935E2Ca0',
    18,
    'Wrapped liquid staked Ether 2.0',
    'wrapped-steth',
  ),
  cbETH: token(
    'ethereum',
    'cbETH',
    '0xBe9895146f7AF43049ca1c1AE358B0541Ea49704',
    18,
    'Coinbase Wrapped Staked ETH',
    'coinbase-wrapped-staked-eth',
  ),
  rETH: token(
    'ethereum',
    'rETH',
    '0xae78736Cd615f374D3085123A210448E74Fc6393',
    18,
    'Rocket Pool ETH',
    'rocket-pool-eth',
  ),
  GNO: token('ethereum', 'GNO', '0x6810e776880C02933D47DB1b9fc05908e5386b96', 18, 'Gnosis Token', 'gnosis'),
  LINK: token('ethereum', 'LINK', '0x514910771AF9Ca656af840dff83E8264EcF986CA', 18, 'ChainLink Token', 'chainlink'),
  AAVE: token('ethereum', 'AAVE', '0x7Fc66500c84A76Ad7e9c93437bFc5Ac33E2DDaE9', 18, 'Aave Token', 'aave'),
  UNI: token('ethereum', 'UNI', '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984', 18, 'Uniswap', 'uniswap'),
  COMP: token(
    'ethereum',
    'COMP',
    '0xc00e94Cb662C3520282E6f5717214004A7f26888',
    18,
    'Compound',
    'compound-governance-token',
  ),
  CRV: token('ethereum', 'CRV', '0xD533a949740bb3306d119CC777fa900bA034cd52', 18, 'Curve DAO Token', 'curve-dao-token'),
  MKR: token('ethereum', 'MKR', '0x9f8F72aA9304c8B593d555F12eF6589cC3A579A2', 18, 'Maker', 'maker'),
  LDO: token('ethereum', 'LDO', '0x5A98FcBEA516Cf06857215779Fd812CA3beF1B32', 18, 'Lido DAO Token', 'lido-dao'),
  BAL: token('ethereum', 'BAL', '0xba100000625a3754423978a60c9317c58a424e3D', 18, 'Balancer', 'balancer'),
  LQTY: token('ethereum', 'LQTY', '0x6DEA81C8171D0bA574754EF6F8b412F2Ed88c54D', 18, 'LQTY', 'liquity'),
  SNX: token('ethereum', 'SNX', '0xC011a73ee8576Fb46F5E1c5751cA3B9Fe0af2a6F', 18, 'Synthetix Network Token', 'havven'),
  sUSD: token('ethereum', 'sUSD', '0x57Ab1ec28D129707052df4dF418D58a2D46d5f51', 18, 'Synth sUSD', 'nusd'),
  YFI: token('ethereum', 'YFI', '0x0bc529c00C6401aEF6D220BE8C6Ea1667F6Ad93e', 18, 'yearn.finance', 'yearn-finance'),
  CVX: token('ethereum', 'CVX', '0x4e3FBD56CD56c3e72c1403e103b45Db9da5B9D2B', 18, 'Convex Token', 'convex-finance'),
  FXS: token('ethereum', 'FXS', '0x3432B6A60D23Ca0dFCa7761B7ab56459D9C964D0', 18, 'Frax Share', 'frax-share'),
  DYDX: token('ethereum', 'DYDX', '0x92D6C1e31e14520e676a687F0a93788B716BEff5', 18, 'dYdX', 'dydx'),
  MORPHO: token('ethereum', 'MORPHO', '0x58D97B57BB95320F9a05dC918Aef65434969c2B2', 18, 'Morpho Token', 'morpho'),
  IDLE: token('ethereum', 'IDLE', '0x875773784Af8135eA0ef43b5a374AaD105c5D39e', 18, 'Idle', 'idle'),
  FARM: token(
    'ethereum',
    'FARM',
    '0xa0246c9032bC3A600820415aE600c6388619A14D',
    18,
    'FARM Reward Token',
    'harvest-finance',
  ),
  // NOTE has 8 decimals.
  NOTE: token('ethereum', 'NOTE', '0xCFEAead4947f0705A14ec42aC3D44129E1Ef3eD5', 8, 'Notional', 'notional-finance'),
  FLX: token(
    'ethereum',
    'FLX',
    '0x6243d8CEA23066d098a15582d81a598b4e8391F4',
    18,
    'Reflexer Ungovernance Token',
    'reflexer-ungovernance-token',
  ),
  RAI: token('ethereum', 'RAI', '0x03ab458634910AaD20eF5f1C8ee96F1D6ac54919', 18, 'Rai Reflex Index', 'rai'),
  INST: token('ethereum', 'INST', '0x6f40d4A6237C257fff2dB00FA0510DeEECd303eb', 18, 'Instadapp', 'instadapp'),
  MAV: token(
    'ethereum',
    'MAV',
    '0x7448c7456a97769F6cD04F1E83A4a23cCdC46aBD',
    18,
    'Maverick Token',
    'maverick-protocol',
  ),
  CAKE: token(
    'ethereum',
    'CAKE',
    '0x152649eA73beAb28c5b49B26eb48f7EAD6d4c898',
    18,
    'PancakeSwap Token',
    'pancakeswap-token',
  ),
} as const satisfies Record<string, TokenRef>;

/** Arbitrum One tokens. */
export const arbitrumTokens = {
  GMX: token('arbitrum', 'GMX', '0xfc5A1A6EB076a2C7aD06eD22C90d7E710E35ad0a', 18, 'GMX', 'gmx'),
  RDNT: token('arbitrum', 'RDNT', '0x3082CC23568eA640225c2467653dB90e9250AaA0', 18, 'Radiant', 'radiant-capital'),
} as const satisfies Record<string, TokenRef>;

/** OP Mainnet tokens. */
export const optimismTokens = {
  SNX: token('optimism', 'SNX', '0x8700dAec35aF8Ff88c16BdF0418774CB3D7599B4', 18, 'Synthetix Network Token', 'havven'),
  sUSD: token('optimism', 'sUSD', '0x8c6f28f2F1A3C87F0f938b96d27520d9751ec8d9', 18, 'Synth sUSD', 'nusd'),
  VELO: token('optimism', 'VELO', '0x9560e827aF36c94D2Ac33a39bCE1Fe78631088Db', 18, 'Velodrome', 'velodrome-finance'),
} as const satisfies Record<string, TokenRef>;

/** Every token above, one entry per chain and address. */
export const TOKENS: readonly TokenRef[] = [ethereumTokens, arbitrumTokens, optimismTokens].flatMap((set) =>
  Object.values(set),
);
