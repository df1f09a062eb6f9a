/**
 * The tokenomics tokens (issue 28) as a sandbox protocol: UNI (Uniswap's `Uni` with its TreasuryVesters, governance
 * Timelock and merkle airdrop), LINK and AAVE (OpenZeppelin's fixed-supply token with VestingWallets, TokenTimelocks
 * and a TimelockController treasury) are issued in the genesis block with their whole supply (`issue`, before any
 * protocol's `deploy`: MakerDAO's LINK-A join and the pools need them), never minted afterwards. The pools' seeds and
 * the agents' top-ups are withdrawals from labelled exchange hot wallets. Every labelled holder is in the address
 * book under `tokenomics/<protocol>/<category>/<kind>/<label>` (what the tokenomics area reads; never the manifest),
 * and each token's declared allocation is the world's own split (`sandboxDeclaration`), as a project publishes its.
 */
import { formatUnits } from '../../../core/decimal.js';
import { isoSeconds } from '../../../core/time.js';
import { bookKey } from '../../../registry/address-book.js';
import type { DeclaredAllocationSpec, DeclaredUnlock, TokenDeclaration } from '../../../registry/types.js';
import type { ManifestTokenomicsHolder, ManifestTokenomicsToken } from '../../world/manifest.js';
import { addGenesisFunds, type SandboxProtocol, slot } from '../protocol.js';
import type { QueuedTokenomics } from './deploy.js';
import { exchangeLabel, TOKENOMICS_PLAN } from './plan.js';

const TOKENOMICS = slot<QueuedTokenomics>('tokenomics');

/** The categories a project declares (exchange floats and burn addresses are not allocations). */
const DECLARED: ReadonlySet<string> = new Set(['team', 'investors', 'advisors', 'treasury', 'community']);

function unlockOf(h: ManifestTokenomicsHolder, genesis: number): DeclaredUnlock {
  const s = h.schedule;
  // A treasury or a distributor holds its allocation from genesis (a treasury vester's recipient aside).
  if (!s) return { kind: 'cliff', at: isoSeconds(genesis) };
  if (s.start === s.end) return { kind: 'cliff', at: isoSeconds(s.start) };
  return {
    kind: 'linear',
    start: isoSeconds(s.start),
    end: isoSeconds(s.end),
    ...(s.cliff > s.start ? { cliff: isoSeconds(s.cliff) } : {}),
  };
}

/**
 * The sandbox world's declaration of a token: what its genesis gave each labelled holder of a declared category,
 * with the schedule it was deployed with (the declaration and the contracts agree, so every allocation a contract
 * holds is verified; the treasuries and the airdrop are not vesting contracts).
 */
export function sandboxDeclaration(t: ManifestTokenomicsToken, genesis: number, decimals = 18): TokenDeclaration {
  const allocations: DeclaredAllocationSpec[] = t.holders
    .filter((h) => DECLARED.has(h.category))
    .map((h) => ({
      category: h.category,
      label: h.label,
      amount: formatUnits(BigInt(h.amount), decimals),
      unlock: unlockOf(h, genesis),
      assumptions: [],
    }));
  return { sourceKind: 'sandbox', source: `sandbox world: the ${t.symbol} genesis distribution`, allocations };
}

export const tokenomics: SandboxProtocol = {
  name: 'tokenomics',
  chain: 'ethereum',
  after: [],
  phase: 'lending',
  enabled: () => true,
  issues: TOKENOMICS_PLAN.map((t) => t.symbol),
  issue: async (build) => {
    const { genesisFunds, queueTokenomics } = await import('./deploy.js');
    const queued = await queueTokenomics(build);
    build.provide(TOKENOMICS, queued);
    addGenesisFunds(build, genesisFunds(build, queued));
  },
  manifest: (build, manifest) => {
    const queued = build.find(TOKENOMICS);
    if (queued) manifest.tokenomics = queued.section;
  },
  cast: async (build) => {
    const queued = build.genesis.find(TOKENOMICS);
    if (!build.manifest.tokenomics || !queued) return;
    const { initialTokenomicsState } = await import('./actors.js');
    const state = initialTokenomicsState(build.seed, build.startTimestamp, queued.agents);
    build.state.tokenomics = state;
    for (const agent of [
      ...state.exchanges,
      ...state.governors,
      state.keeper,
      ...state.beneficiaries,
      ...state.recipients,
    ])
      build.fund(agent);
  },
  actors: async (host) => {
    const m = host.manifest.tokenomics;
    const state = host.state.tokenomics;
    if (!m || !state) return undefined;
    const { TokenomicsActors } = await import('./actors.js');
    return new TokenomicsActors(host, m, state);
  },
  // The npm artifacts ship no sources: names only.
  contracts: (manifest) =>
    (manifest.tokenomics?.tokens ?? []).flatMap((t) => [
      { address: t.address, name: t.standard === 'uni' ? 'Uni' : 'ERC20PresetFixedSupply' },
      ...t.holders.flatMap((h) => (h.contract ? [{ address: h.address, name: h.contract }] : [])),
    ]),
  addressBook: (manifest, book) => {
    const m = manifest.tokenomics;
    if (!m) return;
    for (const t of m.tokens) {
      for (const h of t.holders) {
        // A world saved before carries its exchange wallets' former labels (plan.ts EXCHANGES).
        const label = h.category === 'exchange' ? exchangeLabel(h.label) : h.label;
        book.entries[bookKey.tokenomics(t.protocol, h.category, h.kind, label)] = {
          address: h.address.toLowerCase(),
          ...(h.kind === 'eoa' || h.kind === 'burn' ? {} : { startBlock: m.startBlock }),
        };
      }
      book.declarations[t.protocol] = sandboxDeclaration(
        t,
        manifest.genesisTimestamp,
        book.tokens[t.symbol]?.decimals ?? 18,
      );
    }
  },
};
