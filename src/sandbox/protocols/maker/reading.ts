/** What the Maker actors read of the chain before a step (one batch at the head, then the auctions' prices). */
import { type Address, decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import type { Agent } from '../../chain/agent.js';
import type { RpcCall, RpcClient } from '../../chain/rpc.js';
import type { ManifestMaker } from '../../world/manifest.js';
import type { StablePair, StablePairReserves } from '../uniswap/stable-pair.js';
import { calcAbi, clipperAbi, pairReservesAbi, spotAbi, vatAbi } from './abis.js';
import { ilkBytes } from './deploy.js';

const RAY = 10n ** 27n;

export interface IlkReading {
  readonly Art: bigint;
  readonly rate: bigint;
  readonly mat: bigint;
  readonly dust: bigint;
  readonly line: bigint;
}

interface AuctionReading {
  readonly clip: Address;
  readonly ilk: string;
  readonly id: bigint;
  readonly needsRedo: boolean;
  readonly price: bigint;
  readonly lot: bigint;
  readonly tab: bigint;
}

export interface MakerReading {
  readonly ilks: ReadonlyMap<string, IlkReading>;
  /** By vault index: ink, art. */
  readonly urns: ReadonlyMap<number, { ink: bigint; art: bigint }>;
  readonly keeperDai: bigint;
  readonly auctions: readonly AuctionReading[];
  /** The DAI/USDC pair's reserves (updated by the step's swaps), once seeded. */
  readonly pair?: StablePairReserves;
  /** The market maker's vault. */
  readonly pairVault?: { ink: bigint; art: bigint };
}

/** Who reads, and what: the manifest, the vaults and their owners, the keeper and the market maker's pair. */
export interface MakerReader {
  readonly m: ManifestMaker;
  readonly rpc: RpcClient;
  readonly vaults: readonly { readonly owner: number; readonly ilk: string; readonly open: boolean }[];
  readonly agents: readonly Agent[];
  readonly keeper: Agent;
  readonly pairMaker?: { readonly agent: Agent; readonly pair: StablePair };
  /** The market maker's collateral type. */
  readonly pairIlk: string;
}

/**
 * One batch of reads at the head (the state the block starts from): every type's Vat and Spot figures, the open
 * vaults, the keeper's DAI in the Vat, the Clippers' running auctions as they stand at `at`, and the pair.
 */
export async function readMaker(r: MakerReader, at: number): Promise<MakerReading> {
  const m = r.m;
  const call = (to: Address, data: Hex): RpcCall => ({ method: 'eth_call', params: [{ to, data }, 'latest'] });
  const calls: RpcCall[] = [];
  for (const i of m.ilks) {
    calls.push(call(m.vat, encodeFunctionData({ abi: vatAbi, functionName: 'ilks', args: [ilkBytes(i.ilk)] })));
    calls.push(call(m.spot, encodeFunctionData({ abi: spotAbi, functionName: 'ilks', args: [ilkBytes(i.ilk)] })));
  }
  const open = r.vaults.map((v, i) => [v, i] as const).filter(([v]) => v.open);
  for (const [v] of open) {
    const owner = r.agents[v.owner]!.address;
    calls.push(call(m.vat, encodeFunctionData({ abi: vatAbi, functionName: 'urns', args: [ilkBytes(v.ilk), owner] })));
  }
  calls.push(call(m.vat, encodeFunctionData({ abi: vatAbi, functionName: 'dai', args: [r.keeper.address] })));
  const clips = m.ilks.filter((i) => i.clip);
  for (const i of clips) calls.push(call(i.clip!, encodeFunctionData({ abi: clipperAbi, functionName: 'list' })));
  const pm = r.pairMaker;
  if (pm) {
    calls.push(call(pm.pair.ref.address, encodeFunctionData({ abi: pairReservesAbi, functionName: 'getReserves' })));
    calls.push(
      call(
        m.vat,
        encodeFunctionData({
          abi: vatAbi,
          functionName: 'urns',
          args: [ilkBytes(r.pairIlk), pm.agent.address],
        }),
      ),
    );
  }
  const results = await r.rpc.batchResults<Hex>(calls);
  let pairReading: Pick<MakerReading, 'pair' | 'pairVault'> = {};
  if (pm) {
    const [reserves, urn] = results.slice(-2);
    const [ink, art] = decodeFunctionResult({ abi: vatAbi, functionName: 'urns', data: urn! });
    // No code at the pair's address until the market maker seeds it.
    const pair =
      reserves && reserves !== '0x'
        ? decodeFunctionResult({ abi: pairReservesAbi, functionName: 'getReserves', data: reserves })
        : undefined;
    pairReading = {
      pairVault: { ink, art },
      ...(pair && pair[0] > 0n ? { pair: pm.pair.reserves(pair[0], pair[1]) } : {}),
    };
  }
  let k = 0;
  const ilks = new Map<string, IlkReading>();
  for (const i of m.ilks) {
    const [Art, rate, , line, dust] = decodeFunctionResult({
      abi: vatAbi,
      functionName: 'ilks',
      data: results[k++]!,
    });
    const [, mat] = decodeFunctionResult({ abi: spotAbi, functionName: 'ilks', data: results[k++]! });
    ilks.set(i.ilk, { Art, rate, mat, dust, line });
  }
  const urns = new Map<number, { ink: bigint; art: bigint }>();
  for (const [, index] of open) {
    const [ink, art] = decodeFunctionResult({ abi: vatAbi, functionName: 'urns', data: results[k++]! });
    urns.set(index, { ink, art });
  }
  const keeperDai = decodeFunctionResult({ abi: vatAbi, functionName: 'dai', data: results[k++]! });
  const ids: { clip: Address; ilk: string; id: bigint }[] = [];
  for (const i of clips) {
    const list = decodeFunctionResult({ abi: clipperAbi, functionName: 'list', data: results[k++]! });
    for (const id of list) ids.push({ clip: i.clip!, ilk: i.ilk, id });
  }
  if (ids.length === 0) return { ilks, urns, keeperDai, auctions: [], ...pairReading };
  // Each auction as it will stand at this block's time (`at`), not at the head's: its sale, and the price its
  // calculator gives then (`getStatus` would answer for the head's time, an hour early in hourly history).
  const clipCalls = (a: { clip: Address; id: bigint }) => [
    call(a.clip, encodeFunctionData({ abi: clipperAbi, functionName: 'sales', args: [a.id] })),
    call(a.clip, encodeFunctionData({ abi: clipperAbi, functionName: 'calc' })),
    call(a.clip, encodeFunctionData({ abi: clipperAbi, functionName: 'tail' })),
    call(a.clip, encodeFunctionData({ abi: clipperAbi, functionName: 'cusp' })),
  ];
  const sales = await r.rpc.batchResults<Hex>(ids.flatMap(clipCalls));
  const parsed = ids.map((a, j) => {
    const [, tab, lot, , tic, top] = decodeFunctionResult({
      abi: clipperAbi,
      functionName: 'sales',
      data: sales[4 * j]!,
    });
    const calc = decodeFunctionResult({ abi: clipperAbi, functionName: 'calc', data: sales[4 * j + 1]! });
    const tail = decodeFunctionResult({ abi: clipperAbi, functionName: 'tail', data: sales[4 * j + 2]! });
    const cusp = decodeFunctionResult({ abi: clipperAbi, functionName: 'cusp', data: sales[4 * j + 3]! });
    const dur = BigInt(at) > tic ? BigInt(at) - tic : 0n;
    return { ...a, tab, lot, top, calc, tail, cusp, dur };
  });
  const prices = await r.rpc.batchResults<Hex>(
    parsed.map((a) => call(a.calc, encodeFunctionData({ abi: calcAbi, functionName: 'price', args: [a.top, a.dur] }))),
  );
  const auctions = parsed.map((a, j) => {
    const price = decodeFunctionResult({ abi: calcAbi, functionName: 'price', data: prices[j]! });
    // Clipper.status: done when the tail has passed or the price fell below cusp × top.
    const needsRedo = a.dur > a.tail || (price * RAY) / a.top < a.cusp;
    return { clip: a.clip, ilk: a.ilk, id: a.id, needsRedo, price, lot: a.lot, tab: a.tab };
  });
  return { ilks, urns, keeperDai, auctions, ...pairReading };
}
