/**
 * The liquidity providers: an LP event adds to a pool (1–8 % of its depth; V3 in a range around the price) or,
 * when the LP holds something there, removes 30–100 % of one holding. Their positions are tracked in the scenario's
 * state from the receipts.
 */
import { type Address, encodeFunctionData, toEventSelector } from 'viem';
import type { Agent } from '../../chain/agent.js';
import { tickRange, toRawAmount, v3AmountsForValue } from '../../chain/amm.js';
import { type RpcReceipt, TRANSFER_TOPIC, topicAddress } from '../../chain/receipts.js';
import { pow } from '../../world/pow.js';
import type { Rng } from '../../world/random.js';
import type { V2ShareState, V3PositionState } from '../../world/state.js';
import { v2RouterAbi, v3PositionManagerAbi } from './artifacts.js';
import { DEX_GAS, type Dex, type PoolView } from './dex.js';
import { V3_TICK_SPACING } from './plan.js';

/** LP adds are 1–8 % of the pool's depth; a removal takes 30–100 % of one holding. */
const LP_ADD_SHARE = [0.01, 0.08] as const;
const LP_REMOVE_SHARE = [0.3, 1] as const;
/** An LP who holds something in the pool removes rather than adds this often. */
const LP_REMOVE_PROBABILITY = 0.45;
/** V3 LP ranges: ± these fractions of the price (stable pairs: scaled by STABLE_RANGE_FACTOR). */
const LP_RANGE_WIDTHS = [0.02, 0.05, 0.1, 0.25] as const;
const STABLE_RANGE_FACTOR = 0.05;

const INCREASE_LIQUIDITY_TOPIC = toEventSelector('IncreaseLiquidity(uint256,uint128,uint256,uint256)');
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const UINT128_MAX = 2n ** 128n - 1n;

/** An LP's event in the pool: a removal from one of its holdings, or an addition. */
export function provideLiquidity(dex: Dex, rng: Rng, pool: PoolView, lp: Agent): void {
  if (pool.m.version === 'V2') {
    const share = dex.host.state.v2Shares.find((x) => x.pool === pool.id && x.owner === lp.index);
    if (share && BigInt(share.liquidity) > 0n && rng.chance(LP_REMOVE_PROBABILITY)) v2Remove(dex, rng, pool, lp, share);
    else v2Add(dex, rng, pool, lp);
    return;
  }
  const held = dex.host.state.v3Positions.filter(
    (x) => x.pool === pool.id && x.owner === lp.index && BigInt(x.liquidity) > 0n,
  );
  if (held.length > 0 && rng.chance(LP_REMOVE_PROBABILITY)) v3Remove(dex, rng, pool, lp, rng.pick(held));
  else v3Add(dex, rng, pool, lp);
}

function lpAmounts(dex: Dex, rng: Rng, pool: PoolView): { usd: number; amount0: bigint; amount1: bigint } {
  const usd = pool.runtime.depthUsd * rng.uniform(...LP_ADD_SHARE);
  return { usd, amount0: dex.rawFromUsd(pool.t0, usd / 2), amount1: dex.rawFromUsd(pool.t1, usd / 2) };
}

function v2Add(dex: Dex, rng: Rng, pool: PoolView, lp: Agent): void {
  const { amount0, amount1 } = lpAmounts(dex, rng, pool);
  for (const [token, amount] of [
    [pool.t0, amount0],
    [pool.t1, amount1],
  ] as const) {
    dex.host.spend(lp, token, amount);
    dex.host.approve(lp, token.m.address, pool.dex.router);
  }
  dex.host.session.send(lp, {
    to: pool.dex.router,
    data: encodeFunctionData({
      abi: v2RouterAbi,
      functionName: 'addLiquidity',
      args: [pool.t0.m.address, pool.t1.m.address, amount0, amount1, 0n, 0n, lp.address, dex.deadline],
    }),
    gas: DEX_GAS.v2AddLiquidity,
    kind: 'lp-add',
    onMined: (ok, receipt) => {
      if (!ok) return;
      const minted = receipt.logs.find(
        (l) =>
          l.address.toLowerCase() === pool.id &&
          l.topics[0] === TRANSFER_TOPIC &&
          topicAddress(l.topics[1]) === ZERO_ADDRESS &&
          topicAddress(l.topics[2]) === lp.id,
      );
      if (!minted) return;
      const share = dex.host.state.v2Shares.find((x) => x.pool === pool.id && x.owner === lp.index);
      if (share) share.liquidity = (BigInt(share.liquidity) + BigInt(minted.data)).toString();
      else dex.host.state.v2Shares.push({ pool: pool.id, owner: lp.index, liquidity: BigInt(minted.data).toString() });
      dex.host.state.stats.liquidityChanges += 1;
    },
  });
}

function v2Remove(dex: Dex, rng: Rng, pool: PoolView, lp: Agent, share: V2ShareState): void {
  const held = BigInt(share.liquidity);
  const fraction = rng.uniform(...LP_REMOVE_SHARE);
  const amount = fraction > 0.95 ? held : (held * BigInt(Math.round(fraction * 1000))) / 1000n;
  if (amount === 0n) return;
  dex.host.approve(lp, pool.m.address, pool.dex.router);
  // Taken off now so that a second removal in the same block cannot spend it twice; restored on revert.
  share.liquidity = (held - amount).toString();
  dex.host.session.send(lp, {
    to: pool.dex.router,
    data: encodeFunctionData({
      abi: v2RouterAbi,
      functionName: 'removeLiquidity',
      args: [pool.t0.m.address, pool.t1.m.address, amount, 0n, 0n, lp.address, dex.deadline],
    }),
    gas: DEX_GAS.v2RemoveLiquidity,
    kind: 'lp-remove',
    onMined: (ok) => {
      if (ok) dex.host.state.stats.liquidityChanges += 1;
      else share.liquidity = (BigInt(share.liquidity) + amount).toString();
    },
  });
}

function v3Add(dex: Dex, rng: Rng, pool: PoolView, lp: Agent): void {
  const spacing = V3_TICK_SPACING[pool.m.fee] ?? 60;
  const price = dex.referencePrice(pool);
  const width = rng.pick(LP_RANGE_WIDTHS) * (pool.stablePair ? STABLE_RANGE_FACTOR : 1);
  const [tickLower, tickUpper] = tickRange(price, width, spacing);
  const usd = pool.runtime.depthUsd * rng.uniform(...LP_ADD_SHARE);
  const value = (usd / dex.priceUsd(pool.t1)) * pow(10, pool.t1.m.decimals);
  const amounts = v3AmountsForValue(price, tickLower, tickUpper, value);
  const amount0 = toRawAmount(amounts.amount0);
  const amount1 = toRawAmount(amounts.amount1);
  const manager = pool.dex.positionManager!;
  for (const [token, amount] of [
    [pool.t0, amount0],
    [pool.t1, amount1],
  ] as const) {
    dex.host.spend(lp, token, amount);
    dex.host.approve(lp, token.m.address, manager);
  }
  dex.host.session.send(lp, {
    to: manager,
    data: encodeFunctionData({
      abi: v3PositionManagerAbi,
      functionName: 'mint',
      args: [
        {
          token0: pool.t0.m.address,
          token1: pool.t1.m.address,
          fee: pool.m.fee,
          tickLower,
          tickUpper,
          amount0Desired: amount0,
          amount1Desired: amount1,
          amount0Min: 0n,
          amount1Min: 0n,
          recipient: lp.address,
          deadline: dex.deadline,
        },
      ],
    }),
    gas: DEX_GAS.v3Mint,
    kind: 'lp-add',
    onMined: (ok, receipt) => {
      if (ok) recordV3Position(dex, pool, lp, manager, receipt);
    },
  });
}

function recordV3Position(dex: Dex, pool: PoolView, lp: Agent, manager: Address, receipt: RpcReceipt): void {
  const fromManager = receipt.logs.filter((l) => l.address.toLowerCase() === manager.toLowerCase());
  const nft = fromManager.find(
    (l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 4 && topicAddress(l.topics[1]) === ZERO_ADDRESS,
  );
  const increase = fromManager.find((l) => l.topics[0] === INCREASE_LIQUIDITY_TOPIC);
  if (!nft || !increase) return;
  const liquidity = BigInt(increase.data.slice(0, 66));
  dex.host.state.v3Positions.push({
    tokenId: BigInt(nft.topics[3]!).toString(),
    pool: pool.id,
    owner: lp.index,
    liquidity: liquidity.toString(),
  });
  dex.host.state.stats.liquidityChanges += 1;
}

function v3Remove(dex: Dex, rng: Rng, pool: PoolView, lp: Agent, position: V3PositionState): void {
  const held = BigInt(position.liquidity);
  const fraction = rng.uniform(...LP_REMOVE_SHARE);
  const amount = fraction > 0.95 ? held : (held * BigInt(Math.round(fraction * 1000))) / 1000n;
  if (amount === 0n) return;
  const tokenId = BigInt(position.tokenId);
  position.liquidity = (held - amount).toString();
  const decrease = encodeFunctionData({
    abi: v3PositionManagerAbi,
    functionName: 'decreaseLiquidity',
    args: [{ tokenId, liquidity: amount, amount0Min: 0n, amount1Min: 0n, deadline: dex.deadline }],
  });
  const collect = encodeFunctionData({
    abi: v3PositionManagerAbi,
    functionName: 'collect',
    args: [{ tokenId, recipient: lp.address, amount0Max: UINT128_MAX, amount1Max: UINT128_MAX }],
  });
  dex.host.session.send(lp, {
    to: pool.dex.positionManager!,
    data: encodeFunctionData({ abi: v3PositionManagerAbi, functionName: 'multicall', args: [[decrease, collect]] }),
    gas: DEX_GAS.v3Decrease,
    kind: 'lp-remove',
    onMined: (ok) => {
      if (!ok) {
        position.liquidity = (BigInt(position.liquidity) + amount).toString();
        return;
      }
      dex.host.state.stats.liquidityChanges += 1;
      if (BigInt(position.liquidity) === 0n)
        dex.host.state.v3Positions = dex.host.state.v3Positions.filter((p) => p !== position);
    },
  });
}
