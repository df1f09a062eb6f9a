import pino from 'pino';
import type { AreaEnv } from '../../src/areas/kit/module.js';
import { type L2Chain, openL2Chain } from '../../src/sandbox/l2/chain.js';
import { gmx } from '../../src/sandbox/protocols/gmx/protocol.js';
import type { GmxSection } from '../../src/sandbox/protocols/gmx/section.js';
import { type GmxOracleStandin, startGmxOracleStandin } from '../../src/sandbox/standins/gmx-oracle/server.js';
import type { WorldManifest } from '../../src/sandbox/world/manifest.js';
import { openGmxOracle } from '../../src/sources/gmx-oracle/endpoint.js';
import { TestClock } from '../helpers.js';
import { sandboxEnv, type WorldAccess } from './areas.js';
import { makeTempDir } from './temp-dirs.js';

/**
 * A short Arbitrum sandbox chain hosting GMX v2 alone (the production list's GMX protocol, its actors and the world's
 * ETH crash at hour 30), for the derivatives area's GMX end-to-end and fault tests. Not live: the test clock decides
 * "now", so every run sees the same chain. The genesis is 12:00 UTC, so that the second UTC day is whole and holds
 * the crash (hour 30 is 18:00 of that day). The oracle keeper's stand-in runs beside it on the chain's manifest (its
 * `/tokens` names the synthetic index tokens), and the environment reads it as `gmx_oracle`, as `start` does.
 */
export interface GmxTestWorld {
  readonly chain: L2Chain;
  readonly manifest: WorldManifest;
  readonly section: GmxSection;
  /** The Nitro-shaped proxy a process reads (`RPC_URL_ARBITRUM`) and the manifest: what `sandboxEnv` takes. */
  readonly access: WorldAccess;
  /** The chain and the keeper, as a process reading both gets them. */
  readonly env: AreaEnv;
  readonly keeper: GmxOracleStandin;
  readonly clock: TestClock;
  close(): Promise<void>;
}

/** 2026-11-18 12:00 UTC. */
export const GMX_GENESIS = Date.UTC(2026, 10, 18, 12, 0, 0) / 1000;

export async function gmxWorld(options: { hours?: number; seed?: number; scale?: number } = {}): Promise<GmxTestWorld> {
  const temp = makeTempDir('protoscore-gmx-');
  const clock = new TestClock((GMX_GENESIS + (options.hours ?? 42) * 3600) * 1000);
  let chain: L2Chain | undefined;
  try {
    chain = await openL2Chain({
      kind: 'arbitrum',
      dataDir: temp.path,
      seed: options.seed ?? 7,
      genesisTimestamp: GMX_GENESIS,
      blockSeconds: 3600,
      log: pino({ level: 'warn' }),
      clock,
      live: false,
      protocols: [gmx],
      scale: options.scale ?? 1,
    });
    await chain.caughtUp;
  } catch (err) {
    await chain?.stop();
    temp.remove();
    throw err;
  }
  const manifest = chain.manifest;
  const section = manifest?.sections?.gmx as GmxSection | undefined;
  if (!manifest || !section) throw new Error('the Arbitrum sandbox chain hosts no GMX');
  const access: WorldAccess = { manifest, rpcUrl: chain.rpcUrl };
  const opened = chain;
  const keeper = await startGmxOracleStandin({ seed: options.seed ?? 7, clock, manifest });
  const env = sandboxEnv(access);
  return {
    chain: opened,
    manifest,
    section,
    access,
    env: { ...env, sources: env.sources.with('gmx_oracle', openGmxOracle(keeper.url, { label: 'sandbox' })) },
    keeper,
    clock,
    close: async () => {
      await keeper.close();
      await opened.stop();
      temp.remove();
    },
  };
}
