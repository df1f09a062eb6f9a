/**
 * The rollup batchers' actors (protocol.ts): each batcher posts a batch, one blob transaction of 1–3 blobs of the
 * pool (chain/blobs.ts), with probability 1 − exp(−rate × step hours) per step: an hourly block holds one in about
 * nine cases per batcher, a 5-second block rarely. The blob count stays far below a block's maximum (15 since the
 * BPO1 fork), so the node never leaves one out; the blob base fee stays at its 1 wei floor, as on mainnet most of
 * the time since the blob target was raised.
 */
import type { Address, Hex } from 'viem';
import { Agent, type AgentState, agentPrivateKey, newAgentState } from '../../chain/agent.js';
import { blobPool, warmNodeKzg } from '../../chain/blobs.js';
import { Rng, seedState } from '../../world/random.js';
import type { ProtocolActors, WorldHost } from '../protocol.js';

/** Key offset of the batchers in the world's key derivation (far above the cast's and Maker's keys). */
const KEY_OFFSET = 2_000_000;

/**
 * Batches per hour per batcher (a post in about one hourly block in nine: ~0.45 blobs an hour in all). Each costs
 * the node ~0.1–0.2 s to check (its 128 cell proofs a blob) and 262 kB of the saved state a blob: "some blocks".
 */
const BATCHES_PER_HOUR = 0.12;
const MAX_BLOBS_PER_BATCH = 3;
/** A blob transaction's gas: the intrinsic 21,000 (no calldata, a transfer to an address without code). */
const BLOB_TX_GAS = 21_000n;

/** The rollups and their batch inboxes (OP Stack's convention: 0xff00…00 ‖ chain id). */
export const BATCHERS: readonly { readonly rollup: string; readonly inbox: Address }[] = [
  { rollup: 'optimism', inbox: '0xff00000000000000000000000000000000000010' },
  { rollup: 'base', inbox: '0xff00000000000000000000000000000000008453' },
];

/** The batchers between steps (saved with the world). */
export interface RollupRuntimeState {
  /** Their own random stream (`rollups`). */
  rng: [number, number, number, number];
  batchers: { readonly rollup: string; readonly inbox: string; agent: AgentState }[];
  stats: { batches: number; blobs: number };
}

export function initialRollupState(seed: number): RollupRuntimeState {
  return {
    rng: seedState(seed, 'rollups'),
    batchers: BATCHERS.map((b, i) => ({ ...b, agent: newAgentState(seed, KEY_OFFSET + i, 'batcher') })),
    stats: { batches: 0, blobs: 0 },
  };
}

export class RollupActors implements ProtocolActors {
  private readonly rng: Rng;
  private readonly agents: Agent[];

  constructor(
    private readonly host: WorldHost,
    private readonly s: RollupRuntimeState,
  ) {
    this.rng = new Rng(s.rng);
    this.agents = s.batchers.map((b, i) => new Agent(b.agent, i, agentPrivateKey(host.state.seed, b.agent.key)));
  }

  async open(): Promise<void> {
    warmNodeKzg(this.host.session.rpc, this.host.session.chainId);
    const nonces = await this.host.session.rpc.batchResults<Hex>(
      this.agents.map((a) => ({ method: 'eth_getTransactionCount', params: [a.address, 'latest'] })),
    );
    this.agents.forEach((a, i) => {
      a.state.nonce = Number(nonces[i]);
    });
  }

  step(_reading: unknown, from: number, to: number): void {
    const p = 1 - Math.exp((-BATCHES_PER_HOUR * (to - from)) / 3600);
    const pool = blobPool().length;
    this.s.batchers.forEach((b, i) => {
      if (!this.rng.chance(p)) return;
      const count = 1 + this.rng.int(MAX_BLOBS_PER_BATCH);
      const first = this.rng.int(pool);
      const blobs = Array.from({ length: count }, (_, k) => (first + k) % pool);
      this.host.session.send(this.agents[i]!, {
        to: b.inbox as Address,
        data: '0x',
        gas: BLOB_TX_GAS,
        kind: 'blob',
        blobs,
        onMined: (ok) => {
          if (!ok) return;
          this.s.stats.batches += 1;
          this.s.stats.blobs += count;
        },
      });
    });
  }

  save(): void {
    for (const a of this.agents) a.save();
    this.s.rng = this.rng.state();
  }
}
