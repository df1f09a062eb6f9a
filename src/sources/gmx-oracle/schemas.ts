import { type Static, Type } from '@sinclair/typebox';

/**
 * The GMX oracle keeper's public REST answers (`https://arbitrum-api.gmxinfra.io`), as GMX's own clients read them:
 * `TickersResponse` and `TokensResponse` of gmx-io/gmx-interface `sdk/src/modules/oracle.ts` (the same types ship
 * in @gmx-io/sdk 1.4.0, `build/types/src/modules/oracle.d.ts`), and their use in `sdk/src/modules/tokens/tokens.ts`.
 * Fields GMX's types do not name are accepted and ignored (the keeper adds some: `timestamp`, `medianPrice`).
 */

/** A non-negative integer as a decimal string (GMX's 30-decimal prices overflow a double's integers). */
const IntegerString = Type.String({ pattern: '^(0|[1-9][0-9]*)$' });

/**
 * One token's price (`GET /prices/tickers`). `minPrice` and `maxPrice` are USD per smallest unit of the token,
 * scaled by 10^30: USD per whole token = price × 10^decimals / 10^30 (the SDK's `parseContractPrice(price,
 * decimals)`), i.e. price = USD × 10^(30 − decimals). `oracleDecimals` is the keeper's precision (the power of ten
 * its compact signed price is multiplied by to give that 30-decimal price), not the token's decimals. `updatedAt`
 * is when the keeper last updated the price (Unix milliseconds on the live service; GMX's documentation examples
 * show seconds, which the client also reads).
 */
export const GmxTicker = Type.Object({
  tokenAddress: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  tokenSymbol: Type.String(),
  minPrice: IntegerString,
  maxPrice: IntegerString,
  oracleDecimals: Type.Integer(),
  updatedAt: Type.Number(),
  /** Unix seconds of the answer (the keeper sends it; GMX's types do not name it). */
  timestamp: Type.Optional(Type.Number()),
});
export type GmxTicker = Static<typeof GmxTicker>;

export const GmxTickersResponse = Type.Array(GmxTicker);

/**
 * One supported token (`GET /tokens`, wrapped in `{tokens: [...]}`): its decimals, and whether it is synthetic (an
 * index token with no contract on the chain, e.g. a market's index that is traded but never held). The one place a
 * synthetic token's decimals are published.
 */
export const GmxToken = Type.Object({
  symbol: Type.String(),
  address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  decimals: Type.Integer({ minimum: 0, maximum: 30 }),
  synthetic: Type.Optional(Type.Boolean()),
});
export type GmxToken = Static<typeof GmxToken>;

export const GmxTokensResponse = Type.Object({ tokens: Type.Array(GmxToken) });
