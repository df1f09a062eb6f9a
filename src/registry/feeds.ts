/** Feed bases whose token has another symbol: Chainlink prices ETH and BTC, DEX pools hold WETH and WBTC. */
const TOKEN_OF_FEED_BASE: Readonly<Record<string, string>> = { ETH: 'WETH', BTC: 'WBTC' };

/** The token symbol whose USD price a `BASE-USD` feed reports, or undefined for other quotes. */
export function feedBaseSymbol(pair: string): string | undefined {
  const [base, quote] = pair.split('-');
  if (!base || quote !== 'USD') return undefined;
  return TOKEN_OF_FEED_BASE[base] ?? base;
}

/**
 * Symbols of the USD stablecoins that anchor USD prices (docs/methodology/prices.md): the deepest, most traded
 * dollar tokens. Not every stablecoin of the registry is an anchor: those are scored, not trusted.
 */
export const USD_ANCHOR_SYMBOLS: ReadonlySet<string> = new Set(['USDC', 'USDT', 'DAI']);
