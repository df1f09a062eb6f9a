import { createPublicClient, decodeEventLog, type Hex, http, parseAbiItem, toEventSelector } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dexArea } from '../src/areas/dex/index.js';
import { stablecoinArea } from '../src/areas/stablecoin/index.js';
import { stableTransfersKey } from '../src/areas/stablecoin/ingest.js';
import { readCheckpoint } from '../src/store/checkpoints.js';
import { type TestApp, testApp } from './helpers.js';
import { areaRunner } from './support/areas.js';
import { smallWorld, type TestWorld } from './support/dex-world.js';

/**
 * A stablecoin deployed longer ago than the published week (as DAI since 2019 and LUSD since 2021 on mainnet): its
 * `Transfer`s are read from 8 days before the first ingestion only (`TRANSFER_LOOKBACK`), not from the deployment.
 * On a 10-day world: the transfers' part starts after the deployment, holders (which need the whole replay) are null
 * with `partial_history` rather than a count of the addresses seen lately, the score's holder component is null with
 * the same reason (never folded into the collateral's), and every published day's mints and burns still equal a
 * recount of that day's `Transfer` logs from the chain.
 */

interface Weekly {
  date: string;
  partial: boolean;
  as_of: string;
  snapshot_block: number | null;
  holders: number | null;
  minted: number | null;
  burned: number | null;
  gap_reasons: Record<string, string>;
}

interface Component {
  name: string;
  value: number | null;
  weight: number;
  inputs: Record<string, unknown>;
  gap_reason?: string;
}

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const ZERO = '0x0000000000000000000000000000000000000000';
const DAY = 86_400;
/** A log as `eth_getLogs` answers it (numbers as hex strings). */
interface RawLog {
  readonly blockNumber: Hex;
  readonly data: Hex;
  readonly topics: Hex[];
}

describe('stablecoins deployed before the published week', () => {
  let w: TestWorld;
  let t: TestApp;

  beforeAll(async () => {
    w = await smallWorld({ stablecoins: true, days: 10, scale: 0.2 });
    t = await testApp();
    await areaRunner(dexArea, w.env, t.store, t.clock, () => t.sync()).all();
    await areaRunner(stablecoinArea, w.env, t.store, t.clock, () => t.sync()).all();
    await t.sync();
  }, 600_000);

  afterAll(async () => {
    await t?.close();
    await w?.close();
  });

  for (const protocol of ['makerdao', 'liquity'] as const) {
    it(`${protocol}: transfers from 8 days back only; holders null (partial_history); each day's mints and burns recounted`, async () => {
      const m = protocol === 'makerdao' ? w.world.manifest.maker! : w.world.manifest.liquity!;
      const token = protocol === 'makerdao' ? w.world.manifest.maker!.dai : w.world.manifest.liquity!.lusd;
      const start = await readCheckpoint<{ block: number }>(
        t.store.db,
        `${stableTransfersKey('ethereum', protocol)}:start`,
      );
      expect(start!.block, 'the transfers start after the deployment').toBeGreaterThan(m.startBlock);

      const res = await t.app.inject({
        url: `/data/stablecoin/${protocol}`,
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect(res.statusCode).toBe(200);
      const records = (res.json() as { data: Weekly[] }).data;
      expect(records).toHaveLength(7);
      const client = createPublicClient({ transport: http(w.world.rpcUrl) });
      const logs = (await client.request({
        method: 'eth_getLogs',
        params: [{ address: token, topics: [toEventSelector(TRANSFER)], fromBlock: '0x0', toBlock: 'latest' }],
      })) as RawLog[];
      const times = new Map<string, number>();
      for (const l of logs) {
        if (!times.has(l.blockNumber)) {
          const block = await client.getBlock({ blockNumber: BigInt(l.blockNumber) });
          times.set(l.blockNumber, Number(block.timestamp));
        }
      }
      // The recount's day window: [day start, next day start) by block timestamp, up to as_of on the running day.
      // A block stamped exactly 00:00:00 belongs to the day it starts and to no other (issue 26).
      const flows = new Map<string, { minted: bigint; burned: bigint }>();
      for (const r of records.filter((x) => x.snapshot_block !== null)) {
        expect(r.holders, r.date).toBeNull();
        expect(r.gap_reasons.holders, r.date).toBe('partial_history');
        const dayStart = Date.parse(`${r.date}T00:00:00Z`) / 1000;
        const until = r.partial ? Date.parse(r.as_of) / 1000 : dayStart + DAY - 1;
        let minted = 0n;
        let burned = 0n;
        for (const l of logs) {
          const at = times.get(l.blockNumber)!;
          if (at < dayStart || at > until) continue;
          const e = decodeEventLog({ abi: [TRANSFER], data: l.data, topics: l.topics as [Hex, ...Hex[]] });
          if (e.args.from.toLowerCase() === ZERO) minted += e.args.value;
          if (e.args.to.toLowerCase() === ZERO) burned += e.args.value;
        }
        flows.set(r.date, { minted, burned });
        expect(r.minted, `${r.date} minted`).toBeCloseTo(Number(minted) / 1e18, 4);
        expect(r.burned, `${r.date} burned`).toBeCloseTo(Number(burned) / 1e18, 4);
      }
      // A day's mints minus burns are the supply change between its snapshot and the previous day's (each past
      // day's snapshot is its last block), read on chain at those blocks: nothing falls between two days.
      const supplyAt = (block: number) =>
        client.readContract({
          address: token as Hex,
          abi: [parseAbiItem('function totalSupply() view returns (uint256)')],
          functionName: 'totalSupply',
          blockNumber: BigInt(block),
        });
      let compared = 0;
      for (let i = 0; i + 1 < records.length; i++) {
        const day = records[i]!;
        const before = records[i + 1]!;
        if (day.snapshot_block === null || before.snapshot_block === null) continue;
        const f = flows.get(day.date)!;
        const change = (await supplyAt(day.snapshot_block)) - (await supplyAt(before.snapshot_block));
        expect(f.minted - f.burned, `${day.date}: mints − burns = supply change`).toBe(change);
        compared++;
      }
      expect(compared, 'consecutive days with snapshots').toBeGreaterThan(3);

      // The score: the holder component null with the holders' reason on every day with a snapshot; the collateral
      // component keeps its own meaning (a value, or a reason of its own).
      const scores = await t.app.inject({
        url: `/scores/liquidity-stablecoin/ethereum/${protocol}`,
        headers: { authorization: `Bearer ${t.token}` },
      });
      expect(scores.statusCode).toBe(200);
      const days = (scores.json() as { data: { date: string; components: Component[] }[] }).data;
      const withSnapshot = new Set(records.filter((x) => x.snapshot_block !== null).map((x) => x.date));
      const scored = days.filter((d) => withSnapshot.has(d.date));
      expect(scored.length).toBe(withSnapshot.size);
      for (const d of scored) {
        const part = (name: string) => d.components.find((c) => c.name === name);
        expect(part('holder_concentration'), d.date).toMatchObject({
          value: null,
          weight: 0,
          gap_reason: 'partial_history',
        });
        const collateral = part('collateral_concentration')!;
        expect(collateral.gap_reason, d.date).not.toBe('partial_history');
        if (collateral.value !== null) expect(collateral.inputs.collateral_hhi, d.date).toBeTypeOf('number');
      }
    });
  }
});
