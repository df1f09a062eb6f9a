import { type DepthPoolState, pairSellDepthUsd, poolDepthState } from '../../core/depth.js';
import { HOUR } from '../../core/time.js';
import type { DexRepository } from './repo.js';

/**
 * The DEX depth the lending stress test asks for: the USD value of an asset that the indexed pools take before its
 * price falls by `maxImpact`, summed over every pool pairing it with another token (each pair moved by the same
 * fraction, as arbitrage keeps them level). Read from the DEX area's newest pool snapshots at or before `asOf`, and
 * its hourly USD prices. Null when no indexed pool holds the asset.
 */
export async function dexDepthUsd(
  dex: DexRepository,
  chain: string,
  asOf: number,
): Promise<(asset: string, maxImpact: number) => number | null> {
  const latest = await dex.latestSnapshotBlock(chain);
  if (!latest) return () => null;
  const [pools, snapshots, tokens, prices] = await Promise.all([
    dex.pools(chain),
    dex.snapshots(chain, latest.blockNumber),
    dex.tokens(chain),
    dex.prices(chain, Math.floor(asOf / HOUR) * HOUR - 6 * HOUR, asOf),
  ]);
  const decimals = new Map(tokens.map((t) => [t.address, t.decimals]));
  const byPool = new Map(snapshots.map((s) => [s.pool, s]));
  const states: DepthPoolState[] = [];
  for (const p of pools) {
    const s = byPool.get(p.address);
    const d0 = decimals.get(p.token0);
    const d1 = decimals.get(p.token1);
    if (!s || d0 === undefined || d1 === undefined) continue;
    if (p.design !== 'uniswap-v2' && p.design !== 'uniswap-v3') continue;
    states.push(poolDepthState(p, s, d0, d1));
  }
  // The newest hourly price per token.
  const usd = new Map<string, number>();
  for (const p of [...prices].sort((a, b) => a.hour - b.hour)) usd.set(p.token, p.priceUsd);
  return (asset, maxImpact) => {
    const a = asset.toLowerCase();
    if (!(maxImpact > 0 && maxImpact < 1)) return null;
    const counterparts = new Set(
      states.flatMap((s) => (s.token0 === a ? [s.token1] : s.token1 === a ? [s.token0] : [])),
    );
    if (!counterparts.size) return null;
    let total = 0;
    for (const other of counterparts) total += pairSellDepthUsd(states, a, other, maxImpact, usd).usd ?? 0;
    return total;
  };
}
