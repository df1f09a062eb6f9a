import { address } from 'bitcoinjs-lib';

/**
 * Output scripts as Bitcoin Core names them (`scriptPubKey.type`) and their addresses on regtest (`bcrt1…`, `m…`/`n…`,
 * `2…`), for the stand-in's verbose replies.
 */
export type ScriptType =
  | 'pubkey'
  | 'pubkeyhash'
  | 'scripthash'
  | 'multisig'
  | 'nulldata'
  | 'witness_v0_keyhash'
  | 'witness_v0_scripthash'
  | 'witness_v1_taproot'
  | 'anchor'
  | 'witness_unknown'
  | 'nonstandard';

const REGTEST = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4 };

export function classify(script: Uint8Array): ScriptType {
  const n = script.length;
  const b = (i: number) => script[i];
  if (n === 25 && b(0) === 0x76 && b(1) === 0xa9 && b(2) === 0x14 && b(23) === 0x88 && b(24) === 0xac)
    return 'pubkeyhash';
  if (n === 23 && b(0) === 0xa9 && b(1) === 0x14 && b(22) === 0x87) return 'scripthash';
  if (n === 22 && b(0) === 0x00 && b(1) === 0x14) return 'witness_v0_keyhash';
  if (n === 34 && b(0) === 0x00 && b(1) === 0x20) return 'witness_v0_scripthash';
  if (n === 34 && b(0) === 0x51 && b(1) === 0x20) return 'witness_v1_taproot';
  if (n === 4 && b(0) === 0x51 && b(1) === 0x02 && b(2) === 0x4e && b(3) === 0x73) return 'anchor';
  if (n >= 4 && n <= 42 && b(0)! >= 0x51 && b(0)! <= 0x60 && b(1) === n - 2) return 'witness_unknown';
  if ((n === 35 && b(0) === 0x21 && b(34) === 0xac) || (n === 67 && b(0) === 0x41 && b(66) === 0xac)) return 'pubkey';
  if (n >= 1 && b(0) === 0x6a) return 'nulldata';
  if (n >= 3 && b(n - 1) === 0xae && b(0)! >= 0x51 && b(0)! <= 0x60) return 'multisig';
  return 'nonstandard';
}

/** The regtest address of an output script, when it has one. */
export function addressOf(script: Uint8Array, type: ScriptType = classify(script)): string | undefined {
  switch (type) {
    case 'pubkeyhash':
      return address.toBase58Check(script.subarray(3, 23), REGTEST.pubKeyHash);
    case 'scripthash':
      return address.toBase58Check(script.subarray(2, 22), REGTEST.scriptHash);
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      return address.toBech32(script.subarray(2), 0, REGTEST.bech32);
    case 'witness_v1_taproot':
    case 'anchor':
    case 'witness_unknown':
      return address.toBech32(script.subarray(2), script[0]! - 0x50, REGTEST.bech32);
    default:
      return undefined;
  }
}
