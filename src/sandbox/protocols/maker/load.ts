/**
 * Puts the testchain's MCD deployment (snapshot.ts) into the world's anvil before its genesis block: every contract
 * at its own address with its code, nonce, balance and storage (`anvil_setCode`, `anvil_setNonce`,
 * `anvil_setBalance`, `anvil_setStorageAt`), as if it had been deployed there. An address the world already uses is
 * an error, never overwritten.
 */
import type { Address, Hex } from 'viem';
import type { RpcCall, RpcClient } from '../../chain/rpc.js';
import type { MakerSnapshot } from './snapshot.js';

/** State-setting calls per JSON-RPC batch. */
const LOAD_CHUNK = 500;

const quantity = (n: bigint): Hex => `0x${n.toString(16)}`;

/** Writes every contract of `snapshot` into the node; returns how many accounts and slots were written. */
export async function loadMakerState(
  rpc: RpcClient,
  snapshot: MakerSnapshot,
): Promise<{ accounts: number; slots: number }> {
  const addresses = [...snapshot.accounts.keys()];
  const probes = await rpc.batchResults<Hex>(
    addresses.flatMap((a) => [
      { method: 'eth_getCode', params: [a, 'latest'] },
      { method: 'eth_getTransactionCount', params: [a, 'latest'] },
    ]),
  );
  const taken: Address[] = addresses.filter((_, i) => probes[2 * i] !== '0x' || BigInt(probes[2 * i + 1]!) !== 0n);
  if (taken.length > 0) {
    throw new Error(`maker: the world already uses ${taken.length} of the testchain's addresses (${taken[0]})`);
  }
  const calls: RpcCall[] = [];
  let slots = 0;
  for (const account of snapshot.accounts.values()) {
    calls.push({ method: 'anvil_setCode', params: [account.address, account.code] });
    calls.push({ method: 'anvil_setNonce', params: [account.address, quantity(account.nonce)] });
    if (account.balance > 0n) {
      calls.push({ method: 'anvil_setBalance', params: [account.address, quantity(account.balance)] });
    }
    for (const [slot, value] of account.storage) {
      calls.push({ method: 'anvil_setStorageAt', params: [account.address, slot, value] });
      slots++;
    }
  }
  for (let i = 0; i < calls.length; i += LOAD_CHUNK) await rpc.batchResults(calls.slice(i, i + LOAD_CHUNK));
  return { accounts: addresses.length, slots };
}
