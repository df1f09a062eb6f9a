import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedObject, conformance } from '../../../../test/support/wire-conformance.js';
import { VALIDATOR_STATUSES } from '../../../sources/beacon/schemas.js';
import { type BeaconStandin, startBeaconStandin } from './server.js';
import { SLOTS_PER_EPOCH } from './world.js';

/**
 * The stand-in's answers against the Ethereum Beacon APIs as their owners publish them: ethereum/beacon-APIs,
 * release v4.0.0 (commit 88fc9402c6a1821b6e9ae4e3b8ae0a22f1141203, 2025-10-14). No npm package carries that
 * specification, so the schemas of the operations `src/sources/beacon` sends are transcribed below from its YAML
 * (file and component named at each), as closed JSON Schema objects: every required field, the patterns of its
 * primitive types, nothing the specification does not name. Beside the shapes, two rules the specification states
 * in words: `finalized` is "true if the response references the finalized history of the chain"
 * (`types/primitive.yaml#/Finalized`), and a state's checkpoints before finality are "epoch 0 and ZERO_HASH as root"
 * (`apis/beacon/states/finality_checkpoints.yaml`).
 */

const SPEC = 'https://github.com/ethereum/beacon-APIs/tree/v4.0.0';
// types/primitive.yaml. Uint64 is `type: string`; "numeric values are returned as a quoted integer"
// (apis/config/spec.yaml): a decimal.
const Uint64 = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' };
const Root = { type: 'string', pattern: '^0x[a-fA-F0-9]{64}$' };
const ForkVersion = { type: 'string', pattern: '^0x[a-fA-F0-9]{8}$' };
const Pubkey = { type: 'string', pattern: '^0x[a-fA-F0-9]{96}$' };
const Signature = { type: 'string', pattern: '^0x[a-fA-F0-9]{192}$' };
const ExecutionOptimistic = { type: 'boolean' };
const Finalized = { type: 'boolean' };
// types/misc.yaml#/Checkpoint
const Checkpoint = closedObject({ epoch: Uint64, root: Root }, ['epoch', 'root']);
// types/http.yaml#/ErrorMessage
const ErrorMessage = closedObject(
  { code: { type: 'number' }, message: { type: 'string' }, stacktraces: { type: 'array', items: { type: 'string' } } },
  ['code', 'message'],
);
// types/phase0/validator.yaml#/Phase0/Validator
const Validator = closedObject(
  {
    pubkey: Pubkey,
    withdrawal_credentials: Root,
    effective_balance: Uint64,
    slashed: { type: 'boolean' },
    activation_eligibility_epoch: Uint64,
    activation_epoch: Uint64,
    exit_epoch: Uint64,
    withdrawable_epoch: Uint64,
  },
  [
    'pubkey',
    'withdrawal_credentials',
    'effective_balance',
    'slashed',
    'activation_eligibility_epoch',
    'activation_epoch',
    'exit_epoch',
    'withdrawable_epoch',
  ],
);
// types/api.yaml#/ValidatorResponse, #/ValidatorStatus
const ValidatorResponse = closedObject(
  { index: Uint64, balance: Uint64, status: { enum: [...VALIDATOR_STATUSES] }, validator: Validator },
  ['index', 'balance', 'status', 'validator'],
);
// types/phase0/block.yaml#/Phase0/SignedBeaconBlockHeader (BeaconBlockHeader: allOf BeaconBlockCommon + body_root)
const SignedBeaconBlockHeader = closedObject(
  {
    message: closedObject(
      { slot: Uint64, proposer_index: Uint64, parent_root: Root, state_root: Root, body_root: Root },
      ['slot', 'proposer_index', 'parent_root', 'state_root', 'body_root'],
    ),
    signature: Signature,
  },
  ['message', 'signature'],
);

const RESPONSES = {
  // apis/beacon/genesis.yaml: GetGenesisResponse
  getGenesis: closedObject(
    {
      data: closedObject({ genesis_time: Uint64, genesis_validators_root: Root, genesis_fork_version: ForkVersion }, [
        'genesis_time',
        'genesis_validators_root',
        'genesis_fork_version',
      ]),
    },
    ['data'],
  ),
  // apis/config/spec.yaml: GetSpecResponse (values: hex strings, quoted integers, or arrays)
  getSpec: closedObject({ data: { type: 'object', additionalProperties: { type: ['string', 'array'] } } }, ['data']),
  // apis/beacon/blocks/header.yaml: GetBlockHeaderResponse
  getBlockHeader: closedObject(
    {
      execution_optimistic: ExecutionOptimistic,
      finalized: Finalized,
      data: closedObject({ root: Root, canonical: { type: 'boolean' }, header: SignedBeaconBlockHeader }, [
        'root',
        'canonical',
        'header',
      ]),
    },
    ['execution_optimistic', 'finalized', 'data'],
  ),
  // apis/beacon/states/finality_checkpoints.yaml: GetStateFinalityCheckpointsResponse
  getStateFinalityCheckpoints: closedObject(
    {
      execution_optimistic: ExecutionOptimistic,
      finalized: Finalized,
      data: closedObject({ previous_justified: Checkpoint, current_justified: Checkpoint, finalized: Checkpoint }, [
        'previous_justified',
        'current_justified',
        'finalized',
      ]),
    },
    ['execution_optimistic', 'finalized', 'data'],
  ),
  // apis/beacon/states/validators.yaml: GetStateValidatorsResponse
  getStateValidators: closedObject(
    {
      execution_optimistic: ExecutionOptimistic,
      finalized: Finalized,
      data: { type: 'array', items: ValidatorResponse },
    },
    ['execution_optimistic', 'finalized', 'data'],
  ),
  ErrorMessage,
};
const validator = conformance({ [SPEC]: { $defs: RESPONSES } as never });
const ZERO_HASH = `0x${'00'.repeat(32)}`;
const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('beacon stand-in against the Beacon APIs (ethereum/beacon-APIs v4.0.0)', () => {
  let standin: BeaconStandin;
  const answers: { operation: keyof typeof RESPONSES; url: string; status: number; body: unknown }[] = [];
  const get = async (operation: keyof typeof RESPONSES, url: string, status = 200) => {
    const res = await fetch(standin.url + url);
    const body = await res.json();
    expect(res.status, url).toBe(status);
    answers.push({ operation, url, status, body });
    return body as { finalized?: boolean; data: Record<string, { epoch: string; root: string }> };
  };
  let finalizedEpoch = 0;
  let headSlot = 0;

  beforeAll(async () => {
    standin = await startBeaconStandin({ seed: 3, clock: { nowMs: () => NOW }, days: 8, validators: 300 });
    await get('getGenesis', '/eth/v1/beacon/genesis');
    await get('getSpec', '/eth/v1/config/spec');
    const head = (await get('getBlockHeader', '/eth/v1/beacon/headers/head')) as unknown as {
      data: { header: { message: { slot: string } } };
    };
    headSlot = Number(head.data.header.message.slot);
    const finality = await get('getStateFinalityCheckpoints', '/eth/v1/beacon/states/head/finality_checkpoints');
    finalizedEpoch = Number(finality.data.finalized!.epoch);
    for (const state of ['finalized', 'justified', 'genesis', String(headSlot - 100 * SLOTS_PER_EPOCH), '40']) {
      await get('getStateFinalityCheckpoints', `/eth/v1/beacon/states/${state}/finality_checkpoints`);
    }
    // As the source reads validators: one request per status, at the head's slot.
    for (const status of VALIDATOR_STATUSES) {
      await get('getStateValidators', `/eth/v1/beacon/states/${headSlot}/validators?status=${status}`);
    }
    await get(
      'getStateValidators',
      `/eth/v1/beacon/states/${finalizedEpoch * SLOTS_PER_EPOCH}/validators?status=active`,
    );
    await get('ErrorMessage', '/eth/v1/beacon/states/current/finality_checkpoints', 400);
    await get('ErrorMessage', `/eth/v1/beacon/states/${headSlot + 1000}/finality_checkpoints`, 404);
  });
  afterAll(() => standin?.close());

  it('every answer matches its response schema', () => {
    const problems = answers.flatMap((a) =>
      validator.errors(`${SPEC}#/$defs/${a.operation}`, a.body).map((e) => `${a.url} ${e}`),
    );
    expect(problems).toEqual([]);
    // Validators of every status were sampled (an empty list would check nothing).
    const validators = answers.filter((a) => a.operation === 'getStateValidators');
    expect(validators.reduce((n, a) => n + (a.body as { data: unknown[] }).data.length, 0)).toBeGreaterThan(100);
  });

  it('says an answer about the finalized history is finalized, and one about the head is not', () => {
    const flag = (url: string) => (answers.find((a) => a.url === url)!.body as { finalized: boolean }).finalized;
    expect(flag('/eth/v1/beacon/states/finalized/finality_checkpoints')).toBe(true);
    expect(flag('/eth/v1/beacon/states/genesis/finality_checkpoints')).toBe(true);
    expect(flag('/eth/v1/beacon/states/head/finality_checkpoints')).toBe(false);
    expect(flag('/eth/v1/beacon/headers/head')).toBe(false);
    expect(flag(`/eth/v1/beacon/states/${finalizedEpoch * SLOTS_PER_EPOCH}/validators?status=active`)).toBe(true);
    expect(flag(`/eth/v1/beacon/states/${headSlot}/validators?status=active_ongoing`)).toBe(false);
  });

  it("answers a state's own checkpoints: the genesis checkpoint before finality, older ones for older states", () => {
    const checkpoints = (state: string) =>
      (
        answers.find((a) => a.url === `/eth/v1/beacon/states/${state}/finality_checkpoints`)!.body as {
          data: Record<string, { epoch: string; root: string }>;
        }
      ).data;
    const genesisCheckpoint = { epoch: '0', root: ZERO_HASH };
    for (const state of ['genesis', '40']) {
      expect(checkpoints(state)).toEqual({
        previous_justified: genesisCheckpoint,
        current_justified: genesisCheckpoint,
        finalized: genesisCheckpoint,
      });
    }
    const old = checkpoints(String(headSlot - 100 * SLOTS_PER_EPOCH));
    expect(Number(old.finalized!.epoch)).toBeLessThan(finalizedEpoch);
    expect(Number(old.current_justified!.epoch)).toBeGreaterThanOrEqual(Number(old.finalized!.epoch));
    expect(Number(checkpoints('head').finalized!.epoch)).toBe(finalizedEpoch);
  });
});
