import { type Static, Type } from '@sinclair/typebox';

/**
 * Sourcify's API v2 answers, as its own OpenAPI description declares them (ethereum/sourcify
 * `services/server/src/apiv2.yaml` at 5e362a8, `GET /v2/contract/{chainId}/{address}`: the `VerifiedContract`
 * response, `VerifiedContractMinimal`, `ContractNotVerifiedResponse`, `GenericErrorResponse`), the fields the client
 * reads. Objects are open: the client asks for `fields=compilation,sources,stdJsonInput` and Sourcify may add more.
 */

/** `VerificationStatusNullable`: `null` on a 404 (not verified). */
const Status = Type.Union([Type.Literal('match'), Type.Literal('exact_match'), Type.Null()]);

/** `VerifiedContractMinimal`: what every answer about an address carries, the 404's body included. */
export const SourcifyMinimal = Type.Object({
  match: Status,
  creationMatch: Status,
  runtimeMatch: Status,
  /** `ChainId`: a decimal string. */
  chainId: Type.String({ pattern: '^\\d+$' }),
  /** `Address`: checksummed or not. */
  address: Type.String({ pattern: '^0x[a-fA-F0-9]{40}$' }),
  verifiedAt: Type.Optional(Type.String()),
  matchId: Type.Optional(Type.String()),
});
export type SourcifyMinimal = Static<typeof SourcifyMinimal>;

/** `compilation` of a verified contract. */
export const SourcifyCompilation = Type.Object({
  /** `Language`. */
  language: Type.Union([Type.Literal('Solidity'), Type.Literal('Vyper')]),
  /** `solc` or `vyper`. */
  compiler: Type.String(),
  /** `SolidityCompilerVersion` (`0.8.7+commit.e28d00a7`; the description's own example has a `v`). */
  compilerVersion: Type.String({ pattern: '^v?\\d+\\.\\d+\\.\\d+' }),
  compilerSettings: Type.Record(Type.String(), Type.Unknown()),
  name: Type.String(),
  /** `contracts/MyContract.sol:MyContract`. */
  fullyQualifiedName: Type.String(),
});

const SourceFile = Type.Object({ content: Type.String() });

/**
 * `GET /v2/contract/{chainId}/{address}?fields=compilation,sources,stdJsonInput`: a verified contract (`match` not
 * null). `stdJsonInput` is the standard-JSON input it was verified with; it is checked as a compiler input apart
 * (`standardJsonOf`), so that a malformed one is told from an answer off the schema.
 */
export const SourcifyContract = Type.Composite([
  SourcifyMinimal,
  Type.Object({
    compilation: SourcifyCompilation,
    sources: Type.Record(Type.String(), SourceFile),
    stdJsonInput: Type.Unknown(),
  }),
]);
export type SourcifyContract = Static<typeof SourcifyContract>;

/** `GenericErrorResponse`: 400, 429 (`too_many_requests`), 500 and a route that does not exist. */
export const SourcifyError = Type.Object({
  customCode: Type.String(),
  message: Type.String(),
  errorId: Type.String(),
});
export type SourcifyErrorBody = Static<typeof SourcifyError>;

/** The fields the client asks for (`fields=`). */
export const SOURCIFY_FIELDS = 'compilation,sources,stdJsonInput';
