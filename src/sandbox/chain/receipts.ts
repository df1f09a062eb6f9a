/** Receipts and logs as the node returns them, and what the sandbox reads from them (token transfers). */
import { type Hex, toEventSelector } from 'viem';

export interface RpcLog {
  readonly address: string;
  readonly topics: readonly Hex[];
  readonly data: Hex;
}

export interface RpcReceipt {
  readonly transactionHash: Hex;
  readonly status: Hex;
  readonly from: string;
  readonly logs: readonly RpcLog[];
}
export const TRANSFER_TOPIC = toEventSelector('Transfer(address,address,uint256)');
export const DEPOSIT_TOPIC = toEventSelector('Deposit(address,uint256)');
export const WITHDRAWAL_TOPIC = toEventSelector('Withdrawal(address,uint256)');

/** The 20-byte address in a 32-byte topic, lowercase. */
export function topicAddress(topic: Hex | undefined): string {
  return topic ? `0x${topic.slice(26)}` : '';
}

/** What `to` received of `token` in a mined transaction: the sum of its ERC-20 `Transfer`s to `to`. */
export function received(receipt: RpcReceipt, token: string, to: string): bigint {
  const [tokenId, toId] = [token.toLowerCase(), to.toLowerCase()];
  let total = 0n;
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== tokenId || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) continue;
    if (topicAddress(log.topics[2]) === toId) total += BigInt(log.data);
  }
  return total;
}
