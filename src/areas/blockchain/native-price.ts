import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../kit/schema.js';

/**
 * `native_price`: the day's native-asset USD price every blockchain record carries (EVM chains: ETH; Bitcoin: BTC),
 * one shape for both parts (`loadNativeUsdByDay` in `prices.ts` fills it); null with `gap_reasons.native_price:
 * no_price` where the price policy gives none.
 */
export const NativePrice = Nullable(
  Type.Object(
    {
      usd: Type.Number({ minimum: 0 }),
      source: Type.String({ description: '`oracle` (a feed) or `dex` (the DEX area’s hourly price)' }),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
    },
    { description: 'The native asset’s USD price the day’s USD figures use (its last second; the running day: as_of)' },
  ),
);
export type NativePriceValue = Static<typeof NativePrice>;

/** Transactions per second: one precision on every chain, 6 decimals. */
export const TPS_DECIMALS = 6;
