/**
 * "One price per token per instant, everywhere" (issue 26 item 7, docs/methodology/prices.md "Policy across areas")
 * as a check over published documents: every USD price a document publishes for a token as the policy's price (a
 * `price_usd` beside the token it prices, a published policy price object (a liquidation leg's among them), the
 * stablecoin peg's quote price) is
 * collected with the instant it holds at; two prices of one token at one instant must agree unless the record shows
 * the disagreement (`flagged`: the policy's two sources differ by more than 2 % and both are shown).
 *
 * The DEX area is left out by design: it publishes the DEX prices themselves (docs/methodology/prices.md), the
 * policy's DEX candidate, never a policy price; a candidate named as one (`oracle_price_usd`, `dex_price_usd`,
 * `alternative_price_usd`) is not a policy price either.
 */
import type { PublishedDocument } from './vocabulary.js';

export interface PublishedPrice {
  readonly token: string;
  /** The area that published it. */
  readonly area: string;
  /** ISO instant the price holds at: the nearest enclosing `timestamp` or `as_of`, else the document's `as_of`. */
  readonly instant: string;
  readonly priceUsd: number;
  /** The record shows the disagreement (both sources and the flag). */
  readonly flagged: boolean;
  /** Document path and JSON path of the price. */
  readonly where: string;
}

type Json = unknown;
const isObject = (x: Json): x is Record<string, Json> => x !== null && typeof x === 'object' && !Array.isArray(x);
const isAddress = (x: Json): x is string => typeof x === 'string' && /^0x[0-9a-f]{40}$/.test(x);

/** A policy price object as the payloads publish it (core/price-policy `PolicyPrice`). */
const isPolicyPrice = (x: Json): x is Record<string, Json> =>
  isObject(x) && typeof x.price_usd === 'number' && typeof x.source === 'string' && 'flagged' in x;

/** Every policy price the documents publish, with its token and instant. */
export function publishedPrices(docs: readonly PublishedDocument[]): PublishedPrice[] {
  const out: PublishedPrice[] = [];
  const walk = (x: Json, where: string, instant: string, doc: PublishedDocument): void => {
    if (Array.isArray(x)) {
      for (const [i, v] of x.entries()) walk(v, `${where}[${i}]`, instant, doc);
      return;
    }
    if (!isObject(x)) return;
    const here = typeof x.timestamp === 'string' ? x.timestamp : typeof x.as_of === 'string' ? x.as_of : instant;
    const add = (token: Json, price: Json, flagged: boolean, field: string) => {
      if (isAddress(token) && typeof price === 'number')
        out.push({
          token,
          area: doc.area,
          instant: here,
          priceUsd: price,
          flagged,
          where: `${doc.path} ${where}.${field}`,
        });
    };
    // A price beside the token it prices (lending assets and stress rows, stablecoin collaterals).
    const token = x.token_address ?? x.collateral_token_address ?? x.asset;
    if (typeof x.price_usd === 'number' && !('source' in x && 'flagged' in x))
      add(token, x.price_usd, x.price_flagged === true || x.flagged === true, 'price_usd');
    // Published policy prices of a liquid staking token and its underlying.
    const lst = isObject(x.liquid_staking_token) ? x.liquid_staking_token : undefined;
    if (lst && isPolicyPrice(x.lst_price))
      add(lst.token_address, x.lst_price.price_usd, x.lst_price.flagged === true, 'lst_price');
    if (lst && isPolicyPrice(x.underlying_price))
      add(
        lst.underlying_address,
        x.underlying_price.price_usd,
        x.underlying_price.flagged === true,
        'underlying_price',
      );
    // The same prices flat beside them (the pool analytics' and the exposure's `*_price_usd`).
    const flagOf = (p: Json) => isPolicyPrice(p) && p.flagged === true;
    if (lst) add(lst.token_address, x.lst_price_usd, flagOf(x.lst_price), 'lst_price_usd');
    if (lst) add(lst.underlying_address, x.underlying_price_usd, flagOf(x.underlying_price), 'underlying_price_usd');
    // A lending liquidation's legs, at its block time (the row's `timestamp`).
    if (isPolicyPrice(x.debt_price))
      add(x.debt_asset, x.debt_price.price_usd, x.debt_price.flagged === true, 'debt_price');
    if (isPolicyPrice(x.collateral_price))
      add(x.collateral_asset, x.collateral_price.price_usd, x.collateral_price.flagged === true, 'collateral_price');
    // The stablecoin peg's quote asset.
    add(x.peg_quote_token_address, x.peg_quote_price_usd, false, 'peg_quote_price_usd');
    for (const [k, v] of Object.entries(x)) walk(v, `${where}.${k}`, here, doc);
  };
  for (const d of docs) if (d.area !== 'dex') walk(d.data, '$', d.meta.as_of, d);
  return out;
}

/** Relative gap two published roundings of one price may show (8 decimals against 6 on a price near 1). */
const ROUNDING = 1e-6;

/**
 * The tokens and instants whose unflagged published prices disagree: one line per (token, instant) naming every
 * price and where it was published. Empty when every token has one price per instant.
 */
export function priceDisagreements(prices: readonly PublishedPrice[]): string[] {
  const groups = new Map<string, PublishedPrice[]>();
  for (const p of prices) {
    if (p.flagged) continue;
    const key = `${p.token} @ ${p.instant}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  const out: string[] = [];
  for (const [key, list] of groups) {
    const values = list.map((p) => p.priceUsd);
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    if (hi / lo - 1 <= ROUNDING) continue;
    // Each distinct price with the first places that publish it.
    const byValue = new Map<number, string[]>();
    for (const p of list) byValue.set(p.priceUsd, [...(byValue.get(p.priceUsd) ?? []), p.where]);
    const parts = [...byValue].map(
      ([v, w]) => `${v} in ${w.slice(0, 2).join(', ')}${w.length > 2 ? ` (+${w.length - 2})` : ''}`,
    );
    out.push(`${key}: ${parts.join(' | ')}`);
  }
  return out.sort();
}
