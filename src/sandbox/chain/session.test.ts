/**
 * `ChainSession.settle`, which a layer-2 chain hosting protocols calls with the block's receipts of the session's
 * transactions (l2/chain.ts): every sent transaction must be there in its queued order, reverts are judged by kind.
 */
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { DEPLOYER_PRIVATE_KEY, signerAgent } from './agent.js';
import type { RpcReceipt } from './receipts.js';
import { ChainSession, type QueuedTx, type SentTransactions } from './session.js';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

function sent(kinds: QueuedTx['kind'][]): SentTransactions {
  const agent = signerAgent(DEPLOYER_PRIVATE_KEY, 0);
  const queue = kinds.map((kind, i) => ({ to: null, data: '0x' as Hex, gas: 21_000n, kind, agent, nonce: i }));
  return { queue, hashes: kinds.map((_, i) => hash(i + 1)), signed: kinds.map(() => '0x' as Hex) };
}
const receipt = (n: number, ok: boolean): RpcReceipt => ({
  transactionHash: hash(n),
  status: ok ? '0x1' : '0x0',
  from: '0x',
  logs: [],
});

describe('ChainSession.settle', () => {
  // Never contacted: settle reads only what it is given.
  const session = new ChainSession('http://127.0.0.1:1', 42161, { order: 'arrival', maxFeePerGas: 1n });

  it('counts the block: tolerated reverts (a swap) apart from unexpected ones (an approval)', () => {
    const outcome = session.settle(
      sent(['swap', 'approve', 'setup']),
      [receipt(1, false), receipt(2, false), receipt(3, true)],
      100,
    );
    expect(outcome).toMatchObject({ transactions: 3, revertedTolerated: 1, revertedUnexpected: 1 });
    expect(outcome.unexpected).toEqual([{ kind: 'approve', hash: hash(2), from: expect.any(String) }]);
  });

  it('refuses a block that misses one of them or holds them in another order', () => {
    expect(() => session.settle(sent(['setup', 'setup']), [receipt(1, true)], 100)).toThrow(
      /the block at 100 holds 1 of 2 transactions/,
    );
    expect(() => session.settle(sent(['setup', 'setup']), [receipt(2, true), receipt(1, true)], 100)).toThrow(
      /not in the queued order/,
    );
  });

  it('an empty queue settles an empty block', () => {
    expect(session.settle(sent([]), [], 100)).toMatchObject({ transactions: 0, revertedUnexpected: 0 });
  });
});
