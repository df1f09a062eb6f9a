import { type Static, Type } from '@sinclair/typebox';

/**
 * Etherscan's API V2 answers (`GET /v2/api?chainid=…&module=contract&action=…&apikey=…`), as its documentation
 * (docs.etherscan.io, "Get Contract Source Code for Verified Contract Source Codes" and "Get Contract Creator and
 * Creation Tx Hash") and its answers show them: every answer is HTTP 200 with `{status, message, result}`; `status`
 * "1" carries the result, "0" an error whose text is in `result` (`Max calls per sec rate limit reached (5/sec)`,
 * `Invalid API Key`, `Missing/Invalid API Key`, …) or, for a look-up that found nothing, in `message`
 * (`No data found`). Every field is a string, numbers included. Objects are open (V2 added `CompilerType`,
 * `ContractFileName`, `SimilarMatch` to `getsourcecode`).
 */

/** One entry of `getsourcecode`'s result. An unverified contract has `SourceCode: ""` and its `ABI` says so. */
export const EtherscanSourceEntry = Type.Object({
  /** A flat file, a JSON object of files (`{"a.sol": {"content": …}}`), or the standard-JSON input in double braces. */
  SourceCode: Type.String(),
  /** The ABI as JSON text, or `Contract source code not verified`. */
  ABI: Type.String(),
  ContractName: Type.String(),
  /** `v0.8.10+commit.fc410830` (Solidity) or `vyper:0.3.7`. */
  CompilerVersion: Type.String(),
  /** `"1"` or `"0"`. */
  OptimizationUsed: Type.String(),
  Runs: Type.String(),
  ConstructorArguments: Type.String(),
  /** `Default` or a fork's name in lower or mixed case (`london`, `Istanbul`). */
  EVMVersion: Type.String(),
  /** `Name:0xaddress;Name2:0xaddress2`, or empty. */
  Library: Type.String(),
  LicenseType: Type.String(),
  /** `"1"` when Etherscan found the contract to be a proxy. */
  Proxy: Type.String(),
  /** The implementation Etherscan found behind a proxy, or empty. */
  Implementation: Type.String(),
  SwarmSource: Type.String(),
});
export type EtherscanSourceEntry = Static<typeof EtherscanSourceEntry>;

export const EtherscanSourceAnswer = Type.Object({
  status: Type.Literal('1'),
  message: Type.String(),
  result: Type.Array(EtherscanSourceEntry, { minItems: 1 }),
});

/** One entry of `getcontractcreation`'s result (up to five addresses a call). */
export const EtherscanCreationEntry = Type.Object({
  contractAddress: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  contractCreator: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  txHash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }),
  /** Added by V2: the block and its time (decimal strings), the factory when a contract created it. */
  blockNumber: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  timestamp: Type.Optional(Type.String({ pattern: '^\\d+$' })),
  contractFactory: Type.Optional(Type.String()),
  creationBytecode: Type.Optional(Type.String()),
});
export type EtherscanCreationEntry = Static<typeof EtherscanCreationEntry>;

export const EtherscanCreationAnswer = Type.Object({
  status: Type.Literal('1'),
  message: Type.String(),
  result: Type.Array(EtherscanCreationEntry),
});

/** Status "0": an error, or a look-up that found nothing. `result` is text or null. */
export const EtherscanNotOk = Type.Object({
  status: Type.Literal('0'),
  message: Type.String(),
  result: Type.Union([Type.String(), Type.Null(), Type.Array(Type.Unknown())]),
});
export type EtherscanNotOk = Static<typeof EtherscanNotOk>;

/** `ABI` of an unverified contract. */
export const ETHERSCAN_NOT_VERIFIED = 'Contract source code not verified';
