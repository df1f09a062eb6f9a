import type { ValidatorStatus } from '../../../sources/beacon/schemas.js';
import { Rng } from '../../world/random.js';

/**
 * The beacon stand-in's world: a seeded validator registry whose statuses and balances follow the consensus
 * spec's lifecycle (deposit → pending_initialized → pending_queued → active_ongoing → active_exiting or
 * active_slashed → exited_unslashed / exited_slashed → withdrawal_possible → withdrawal_done), as a pure function of
 * (seed, epoch): a later epoch only moves validators along their own timelines. Balances and effective balances are
 * gwei; rewards accrue per epoch while active, a slashing costs 1 ETH, a full withdrawal empties the balance.
 */

export const SECONDS_PER_SLOT = 12;
export const SLOTS_PER_EPOCH = 32;
export const EPOCH_SECONDS = SECONDS_PER_SLOT * SLOTS_PER_EPOCH;
/** MIN_VALIDATOR_WITHDRAWABILITY_DELAY of the spec. */
export const WITHDRAWABILITY_DELAY = 256;
const FAR_FUTURE = Number.MAX_SAFE_INTEGER;
const MAX_EFFECTIVE = 32_000_000_000n;
const EPOCHS_PER_DAY = 86_400 / EPOCH_SECONDS;

/** A validator's status: the Beacon API's list, as the source reads it. */
export type Status = ValidatorStatus;

interface Timeline {
  readonly index: number;
  readonly pubkey: string;
  /** Epoch of the deposit (negative: before genesis, i.e. a genesis validator). */
  readonly deposit: number;
  readonly eligibility: number;
  readonly activation: number;
  /** Epoch the exit was initiated (FAR_FUTURE: never), and the exit epoch. */
  readonly exitInitiated: number;
  readonly exit: number;
  readonly slashed: boolean;
  readonly withdrawable: number;
  /** Epoch the full withdrawal swept the balance. */
  readonly withdrawn: number;
  /** Reward per active epoch, gwei. */
  readonly reward: bigint;
}

export interface ValidatorView {
  readonly index: string;
  readonly balance: string;
  readonly status: Status;
  readonly validator: {
    readonly pubkey: string;
    readonly withdrawal_credentials: string;
    readonly effective_balance: string;
    readonly slashed: boolean;
    readonly activation_eligibility_epoch: string;
    readonly activation_epoch: string;
    readonly exit_epoch: string;
    readonly withdrawable_epoch: string;
  };
}

const epochText = (e: number) => (e >= FAR_FUTURE ? '18446744073709551615' : String(Math.max(0, e)));

export class BeaconWorld {
  readonly validators: readonly Timeline[];

  /**
   * `days`: the history the sandbox world spans (epochs from genesis); most validators are genesis ones, the
   * rest join, leave or get slashed along that history and a little beyond it.
   */
  constructor(seed: number, count: number, days: number) {
    const rng = Rng.fromSeed(seed, 'beacon/validators');
    const span = Math.max(1, days + 2) * EPOCHS_PER_DAY;
    const list: Timeline[] = [];
    for (let index = 0; index < count; index++) {
      const genesisValidator = rng.chance(0.7);
      const deposit = genesisValidator ? -1 : rng.int(span);
      const eligibility = genesisValidator ? 0 : deposit + 1 + rng.int(8);
      const activation = genesisValidator ? 0 : eligibility + 4 + rng.int(EPOCHS_PER_DAY / 2);
      const leaves = rng.chance(0.25);
      const slashed = leaves && rng.chance(0.2);
      const exitInitiated = leaves ? activation + 1 + rng.int(span) : FAR_FUTURE;
      const exit = leaves ? exitInitiated + 5 + rng.int(EPOCHS_PER_DAY / 2) : FAR_FUTURE;
      const withdrawable = leaves ? exit + (slashed ? 8192 / 32 : WITHDRAWABILITY_DELAY) : FAR_FUTURE;
      const withdrawn = leaves ? withdrawable + 1 + rng.int(EPOCHS_PER_DAY / 4) : FAR_FUTURE;
      let pubkey = '0x';
      for (let i = 0; i < 12; i++) pubkey += rng.nextUint32().toString(16).padStart(8, '0');
      list.push({
        index,
        pubkey,
        deposit,
        eligibility,
        activation,
        exitInitiated,
        exit,
        slashed,
        withdrawable,
        withdrawn,
        reward: BigInt(1000 + rng.int(3000)),
      });
    }
    this.validators = list;
  }

  /** The validators known at `epoch` (deposited by then), with their status and balances then. */
  at(epoch: number): ValidatorView[] {
    const out: ValidatorView[] = [];
    for (const v of this.validators) {
      if (v.deposit > epoch) continue;
      const status = statusAt(v, epoch);
      const activeEpochs = BigInt(Math.max(0, Math.min(epoch, v.exit) - v.activation));
      let balance = MAX_EFFECTIVE + (epoch >= v.activation ? activeEpochs * v.reward : 0n);
      if (v.slashed && epoch >= v.exitInitiated) balance -= 1_000_000_000n;
      if (status === 'withdrawal_done') balance = 0n;
      // Effective balance: whole ETH, at most 32, 0 once withdrawn.
      const effective = balance >= MAX_EFFECTIVE ? MAX_EFFECTIVE : (balance / 1_000_000_000n) * 1_000_000_000n;
      out.push({
        index: String(v.index),
        balance: String(balance),
        status,
        validator: {
          pubkey: v.pubkey,
          withdrawal_credentials: `0x01${'0'.repeat(22)}${v.pubkey.slice(2, 42)}`,
          effective_balance: String(effective),
          slashed: v.slashed && epoch >= v.exitInitiated,
          activation_eligibility_epoch: epochText(v.eligibility),
          activation_epoch: epoch >= v.eligibility ? epochText(v.activation) : epochText(FAR_FUTURE),
          exit_epoch: epoch >= v.exitInitiated ? epochText(v.exit) : epochText(FAR_FUTURE),
          withdrawable_epoch: epoch >= v.exitInitiated ? epochText(v.withdrawable) : epochText(FAR_FUTURE),
        },
      });
    }
    return out;
  }
}

function statusAt(v: Timeline, epoch: number): Status {
  if (epoch < v.eligibility) return 'pending_initialized';
  if (epoch < v.activation) return 'pending_queued';
  if (epoch < v.exit) {
    if (v.slashed && epoch >= v.exitInitiated) return 'active_slashed';
    return epoch >= v.exitInitiated ? 'active_exiting' : 'active_ongoing';
  }
  if (epoch < v.withdrawable) return v.slashed ? 'exited_slashed' : 'exited_unslashed';
  return epoch < v.withdrawn ? 'withdrawal_possible' : 'withdrawal_done';
}
