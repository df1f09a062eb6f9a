import type {
  ManifestAaveMarket,
  ManifestLiquidStaking,
  ManifestMorpho,
  ManifestOracle,
  WorldManifest,
} from '../../src/sandbox/world/manifest.js';
import { smallWorld, type TestWorld, WORLD_NOW_MS } from './dex-world.js';

export { WORLD_NOW_MS };

/**
 * A small seeded sandbox world with the lending markets and the liquid staking token (the same world as
 * `smallWorld`: every world has them), for lending and liquid staking end-to-end tests. Defaults: 5 days,
 * scale 0.3, seed 7, hourly blocks, not live (the test clock is "now": `WORLD_NOW_MS`).
 *
 * What the world holds (docs/sandbox.md, "Lending and liquid staking"): Aave V3 `aave` (V3, USDC) and `spark`
 * (V1, DAI) with suppliers, borrowers (safe, leveraged, near liquidation), wstETH loopers in E-mode and
 * liquidations (the ETH crash at hour 30 and the wstETH depeg at hours 76–100 after genesis cause some in this
 * world), Morpho Blue markets when deployed, and wstETH with its wstETH/WETH pool and `wstETH-USD` feed.
 */
export interface LendingTestWorld extends TestWorld {
  readonly manifest: WorldManifest;
  readonly rpcUrl: string;
  /** `manifest.lending.aave`: `aave` then `spark`. */
  readonly aave: readonly ManifestAaveMarket[];
  /** `manifest.lending.morpho` (empty until Morpho is deployed). */
  readonly morpho: readonly ManifestMorpho[];
  readonly liquidStaking: readonly ManifestLiquidStaking[];
  /** Every feed the markets read: the registry pairs (`manifest.oracles`) and our own (`manifest.lendingFeeds`). */
  readonly feeds: readonly ManifestOracle[];
  /** The Aave-design market of a protocol (`aave`, `spark`); throws if absent. */
  aaveMarket(protocol: string): ManifestAaveMarket;
}

export async function lendingWorld(
  options: { days?: number; scale?: number; seed?: number; stablecoins?: boolean } = {},
): Promise<LendingTestWorld> {
  const w = await smallWorld(options);
  const manifest = w.world.manifest;
  if (!manifest.lending || !manifest.liquidStaking) {
    await w.close();
    throw new Error('the sandbox world has no lending markets');
  }
  const aave = manifest.lending.aave;
  return {
    ...w,
    manifest,
    rpcUrl: w.world.rpcUrl,
    aave,
    morpho: manifest.lending.morpho,
    liquidStaking: manifest.liquidStaking,
    feeds: [...(manifest.oracles ?? []), ...(manifest.lendingFeeds ?? [])],
    aaveMarket(protocol: string) {
      const m = aave.find((x) => x.protocol === protocol);
      if (!m) throw new Error(`no ${protocol} market in the sandbox world`);
      return m;
    },
  };
}
