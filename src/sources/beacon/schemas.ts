/**
 * Schemas of the beacon node API answers the source reads (Ethereum Beacon APIs, `/eth/v1/…`): only the fields used.
 * Numbers are decimal strings (uint64 quantities); a field missing or malformed fails at the boundary naming it.
 */
import { type Static, Type } from '@sinclair/typebox';

const Uint = Type.String({ pattern: '^\\d+$' });
const Root = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' });

export const VALIDATOR_STATUSES = [
  'pending_initialized',
  'pending_queued',
  'active_ongoing',
  'active_exiting',
  'active_slashed',
  'exited_unslashed',
  'exited_slashed',
  'withdrawal_possible',
  'withdrawal_done',
] as const;
export type ValidatorStatus = (typeof VALIDATOR_STATUSES)[number];

export const GenesisResponse = Type.Object({
  data: Type.Object({ genesis_time: Uint, genesis_validators_root: Root, genesis_fork_version: Type.String() }),
});
export type GenesisResponse = Static<typeof GenesisResponse>;

/** `/eth/v1/config/spec`: every value a string; the two used are required. */
export const SpecResponse = Type.Object({
  data: Type.Object({ SECONDS_PER_SLOT: Uint, SLOTS_PER_EPOCH: Uint }, { additionalProperties: Type.String() }),
});
export type SpecResponse = Static<typeof SpecResponse>;

export const HeaderResponse = Type.Object({
  data: Type.Object({
    root: Root,
    canonical: Type.Boolean(),
    header: Type.Object({ message: Type.Object({ slot: Uint, proposer_index: Uint, state_root: Root }) }),
  }),
});
export type HeaderResponse = Static<typeof HeaderResponse>;

const Checkpoint = Type.Object({ epoch: Uint, root: Root });
export const FinalityResponse = Type.Object({
  execution_optimistic: Type.Optional(Type.Boolean()),
  finalized: Type.Optional(Type.Boolean()),
  data: Type.Object({ previous_justified: Checkpoint, current_justified: Checkpoint, finalized: Checkpoint }),
});
export type FinalityResponse = Static<typeof FinalityResponse>;

export const ValidatorEntry = Type.Object({
  index: Uint,
  balance: Uint,
  status: Type.Union(VALIDATOR_STATUSES.map((s) => Type.Literal(s))),
  validator: Type.Object({ effective_balance: Uint, slashed: Type.Boolean() }),
});
export type ValidatorEntry = Static<typeof ValidatorEntry>;

export const ValidatorsResponse = Type.Object({
  execution_optimistic: Type.Optional(Type.Boolean()),
  data: Type.Array(ValidatorEntry),
});
export type ValidatorsResponse = Static<typeof ValidatorsResponse>;

/**
 * `/eth/v1/beacon/states/{state_id}/validator_count?status=…`: not in the standard Beacon APIs; Prysm's extension
 * (`GetValidatorCountResponse`): one `{status, count}` per status asked, the flags as strings there.
 */
export const ValidatorCountResponse = Type.Object({
  execution_optimistic: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
  finalized: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
  data: Type.Array(Type.Object({ status: Type.String(), count: Uint })),
});
export type ValidatorCountResponse = Static<typeof ValidatorCountResponse>;
