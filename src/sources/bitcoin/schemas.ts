import { type Static, Type } from '@sinclair/typebox';

/**
 * Bitcoin Core's RPC replies, the fields the service reads (other fields are allowed and ignored). Amounts are BTC
 * numbers as the node prints them (`amounts.ts` turns them into satoshis); hashes are 64 lowercase hex digits.
 */
const Hash = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Int = Type.Integer();
const Num = Type.Number();

export const BlockchainInfo = Type.Object({
  chain: Type.String(),
  blocks: Int,
  headers: Int,
  bestblockhash: Hash,
  difficulty: Num,
  mediantime: Int,
  chainwork: Type.String({ pattern: '^[0-9a-f]+$' }),
  pruned: Type.Boolean(),
  pruneheight: Type.Optional(Int),
  initialblockdownload: Type.Optional(Type.Boolean()),
});
export type BlockchainInfo = Static<typeof BlockchainInfo>;

export const BlockHeader = Type.Object({
  hash: Hash,
  confirmations: Int,
  height: Int,
  version: Int,
  merkleroot: Hash,
  time: Int,
  mediantime: Int,
  nonce: Int,
  bits: Type.String(),
  difficulty: Num,
  chainwork: Type.String({ pattern: '^[0-9a-f]+$' }),
  nTx: Int,
  previousblockhash: Type.Optional(Hash),
  nextblockhash: Type.Optional(Hash),
});
export type BlockHeader = Static<typeof BlockHeader>;

export const ScriptPubKey = Type.Object({
  hex: Type.String(),
  type: Type.String(),
  address: Type.Optional(Type.String()),
});

export const Prevout = Type.Object({
  generated: Type.Boolean(),
  height: Int,
  value: Num,
  scriptPubKey: ScriptPubKey,
});

export const TxIn = Type.Object({
  coinbase: Type.Optional(Type.String()),
  txid: Type.Optional(Hash),
  vout: Type.Optional(Int),
  sequence: Int,
  txinwitness: Type.Optional(Type.Array(Type.String())),
  /** Verbosity 3 only. */
  prevout: Type.Optional(Prevout),
});

export const TxOut = Type.Object({ value: Num, n: Int, scriptPubKey: ScriptPubKey });

export const Tx = Type.Object({
  txid: Hash,
  hash: Hash,
  size: Int,
  vsize: Int,
  weight: Int,
  vin: Type.Array(TxIn),
  vout: Type.Array(TxOut),
  /** BTC; absent for the coinbase and when the node lacks undo data. */
  fee: Type.Optional(Num),
});
export type Tx = Static<typeof Tx>;

const BlockBase = {
  ...BlockHeader.properties,
  size: Int,
  strippedsize: Int,
  weight: Int,
};

export const BlockV1 = Type.Object({ ...BlockBase, tx: Type.Array(Hash) });
export type BlockV1 = Static<typeof BlockV1>;
export const BlockV2 = Type.Object({ ...BlockBase, tx: Type.Array(Tx) });
export type BlockV2 = Static<typeof BlockV2>;

export const BlockStats = Type.Object({
  avgfee: Int,
  avgfeerate: Int,
  avgtxsize: Int,
  blockhash: Hash,
  feerate_percentiles: Type.Array(Int, { minItems: 5, maxItems: 5 }),
  height: Int,
  ins: Int,
  maxfee: Int,
  maxfeerate: Int,
  maxtxsize: Int,
  medianfee: Int,
  mediantime: Int,
  mediantxsize: Int,
  minfee: Int,
  minfeerate: Int,
  mintxsize: Int,
  outs: Int,
  subsidy: Int,
  swtotal_size: Int,
  swtotal_weight: Int,
  swtxs: Int,
  time: Int,
  total_out: Int,
  total_size: Int,
  total_weight: Int,
  totalfee: Int,
  txs: Int,
  utxo_increase: Int,
  utxo_size_inc: Int,
  utxo_increase_actual: Type.Optional(Int),
  utxo_size_inc_actual: Type.Optional(Int),
});
export type BlockStats = Static<typeof BlockStats>;

export const ChainTxStats = Type.Object({
  time: Int,
  txcount: Int,
  window_final_block_hash: Hash,
  window_final_block_height: Type.Optional(Int),
  window_block_count: Int,
  window_tx_count: Type.Optional(Int),
  window_interval: Type.Optional(Int),
  txrate: Type.Optional(Num),
});
export type ChainTxStats = Static<typeof ChainTxStats>;

export const MiningInfo = Type.Object({
  blocks: Int,
  difficulty: Num,
  networkhashps: Num,
  pooledtx: Int,
  chain: Type.String(),
});
export type MiningInfo = Static<typeof MiningInfo>;

export const MempoolInfo = Type.Object({
  loaded: Type.Optional(Type.Boolean()),
  size: Int,
  bytes: Int,
  usage: Int,
  /** BTC (Bitcoin Core ≥ 23). */
  total_fee: Type.Optional(Num),
  mempoolminfee: Num,
  minrelaytxfee: Num,
});
export type MempoolInfo = Static<typeof MempoolInfo>;
