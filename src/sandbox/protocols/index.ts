/**
 * The sandbox's protocols, in deployment order: one line per protocol (its folder's `protocol.ts`). The world of
 * each chain deploys the enabled protocols of that chain in this order, all in its genesis block, so moving or
 * inserting a line before another moves the addresses of everything after it (`world/determinism.test.ts` holds
 * them). A new protocol goes last on its chain. See docs/architecture.md, "Add a protocol".
 */
import { aave } from './aave/protocol.js';
import { feeds } from './feeds/protocol.js';
import { gmx } from './gmx/protocol.js';
import { liquity } from './liquity/protocol.js';
import { maker } from './maker/protocol.js';
import { morpho } from './morpho/protocol.js';
import { checkProtocols, type SandboxProtocol } from './protocol.js';
import { rollups } from './rollups/protocol.js';
import { staking } from './staking/protocol.js';
import { tokenomics } from './tokenomics/protocol.js';
import { uniswap } from './uniswap/protocol.js';

export const PROTOCOLS: readonly SandboxProtocol[] = [
  uniswap,
  feeds,
  staking,
  aave,
  morpho,
  liquity,
  // Before MakerDAO: issuers issue in the list's order, and Maker's LINK-A join takes LINK's address.
  tokenomics,
  maker,
  rollups,
  gmx,
];
checkProtocols(PROTOCOLS);

/** The types of protocols' scenario state sections that world/state.ts names. */
export type { MakerRuntimeState } from './maker/actors.js';
export * from './protocol.js';
export type { RollupRuntimeState } from './rollups/actors.js';
export type { TokenomicsRuntimeState } from './tokenomics/actors.js';
