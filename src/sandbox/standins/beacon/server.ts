import { createHash } from 'node:crypto';
import type { Clock } from '../../../core/time.js';
import { VALIDATOR_STATUSES } from '../../../sources/beacon/schemas.js';
import { jsonRpc } from '../../chain/anvil.js';
import {
  HttpError,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinRequest,
  type StandinService,
  startStandin,
} from '../base/index.js';
import { BeaconWorld, EPOCH_SECONDS, SECONDS_PER_SLOT, SLOTS_PER_EPOCH, type ValidatorView } from './world.js';

/**
 * The beacon node API stand-in (Ethereum Beacon APIs, the `/eth/v1` subset the blockchain area reads): genesis,
 * spec, head header, finality checkpoints and validators with `status` filters (GET, and POST with the filters in the
 * body; optionally Prysm's `validator_count`), numbers as decimal strings, errors
 * as `{ code, message }`. Slots run from a genesis time at 12 s; when it is given the sandbox's Ethereum RPC URL,
 * genesis is the chain's block 0 and the finalized checkpoint is the chain's `finalized` block: its epoch is the
 * epoch of that block's timestamp and its root is that block's hash (a stand-in's beacon block root: the execution
 * block it finalizes), so finality figures read from the beacon API and from the chain's tags agree.
 */

export interface BeaconStandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  /** History of the sandbox world, days (the validator timelines span it). */
  readonly days: number;
  /** The sandbox Ethereum chain's RPC URL; without it, genesis is `days` before the clock's start. */
  readonly rpcUrl?: string;
  /** Validators in the registry (default 512). */
  readonly validators?: number;
  /** How often the chain's finalized block is read (default 2 s). */
  readonly pollMs?: number;
  /**
   * Serve Prysm's counting endpoint (`/eth/v1/beacon/states/{id}/validator_count`) too (default false: a node with
   * the standard Beacon APIs only, which answers it 404).
   */
  readonly validatorCount?: boolean;
}

export interface BeaconStandin extends Standin {
  readonly world: BeaconWorld;
  /** Reads the chain's genesis and finalized block now (the handlers answer from the last read). */
  refresh(): Promise<void>;
  /** Unix seconds of slot 0. */
  readonly genesisTime: number;
}

interface ChainView {
  genesisTime: number;
  finalized: { number: number; hash: string; timestamp: number } | null;
}

const root = (...parts: (string | number)[]) => `0x${createHash('sha256').update(parts.join('/')).digest('hex')}`;

export const beaconDialect: StandinDialect = {
  defaultResource: 'beacon',
  commonHeaders: { 'content-type': 'application/json', server: 'protoscore-beacon-standin' },
  errorBody: (status, message) => ({ code: status, message }),
  identify: () => undefined,
  rateLimitHeaders: () => ({}),
  primaryLimited: () => ({ status: 429, body: { code: 429, message: 'Too many requests' } }),
  secondaryLimited: (retryAfterSeconds) => ({
    status: 429,
    body: { code: 429, message: 'Too many requests' },
    headers: { 'retry-after': String(retryAfterSeconds) },
  }),
};

/** The exact statuses (the Beacon API's list, as the source reads it) and the four general ones. */
const STATUS_FILTERS = new Set<string>([...VALIDATOR_STATUSES, 'active', 'pending', 'exited', 'withdrawal']);

/** The genesis checkpoint: epoch 0 with a zero root, what a state answers before finality (Beacon APIs). */
const ZERO_ROOT = `0x${'00'.repeat(32)}`;

/** A repeated, comma-separated query parameter's values. */
const splitList = (values: readonly string[]) =>
  values.flatMap((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );

function beaconRoutes(world: BeaconWorld, chain: ChainView, options: { validatorCount?: boolean }): RouteDef[] {
  const nowSlot = (ms: number) => Math.max(0, Math.floor((ms / 1000 - chain.genesisTime) / SECONDS_PER_SLOT));
  /** Finality now: the head state's finalized checkpoint (the chain's `finalized` block) and justified epoch. */
  const finality = (ms: number) => {
    const currentEpoch = Math.floor(nowSlot(ms) / SLOTS_PER_EPOCH);
    if (chain.finalized) {
      const epoch = Math.max(0, Math.floor((chain.finalized.timestamp - chain.genesisTime) / EPOCH_SECONDS));
      return { finalized: { epoch, root: chain.finalized.hash }, justified: Math.min(currentEpoch, epoch + 1) };
    }
    const epoch = Math.max(0, currentEpoch - 2);
    return { finalized: { epoch, root: root('epoch', epoch) }, justified: Math.min(currentEpoch, epoch + 1) };
  };
  /** Whether a slot lies in the finalized history (the Beacon APIs' `finalized` flag of an answer about it). */
  const isFinalized = (slot: number, ms: number) => slot <= finality(ms).finalized.epoch * SLOTS_PER_EPOCH;
  /**
   * The checkpoints a state at `slot` holds: the head's are the finality now; an older state's are those known at
   * its epoch (finality trails the epoch by two, and never runs ahead of today's); before the consensus spec starts
   * justifying (epoch 2), and for any checkpoint of epoch 0, the genesis checkpoint: epoch 0 with a zero root.
   */
  const checkpointsAt = (slot: number, ms: number) => {
    const now = finality(ms);
    const epoch = Math.floor(slot / SLOTS_PER_EPOCH);
    const head = epoch >= Math.floor(nowSlot(ms) / SLOTS_PER_EPOCH);
    const finalized = epoch < 2 ? 0 : head ? now.finalized.epoch : Math.min(now.finalized.epoch, epoch - 2);
    const justified = epoch < 2 ? 0 : head ? now.justified : Math.min(epoch, finalized + 1);
    const checkpoint = (e: number) => ({
      epoch: String(e),
      root: e === 0 ? ZERO_ROOT : e === now.finalized.epoch ? now.finalized.root : root('epoch', e),
    });
    return {
      previous_justified: checkpoint(epoch < 2 ? 0 : Math.max(0, justified - 1)),
      current_justified: checkpoint(justified),
      finalized: checkpoint(finalized),
    };
  };
  /** The slot a state id names, or a 404 / 400 as a beacon node answers. */
  const slotOf = (id: string, ms: number): number => {
    const head = nowSlot(ms);
    if (id === 'head') return head;
    if (id === 'genesis') return 0;
    if (id === 'finalized') return finality(ms).finalized.epoch * SLOTS_PER_EPOCH;
    if (id === 'justified') return finality(ms).justified * SLOTS_PER_EPOCH;
    if (/^\d+$/.test(id)) {
      const slot = Number(id);
      if (slot > head) throw new HttpError(404, 'State not found');
      return slot;
    }
    if (/^0x[0-9a-fA-F]{64}$/.test(id)) throw new HttpError(404, 'State not found');
    throw new HttpError(400, `Invalid state ID: ${id}`);
  };
  const data = (body: unknown, extra: Record<string, unknown> = {}) => ({
    status: 200,
    body: { ...extra, data: body },
  });
  /** The registry at a state, filtered by status (exact or general) and by index or public key. */
  const validators = (stateId: string, nowMs: number, statuses: readonly string[], idList: readonly string[]) => {
    const slot = slotOf(stateId, nowMs);
    for (const s of statuses) if (!STATUS_FILTERS.has(s)) throw new HttpError(400, `Invalid status: ${s}`);
    const ids = new Set(idList);
    const matches = (v: ValidatorView) =>
      (!statuses.length || statuses.some((s) => v.status === s || v.status.startsWith(`${s}_`))) &&
      (!ids.size || ids.has(v.index) || ids.has(v.validator.pubkey));
    return data(world.at(Math.floor(slot / SLOTS_PER_EPOCH)).filter(matches), {
      execution_optimistic: false,
      finalized: isFinalized(slot, nowMs),
    });
  };

  return [
    {
      method: 'GET',
      path: '/eth/v1/beacon/genesis',
      resource: 'beacon',
      handler: () =>
        data({
          genesis_time: String(chain.genesisTime),
          genesis_validators_root: root('validators-root'),
          genesis_fork_version: '0x00000000',
        }),
    },
    {
      method: 'GET',
      path: '/eth/v1/config/spec',
      resource: 'beacon',
      handler: () =>
        data({
          CONFIG_NAME: 'protoscore-sandbox',
          PRESET_BASE: 'mainnet',
          SECONDS_PER_SLOT: String(SECONDS_PER_SLOT),
          SLOTS_PER_EPOCH: String(SLOTS_PER_EPOCH),
          MIN_VALIDATOR_WITHDRAWABILITY_DELAY: '256',
          MAX_EFFECTIVE_BALANCE: '32000000000',
        }),
    },
    {
      method: 'GET',
      path: '/eth/v1/beacon/headers/:block_id',
      resource: 'beacon',
      handler: (req: StandinRequest) => {
        const slot = slotOf(req.params.block_id!, req.nowMs);
        return data(
          {
            root: root('block', slot),
            canonical: true,
            header: {
              message: {
                slot: String(slot),
                proposer_index: String(slot % Math.max(1, world.validators.length)),
                parent_root: root('block', slot - 1),
                state_root: root('state', slot),
                body_root: root('body', slot),
              },
              signature: `0x${'00'.repeat(96)}`,
            },
          },
          { execution_optimistic: false, finalized: isFinalized(slot, req.nowMs) },
        );
      },
    },
    {
      method: 'GET',
      path: '/eth/v1/beacon/states/:state_id/finality_checkpoints',
      resource: 'beacon',
      handler: (req) => {
        const slot = slotOf(req.params.state_id!, req.nowMs);
        return data(checkpointsAt(slot, req.nowMs), {
          execution_optimistic: false,
          finalized: isFinalized(slot, req.nowMs),
        });
      },
    },
    {
      method: 'GET',
      path: '/eth/v1/beacon/states/:state_id/validators',
      resource: 'beacon',
      handler: (req) =>
        validators(
          req.params.state_id!,
          req.nowMs,
          splitList(req.query.getAll('status')),
          splitList(req.query.getAll('id')),
        ),
    },
    {
      // The POST variant (postStateValidators): the same answer, its filters in the body (`{ids, statuses}`, either
      // null or absent for no filter).
      method: 'POST',
      path: '/eth/v1/beacon/states/:state_id/validators',
      resource: 'beacon',
      handler: (req) => {
        let body: unknown;
        try {
          body = req.body.trim() ? JSON.parse(req.body) : {};
        } catch {
          throw new HttpError(400, 'Invalid request body');
        }
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new HttpError(400, 'Invalid request body');
        }
        const list = (v: unknown, name: string): string[] => {
          if (v === undefined || v === null) return [];
          if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
            throw new HttpError(400, `Invalid ${name}: expected an array of strings`);
          }
          return v as string[];
        };
        const { ids, statuses } = body as { ids?: unknown; statuses?: unknown };
        return validators(req.params.state_id!, req.nowMs, list(statuses, 'statuses'), list(ids, 'ids'));
      },
    },
    ...(options.validatorCount
      ? [
          {
            // Prysm's counting endpoint (not in the standard Beacon APIs): one `{status, count}` per status asked,
            // every exact status when none is; counts and flags as strings, as Prysm answers.
            method: 'GET' as const,
            path: '/eth/v1/beacon/states/:state_id/validator_count',
            resource: 'beacon',
            handler: (req: StandinRequest) => {
              const slot = slotOf(req.params.state_id!, req.nowMs);
              const statuses = splitList(req.query.getAll('status'));
              for (const s of statuses) if (!STATUS_FILTERS.has(s)) throw new HttpError(400, `Invalid status: ${s}`);
              const all = world.at(Math.floor(slot / SLOTS_PER_EPOCH));
              return data(
                (statuses.length ? statuses : [...VALIDATOR_STATUSES]).map((s) => ({
                  status: s,
                  count: String(all.filter((v) => v.status === s || v.status.startsWith(`${s}_`)).length),
                })),
                { execution_optimistic: 'false', finalized: String(isFinalized(slot, req.nowMs)) },
              );
            },
          },
        ]
      : []),
  ];
}

export async function startBeaconStandin(options: BeaconStandinOptions): Promise<BeaconStandin> {
  const world = new BeaconWorld(options.seed, options.validators ?? 512, options.days);
  const chain: ChainView = {
    genesisTime: Math.floor(options.clock.nowMs() / 1000) - options.days * 86_400,
    finalized: null,
  };
  const refresh = async () => {
    if (!options.rpcUrl) return;
    const block = (tag: string) =>
      jsonRpc<{ number: string; hash: string; timestamp: string } | null>(options.rpcUrl!, 'eth_getBlockByNumber', [
        tag,
        false,
      ]);
    const [genesis, finalized] = await Promise.all([block('0x0'), block('finalized')]);
    if (genesis) chain.genesisTime = Number.parseInt(genesis.timestamp, 16);
    chain.finalized = finalized
      ? {
          number: Number.parseInt(finalized.number, 16),
          hash: finalized.hash,
          timestamp: Number.parseInt(finalized.timestamp, 16),
        }
      : null;
  };
  await refresh();
  const service: StandinService = {
    name: 'beacon',
    routes: beaconRoutes(world, chain, { validatorCount: options.validatorCount ?? false }),
    dialect: beaconDialect,
  };
  const standin = await startStandin(service, {
    seed: options.seed,
    clock: options.clock,
    rateLimit: { limit: 1_000_000, anonymousLimit: 1_000_000 },
  });
  let polling = false;
  const timer = options.rpcUrl
    ? setInterval(() => {
        if (polling) return;
        polling = true;
        // A chain that is briefly busy answers at the next poll; the last read stays meanwhile.
        refresh()
          .catch(() => undefined)
          .finally(() => {
            polling = false;
          });
      }, options.pollMs ?? 2000)
    : undefined;
  timer?.unref();
  return {
    ...standin,
    world,
    refresh,
    get genesisTime() {
      return chain.genesisTime;
    },
    close: async () => {
      if (timer) clearInterval(timer);
      await standin.close();
    },
  };
}
