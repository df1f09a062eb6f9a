import type { Transaction } from 'kysely';
import { decodeEventLog, keccak256, parseAbi, toHex } from 'viem';
import { ServiceError } from '../../core/errors.js';
import { nowSeconds } from '../../core/time.js';
import type { ApplyContext, BlockRange, IngestSink, LogQuery } from '../../jobs/evm/ingest.js';
import { ingest } from '../../jobs/evm/ingest.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import { readCallsAt, type StateCall } from '../../sources/evm/source.js';
import type { EvmLog } from '../../sources/evm/types.js';
import type { Database } from '../../store/schema.js';
import { eachTarget } from '../kit/each-target.js';
import { ingestStart } from '../kit/ingest-start.js';
import { SnapshotSchedule } from '../kit/snapshot-schedule.js';
import type { ContractReading, SampleReading, TokenSnapshotFact, TransferFact } from './facts.js';
import { balanceDeltas } from './ledger.js';
import { applyTransferRange, netMinted, rollbackTransferRange, TokenomicsRepository } from './repo.js';
import { DAY_END_RETENTION_DAYS, DAY_END_TOLERANCE, snapshotsToPrune } from './snapshots.js';
import type { LabelKind, TokenTarget } from './targets.js';

/**
 * Every read of the tokenomics area from the chain, turned into facts:
 * - `TransferSink`, the EVM ingest engine's sink for one token: its ERC-20 `Transfer`s from its deployment block (or
 *   block 0) into `tok_transfers`, each range's moving the ledger's balances (`tok_balances`) in the range's
 *   transaction; a reorganisation takes its transfers back out of the balances;
 * - snapshots (`tok_snapshots`) at the ingested head every `SNAPSHOT_EVERY` of chain time and at the last block of
 *   each past UTC day of the published week and the 30 days before it (monthly inflation and burn: snapshots.ts):
 *   `totalSupply()`, `balanceOf` of a sample of the ledger's addresses (the largest and a sample that moves with the
 *   block) against the ledger at that block, and each labelled address's balance with the views of its kind
 *   (facts.ts). A first run takes the past days' ends of those 37 days at their blocks (an archive node: a node
 *   without that state leaves them gaps); a day end below the transfers' retention cannot be taken later;
 * - the retention: transfers older than `TRANSFER_RETENTION_SECONDS`; snapshots by `snapshotsToPrune` (every one
 *   for 9 days, day-end ones for 38).
 */

export const TRANSFER_TOPIC = keccak256(toHex('Transfer(address,address,uint256)'));
const TRANSFER_ABI = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);

export const ERC20_VIEWS = parseAbi([
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
]);

/** The views each kind of labelled contract has (facts.ts). */
const VIEWS_ABI = parseAbi([
  'function recipient() view returns (address)',
  'function vestingAmount() view returns (uint256)',
  'function vestingBegin() view returns (uint256)',
  'function vestingCliff() view returns (uint256)',
  'function vestingEnd() view returns (uint256)',
  'function lastUpdate() view returns (uint256)',
  'function beneficiary() view returns (address)',
  'function start() view returns (uint256)',
  'function duration() view returns (uint256)',
  'function released(address token) view returns (uint256)',
  'function vestedAmount(address token, uint64 timestamp) view returns (uint256)',
  'function releaseTime() view returns (uint256)',
  'function token() view returns (address)',
  'function merkleRoot() view returns (bytes32)',
  'function admin() view returns (address)',
  'function delay() view returns (uint256)',
  'function getMinDelay() view returns (uint256)',
]);

type ViewName = (typeof VIEWS_ABI)[number]['name'];

/** The views read per kind; `token`/`time` mark the arguments (the token's address, the block's time). */
const KIND_VIEWS: Partial<
  Record<LabelKind, readonly (ViewName | [ViewName, 'token'] | [ViewName, 'token', 'time'])[]>
> = {
  treasury_vester: ['recipient', 'vestingAmount', 'vestingBegin', 'vestingCliff', 'vestingEnd', 'lastUpdate'],
  vesting_wallet: ['beneficiary', 'start', 'duration', ['released', 'token'], ['vestedAmount', 'token', 'time']],
  token_timelock: ['beneficiary', 'releaseTime', 'token'],
  merkle_distributor: ['token', 'merkleRoot'],
  timelock: ['admin', 'delay'],
  timelock_controller: ['getMinDelay'],
};

/** Transfers are kept this long: the published week's 24-hour windows and day ends, and two days of margin. */
export const TRANSFER_RETENTION_SECONDS = 10 * 86_400;
/** A snapshot of the head at most this often (chain time). */
export const SNAPSHOT_EVERY = 3600;
/** Addresses whose ledger balance a snapshot checks against `balanceOf`: the largest, and as many sampled. */
const SAMPLE_LARGEST = 20;
const SAMPLE_SPREAD = 20;

/**
 * A past day's record is read at one block, the one its snapshot was taken at (the record names it): the day's last
 * block, or a head snapshot within the day's last hour (an hour: the sandbox's blocks are an hour apart). Day ends
 * are taken back to the week's oldest day's 30 days before (`supply30d`).
 */
export const TOKENOMICS_SNAPSHOTS = new SnapshotSchedule({
  everySeconds: SNAPSHOT_EVERY,
  days: DAY_END_RETENTION_DAYS - 1,
  toleranceSeconds: DAY_END_TOLERANCE,
  rememberGaps: true,
});

export const transfersKey = (t: Pick<TokenTarget, 'chain' | 'address'>) => `tokenomics:${t.chain}:${t.address}`;

/** A `Transfer` log of an ERC-20 (three topics; an ERC-721's has four and is not one), or undefined. */
export function decodeTransfer(log: EvmLog): Omit<TransferFact, 'timestamp'> | undefined {
  if (log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) return undefined;
  const { args } = decodeEventLog({ abi: TRANSFER_ABI, data: log.data, topics: log.topics as never });
  return {
    blockNumber: Number(log.blockNumber),
    logIndex: Number(log.logIndex),
    txHash: (log.transactionHash ?? '').toLowerCase(),
    from: args.from.toLowerCase(),
    to: args.to.toLowerCase(),
    value: args.value,
  };
}

export class TransferSink implements IngestSink {
  readonly key: string;
  readonly stages = 1;

  constructor(
    readonly target: TokenTarget,
    readonly startBlock: number,
  ) {
    this.key = transfersKey(target);
  }

  async queries(): Promise<LogQuery[]> {
    return [{ addresses: [this.target.address], topics: [[TRANSFER_TOPIC]] }];
  }

  async apply(
    trx: Transaction<Database>,
    range: BlockRange,
    logs: readonly (readonly EvmLog[])[],
    ctx: ApplyContext,
  ): Promise<number> {
    const transfers: TransferFact[] = [];
    for (const log of logs[0] ?? []) {
      if (log.address.toLowerCase() !== this.target.address) continue;
      const t = decodeTransfer(log);
      if (!t) continue;
      const block = ctx.blocks.get(t.blockNumber);
      if (!block) throw new Error(`no block info for block ${t.blockNumber}`);
      transfers.push({ ...t, timestamp: block.timestamp });
    }
    return applyTransferRange(trx, {
      chain: this.target.chain,
      token: this.target.address,
      startBlock: this.startBlock,
      from: range.from,
      toBlock: range.to,
      transfers,
    });
  }

  async rollback(trx: Transaction<Database>, afterBlock: number): Promise<void> {
    await rollbackTransferRange(trx, { chain: this.target.chain, token: this.target.address, afterBlock });
  }
}

/** The area's reads of its tokens, one sink per token, each from its start block. */
export class TokenomicsIngest {
  private readonly starts = new Map<string, { block: number; timestamp: number }>();

  constructor(
    private readonly evm: EvmChains,
    private readonly targets: readonly TokenTarget[],
    private readonly schedule: SnapshotSchedule = TOKENOMICS_SNAPSHOTS,
  ) {}

  /** Every token in turn; one that fails keeps what it wrote and fails the run after the others are done. */
  async run(ctx: JobContext): Promise<string> {
    const parts = await eachTarget(
      ctx,
      this.targets,
      (t) => `${t.chain}/${t.symbol}`,
      (t) => this.runOne(ctx, t),
    );
    return parts.join('; ');
  }

  private async runOne(ctx: JobContext, target: TokenTarget): Promise<string> {
    const source = this.evm.source(target.chain);
    const key = transfersKey(target);
    let start = this.starts.get(key);
    if (start === undefined) {
      // Holders need every transfer since the deployment: the deployment block, else block 0, never a look-back.
      start = await ingestStart(ctx, source, `${key}:start`, { startBlocks: [target.startBlock], lookbackSeconds: 0 });
      this.starts.set(key, start);
    }
    const result = await ingest(source, ctx.store, new TransferSink(target, start.block), {
      signal: ctx.signal,
      now: () => nowSeconds(ctx.clock),
      log: ctx.log,
    });
    const repo = new TokenomicsRepository(ctx.store.db);
    const ledger = await repo.ledger(target.chain, target.address);
    const snapshots: number[] = [];
    let pruned = 0;
    if (ledger && ledger.blockNumber >= start.block) {
      const head = await source.getBlock(ledger.blockNumber);
      if (head) {
        snapshots.push(
          ...(await this.schedule.take({
            log: ctx.log,
            source,
            key,
            head,
            times: await repo.snapshotTimes(target.chain, target.address),
            startBlock: start.block,
            startTimestamp: start.timestamp,
            snapshot: async (block) => repo.saveSnapshot(await readSnapshot(source, repo, target, block)),
            what: `tokenomics ${target.symbol}`,
          })),
        );
        pruned = await repo.pruneTransfers(target.chain, target.address, head.timestamp - TRANSFER_RETENTION_SECONDS);
        if (snapshots.length) {
          const old = snapshotsToPrune(await repo.snapshotTimes(target.chain, target.address), head.timestamp);
          await repo.deleteSnapshots(target.chain, target.address, old);
        }
      }
    }
    return (
      `${target.chain}/${target.symbol}: blocks ${result.from}–${result.to}, ${result.facts} transfers` +
      (ledger ? `, ${ledger.transfers} in all` : '') +
      (result.reorgedFrom !== undefined ? `, reorg rolled back from ${result.reorgedFrom}` : '') +
      (snapshots.length ? `, snapshots at ${snapshots.join(', ')}` : '') +
      (pruned ? `, ${pruned} old transfers pruned` : '')
    );
  }
}

/** A pseudo-random address that moves with the block: where the spread part of the sample starts. */
export const samplePivot = (block: number) => `0x${keccak256(toHex(block)).slice(2, 42)}`;

/**
 * The token's state at a block (the ledger is at or past it): `totalSupply()`, the sampled addresses' `balanceOf`
 * against the ledger turned back to the block, and each label's balance and views.
 */
export async function readSnapshot(
  source: EvmSource,
  repo: TokenomicsRepository,
  target: TokenTarget,
  block: { readonly number: number; readonly timestamp: number },
): Promise<TokenSnapshotFact> {
  const { chain, address: token } = target;
  const ledger = await repo.ledger(chain, token);
  if (!ledger || ledger.blockNumber < block.number) {
    throw new Error(`tokenomics: the ledger of ${chain}/${target.symbol} has not reached block ${block.number}`);
  }
  if (block.number < ledger.prunedThrough) {
    // The ledger cannot be turned back there: its transfers after the block are partly pruned. Not retryable.
    throw new ServiceError(
      `tokenomics: the transfers of ${chain}/${target.symbol} after block ${block.number} were pruned ` +
        `(retained from block ${ledger.prunedThrough}); no snapshot there`,
      false,
    );
  }
  const after = await repo.transfersAfter(chain, token, block.number);
  const deltas = balanceDeltas(after);
  const sampled = [
    ...new Set([
      ...(await repo.largest(chain, token, SAMPLE_LARGEST)),
      ...(await repo.addressesFrom(chain, token, samplePivot(block.number), SAMPLE_SPREAD)),
      ...target.labels.map((l) => l.address),
    ]),
  ];
  const current = await repo.balancesOf(chain, token, sampled);
  const erc20 = (functionName: 'totalSupply' | 'balanceOf', args?: readonly unknown[]): StateCall => ({
    address: target.address,
    abi: ERC20_VIEWS,
    functionName,
    ...(args ? { args } : {}),
  });
  const viewCalls: { label: number; name: string; call: StateCall }[] = [];
  target.labels.forEach((label, i) => {
    for (const spec of KIND_VIEWS[label.kind] ?? []) {
      const [name, ...argKinds] = typeof spec === 'string' ? [spec] : spec;
      const args = argKinds.map((k) => (k === 'token' ? target.address : BigInt(block.timestamp)));
      viewCalls.push({
        label: i,
        name,
        call: {
          address: label.address as `0x${string}`,
          abi: VIEWS_ABI,
          functionName: name,
          ...(args.length ? { args } : {}),
        },
      });
    }
  });
  const results = await readCallsAt(
    source,
    [erc20('totalSupply'), ...sampled.map((a) => erc20('balanceOf', [a])), ...viewCalls.map((v) => v.call)],
    block.number,
  );
  const totalSupply = results[0];
  if (typeof totalSupply !== 'bigint') {
    throw new Error(`tokenomics: totalSupply() of ${chain}/${target.symbol} failed at block ${block.number}`);
  }
  const onchain = new Map<string, bigint>();
  sampled.forEach((a, i) => {
    const v = results[1 + i];
    if (typeof v === 'bigint') onchain.set(a, v);
  });
  const ledgerAt = (a: string) => (current.get(a) ?? 0n) - (deltas.get(a) ?? 0n);
  const sample: SampleReading[] = sampled
    .filter((a) => onchain.has(a))
    .map((a) => ({ address: a, ledger: ledgerAt(a).toString(), onchain: onchain.get(a)!.toString() }));
  const views = target.labels.map(() => ({}) as Record<string, string>);
  viewCalls.forEach((v, i) => {
    const r = results[1 + sampled.length + i];
    if (r === undefined) return;
    views[v.label]![v.name] = typeof r === 'string' ? r.toLowerCase() : String(r);
  });
  const contracts: ContractReading[] = target.labels.map((l, i) => ({
    address: l.address,
    category: l.category,
    kind: l.kind,
    label: l.label,
    held: (onchain.get(l.address) ?? 0n).toString(),
    views: views[i]!,
  }));
  return {
    chain,
    token,
    blockNumber: block.number,
    timestamp: block.timestamp,
    totalSupply,
    replayedSupply: ledger.supply - netMinted(after),
    sample,
    contracts,
  };
}
