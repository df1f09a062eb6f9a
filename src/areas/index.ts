import type { Migration } from 'kysely';
import type { AreaId } from '../core/areas.js';
import type { PathDef } from '../paths/types.js';
import { blockchainArea } from './blockchain/index.js';
import { communityArea } from './community/index.js';
import { derivativesArea } from './derivatives/index.js';
import { developmentArea } from './development/index.js';
import { dexArea } from './dex/index.js';
import type { AreaModule } from './kit/module.js';
import { lendingArea } from './lending/index.js';
import { liquidStakingArea } from './liquid-staking/index.js';
import { oraclesArea } from './oracles/index.js';
import { securityArea } from './security/index.js';
import { stablecoinArea } from './stablecoin/index.js';
import { tokenomicsArea } from './tokenomics/index.js';

/** Every area, one line each, in the order of the interface spec. */
export const AREAS: readonly AreaModule[] = [
  tokenomicsArea,
  dexArea,
  lendingArea,
  liquidStakingArea,
  derivativesArea,
  blockchainArea,
  stablecoinArea,
  securityArea,
  communityArea,
  developmentArea,
  oraclesArea,
];

/** The one table of spec paths: it drives routing, validation, canonicalisation and the OpenAPI document. */
export const PATHS: readonly PathDef[] = AREAS.flatMap((a) => a.paths);

export function area(id: AreaId): AreaModule {
  const found = AREAS.find((a) => a.id === id);
  if (!found) throw new Error(`unknown area ${id}`);
  return found;
}

/** Every area's migrations, by key (keys are global: two areas never share one). */
export function areaMigrations(areas: readonly AreaModule[] = AREAS): Record<string, Migration> {
  const out: Record<string, Migration> = {};
  for (const a of areas) {
    for (const [key, migration] of Object.entries(a.migrations ?? {})) {
      if (key in out) throw new Error(`migration ${key} is declared by two areas`);
      out[key] = migration;
    }
  }
  return out;
}
