import { encodeAbiParameters, pad } from 'viem';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PG_URL, testStore } from '../../../test/helpers.js';
import type { BlockInfo, EvmLog, Hex } from '../../sources/evm/types.js';
import type { Dialect, Store } from '../../store/db.js';
import { readSnapshot, TRANSFER_TOPIC, TransferSink } from './ingest.js';
import { ZERO_ADDRESS } from './ledger.js';
import { TokenomicsRepository } from './repo.js';
import { DAY_END_RETENTION_DAYS, HOURLY_RETENTION_SECONDS, snapshotsToPrune } from './snapshots.js';
import type { TokenTarget } from './targets.js';

const dialects: Dialect[] = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const TOKEN = '0x00000000000000000000000000000000000000aa';
const TARGET: TokenTarget = {
  chain: 'ethereum',
  protocol: 'uniswap',
  symbol: 'UNI',
  address: TOKEN,
  decimals: 18,
  startBlock: 1,
  labels: [],
  declaration: null,
};
const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const T0 = Date.UTC(2026, 10, 20) / 1000;
const block = (n: number): BlockInfo => ({
  number: n,
  hash: `0x${n.toString(16).padStart(64, '0')}` as Hex,
  parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` as Hex,
  timestamp: T0 + n * 3600,
});
const transfer = (n: number, logIndex: number, from: string, to: string, value: bigint, address = TOKEN): EvmLog =>
  ({
    address,
    blockNumber: BigInt(n),
    logIndex,
    transactionHash: `0x${(n * 100 + logIndex).toString(16).padStart(64, '0')}`,
    topics: [TRANSFER_TOPIC, pad(from as Hex), pad(to as Hex)],
    data: encodeAbiParameters([{ type: 'uint256' }], [value]),
  }) as unknown as EvmLog;

describe.each(dialects)('the tokenomics ledger on %s', (dialect) => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = testStore(dialect));
    await store.migrate();
  });
  afterEach(async () => cleanup());

  const apply = (sink: TransferSink, from: number, to: number, logs: EvmLog[]) =>
    store.db.transaction().execute((trx) =>
      sink.apply(trx, { from, to }, [logs], {
        chain: 'ethereum',
        blocks: new Map(Array.from({ length: to - from + 1 }, (_, i) => [from + i, block(from + i)])),
        senders: new Map(),
      }),
    );

  it('keeps balances from transfers range by range, idempotently, and turns a reorganisation back', async () => {
    const repo = new TokenomicsRepository(store.db);
    const sink = new TransferSink(TARGET, 1);
    expect(
      await apply(sink, 1, 3, [
        transfer(1, 0, ZERO_ADDRESS, A, 1000n),
        transfer(2, 0, A, B, 300n),
        transfer(2, 1, A, B, 0n, '0x00000000000000000000000000000000000000bb'), // another token's
        transfer(3, 0, B, C, 100n),
      ]),
    ).toBe(3);
    // The same range again (a crash after the commit, before the checkpoint was seen): nothing twice.
    expect(await apply(sink, 1, 3, [transfer(2, 0, A, B, 300n)])).toBe(0);
    expect(await apply(sink, 4, 5, [transfer(4, 0, C, ZERO_ADDRESS, 40n), transfer(5, 0, B, A, 200n)])).toBe(2);

    const now = await repo.balances('ethereum', TOKEN);
    expect(now?.block).toBe(5);
    expect(Object.fromEntries(now!.balances)).toEqual({ [A]: 900n, [C]: 60n });
    expect(await repo.ledger('ethereum', TOKEN)).toMatchObject({ startBlock: 1, transfers: 5, supply: 960n });
    expect(await repo.largest('ethereum', TOKEN, 1)).toEqual([A]);

    // A reorganisation of blocks 4 and 5: their transfers leave the balances.
    await store.db.transaction().execute((trx) => sink.rollback(trx, 3));
    expect(Object.fromEntries((await repo.balances('ethereum', TOKEN))!.balances)).toEqual({
      [A]: 700n,
      [B]: 200n,
      [C]: 100n,
    });
    expect(await repo.ledger('ethereum', TOKEN)).toMatchObject({ blockNumber: 3, transfers: 3, supply: 1000n });
    expect((await repo.transfersAfter('ethereum', TOKEN, 0)).map((t) => t.blockNumber)).toEqual([1, 2, 3]);
  });

  it('prunes old transfers, and refuses to turn the ledger back below them; below the start it empties it', async () => {
    const repo = new TokenomicsRepository(store.db);
    const sink = new TransferSink(TARGET, 1);
    await apply(sink, 1, 4, [
      transfer(1, 0, ZERO_ADDRESS, A, 1000n),
      transfer(2, 0, A, B, 300n),
      transfer(4, 0, B, C, 100n),
    ]);
    expect(await repo.pruneTransfers('ethereum', TOKEN, block(3).timestamp)).toBe(2);
    expect(await repo.ledger('ethereum', TOKEN)).toMatchObject({ prunedThrough: 2, transfers: 3 });
    // Balances are whole although the transfers behind them are gone.
    expect(Object.fromEntries((await repo.balances('ethereum', TOKEN))!.balances)).toEqual({
      [A]: 700n,
      [B]: 200n,
      [C]: 100n,
    });
    // A snapshot below the pruned transfers would turn the ledger back wrongly: refused for good (not retried).
    const refused = readSnapshot(undefined as never, repo, TARGET, block(1)).catch((e: unknown) => e);
    expect(await refused).toMatchObject({ name: 'ServiceError', retryable: false, message: /pruned/ });
    await store.db.transaction().execute((trx) => sink.rollback(trx, 2));
    await expect(store.db.transaction().execute((trx) => sink.rollback(trx, 1))).rejects.toThrow(/pruned/);
    await store.db.transaction().execute((trx) => sink.rollback(trx, 0));
    expect(await repo.ledger('ethereum', TOKEN)).toBeUndefined();
    expect(await repo.balances('ethereum', TOKEN)).toBeUndefined();
  });

  it('keeps the snapshots the retention does not choose, day ends beyond the hourly ones (snapshotsToPrune)', async () => {
    const repo = new TokenomicsRepository(store.db);
    const snap = (n: number, timestamp: number) =>
      repo.saveSnapshot({
        chain: 'ethereum',
        token: TOKEN,
        blockNumber: n,
        timestamp,
        totalSupply: 1000n,
        replayedSupply: 1000n,
        sample: [],
        contracts: [],
      });
    // A snapshot every 4 hours over 45 days, each at the last second of its 4 hours (a day's last: its day end).
    const hours = 45 * 24;
    for (let h = 0; h < hours; h += 4) await snap(h + 1, T0 + h * 3600 + 4 * 3600 - 1);
    const head = T0 + hours * 3600 - 1;
    await repo.deleteSnapshots('ethereum', TOKEN, snapshotsToPrune(await repo.snapshotTimes('ethereum', TOKEN), head));
    const kept = (await repo.snapshotTimes('ethereum', TOKEN)).sort((a, b) => a.blockNumber - b.blockNumber);
    const hourly = kept.filter((s) => s.timestamp >= head - HOURLY_RETENTION_SECONDS);
    const dayEnds = kept.filter((s) => s.timestamp < head - HOURLY_RETENTION_SECONDS);
    expect(hourly.length).toBe(9 * 6 + 1);
    expect(dayEnds.map((s) => (s.timestamp - T0 + 1) / 86_400)).toEqual(
      Array.from({ length: DAY_END_RETENTION_DAYS - 9 }, (_, i) => 45 - DAY_END_RETENTION_DAYS + i),
    );
  });
});
