/** The layer-2 driver's signing helpers (chain.ts). */
import { type Hex, parseTransaction, serializeTransaction, type TransactionSerializableEIP1559 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/** Signing accounts by key: deriving the public key is as slow as a signature. */
const accounts = new Map<Hex, ReturnType<typeof privateKeyToAccount>>();
export function accountOf(key: Hex) {
  let account = accounts.get(key);
  if (!account) {
    account = privateKeyToAccount(key);
    accounts.set(key, account);
  }
  return account;
}

/** A signed transaction's unsigned bytes (what OP's GasPriceOracle is asked about). */
export function unsignedOf(signed: Hex): Hex {
  const { r: _r, s: _s, v: _v, yParity: _y, ...tx } = parseTransaction(signed);
  return serializeTransaction(tx as TransactionSerializableEIP1559);
}
