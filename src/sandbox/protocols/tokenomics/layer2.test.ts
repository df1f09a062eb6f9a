import { describe, expect, it } from 'vitest';
import { GMX_MARKETS, GMX_SYNTHETICS } from '../gmx/deploy.js';
import { PROTOCOLS } from '../index.js';
import { TOKENOMICS_PLAN } from './plan.js';

/**
 * The tokenomics tokens on the layer-2 worlds (docs/sandbox.md "Tokenomics tokens"): the hosted Arbitrum world
 * deploys every token of the world's plan, UNI, LINK and AAVE among them, as a `MintableERC20` at the same addresses
 * as before (its protocols' addresses and the market model's draws depend on them), but nothing there mints them:
 * only a protocol's deploy or an actor's `spend` mints a faucet token, and no layer-2 protocol uses them. A layer-2
 * protocol that starts using one fails here, and must then bring it from an escrow rather than mint it.
 */
describe('tokenomics tokens are never faucet-minted on the layer-2 worlds', () => {
  const tokenomics = new Set<string>(TOKENOMICS_PLAN.map((t) => t.symbol));

  it('the layer-2 worlds host GMX alone (a new layer-2 protocol is checked here first)', () => {
    expect(PROTOCOLS.filter((p) => p.chain !== 'ethereum').map((p) => `${p.chain}/${p.name}`)).toEqual([
      'arbitrum/gmx',
    ]);
  });

  it('GMX mints and spends only its markets’ tokens, none of them a tokenomics token', () => {
    const used = new Set<string>([
      ...GMX_MARKETS.flatMap((m) => [m.index, m.long, m.short]),
      ...GMX_SYNTHETICS.map((s) => s.priceSymbol),
    ]);
    expect([...used].filter((s) => tokenomics.has(s))).toEqual([]);
    expect(tokenomics).toEqual(new Set(['UNI', 'LINK', 'AAVE']));
  });
});
