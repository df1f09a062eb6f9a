/**
 * DAI as MakerDAO issues it, for whoever needs some (issue 26, "one DAI"): the world's `DAI` is Maker's `MCD_DAI`, so
 * the genesis block's pool seeds and every agent's top-up come from a vault draw, never from a faucet. The agent
 * wraps ETH, joins it to ETH-A, frobs the debt and exits the DAI (`Vat.hope(DaiJoin)` and the WETH approval once), so
 * DAI's total supply stays exactly the DAI the DaiJoin holds in the Vat.
 */
import { type Address, encodeFunctionData, maxUint256 } from 'viem';
import type { Agent } from '../../chain/agent.js';
import { erc20Abi, weth9Abi } from '../../chain/artifacts.js';
import { type ChainSession, GAS } from '../../chain/session.js';
import { daiJoinAbi, gemJoinAbi, vatAbi } from './abis.js';

const WAD = 10n ** 18n;
const RAY = 10n ** 27n;
const CALL_GAS = 300_000n;

/** Collateral per DAI drawn: 3× (ETH-A's minimum is 150 %), so the ETH crashes leave these vaults safe. */
export const DRAW_COLLATERAL_RATIO = 3n;

export interface DrawTarget {
  readonly vat: Address;
  readonly daiJoin: Address;
  readonly weth: Address;
  /** ETH-A's GemJoin. */
  readonly join: Address;
  /** The collateral type (bytes32). */
  readonly ilk: `0x${string}`;
}

/**
 * Queues `agent`'s draw of `wad` DAI (at least `dust`) against ETH-A at `ethUsdWad` (WAD), the type's `rate` (RAY) as
 * the block starts (a drip in the block only raises it: the debt then covers the exit). Returns the ETH it wraps.
 */
export function queueDaiDraw(
  session: ChainSession,
  agent: Agent,
  target: DrawTarget,
  wad: bigint,
  ethUsdWad: bigint,
  rate: bigint,
  dust: bigint,
): bigint {
  const drawWad = wad * RAY < dust ? (dust + RAY - 1n) / RAY : wad;
  const dart = (drawWad * RAY + rate - 1n) / rate;
  const dink = (drawWad * DRAW_COLLATERAL_RATIO * WAD + ethUsdWad - 1n) / ethUsdWad;
  const send = (to: Address, data: `0x${string}`, value?: bigint) =>
    session.send(agent, { to, data, gas: CALL_GAS, kind: 'fund', ...(value ? { value } : {}) });
  send(target.weth, encodeFunctionData({ abi: weth9Abi, functionName: 'deposit' }), dink);
  const approved = `${target.weth.toLowerCase()}>${target.join.toLowerCase()}`;
  if (!agent.approvals.has(approved)) {
    agent.approvals.add(approved);
    session.send(agent, {
      to: target.weth,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [target.join, maxUint256] }),
      gas: GAS.approve,
      kind: 'approve',
    });
  }
  send(target.join, encodeFunctionData({ abi: gemJoinAbi, functionName: 'join', args: [agent.address, dink] }));
  send(
    target.vat,
    encodeFunctionData({
      abi: vatAbi,
      functionName: 'frob',
      args: [target.ilk, agent.address, agent.address, agent.address, dink, dart],
    }),
  );
  const hoped = `vat>${target.daiJoin.toLowerCase()}`;
  if (!agent.approvals.has(hoped)) {
    agent.approvals.add(hoped);
    send(target.vat, encodeFunctionData({ abi: vatAbi, functionName: 'hope', args: [target.daiJoin] }));
  }
  send(target.daiJoin, encodeFunctionData({ abi: daiJoinAbi, functionName: 'exit', args: [agent.address, drawWad] }));
  return dink;
}
