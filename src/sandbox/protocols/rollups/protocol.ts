/**
 * Rollup batchers on the Ethereum world (issue 26): blob transactions (EIP-4844, type 3) some blocks, so that the
 * blockchain area's blob figures and its burn (which includes blob fees) are not always zero. Nothing is deployed:
 * a batcher posts to its rollup's batch inbox, an address with no code, as OP Stack batchers do. Each batcher is an
 * agent of the world's key derivation (keys 2,000,000 + i) drawing from its own stream (`rollups`), in the `feeds`
 * phase (it reads nothing), so adding them changed nothing any other actor draws.
 */
import type { SandboxProtocol } from '../protocol.js';

export const rollups: SandboxProtocol = {
  name: 'rollups',
  chain: 'ethereum',
  after: [],
  phase: 'feeds',
  enabled: () => true,
  cast: async (build) => {
    const { initialRollupState } = await import('./actors.js');
    const state = initialRollupState(build.seed);
    build.state.rollups = state;
    for (const b of state.batchers) build.fund(b.agent);
  },
  actors: async (host) => {
    const state = host.state.rollups;
    if (!state) return undefined;
    const { RollupActors } = await import('./actors.js');
    return new RollupActors(host, state);
  },
};
