/**
 * What the contract-source services (Sourcify, Etherscan) give for a deployed address, in one shape: the Solidity
 * standard-JSON compiler input it was built from, with the compiler version and the contract's name, or a typed
 * reason there is none. Both clients answer a look-up with a `ContractSourceOutcome` and never throw for what the
 * service says (a 429 after the retries, "not verified", an answer whose standard JSON does not parse): the caller
 * (the security area's jobs) decides from the outcome whether to try the next service, retry later or record the
 * address as unverified.
 */

/** Solidity's (or Vyper's) standard-JSON compiler input: what `solc --standard-json` reads. */
export interface StandardJsonInput {
  readonly language: string;
  readonly sources: Readonly<Record<string, { readonly content: string }>>;
  readonly settings: Readonly<Record<string, unknown>>;
}

/** A verified contract's source as a service gave it. */
export interface ContractSource {
  /** `sourcify` or `etherscan`. */
  readonly service: 'sourcify' | 'etherscan';
  readonly chainId: number;
  /** Lowercase. */
  readonly address: string;
  /** The contract's name (`Pool`). */
  readonly name: string;
  /** `path:Name` where the service names the file (Sourcify always, Etherscan's standard-JSON form never). */
  readonly fullyQualifiedName?: string;
  /** The compiler version as the service writes it (`0.8.10+commit.fc410830`, `v0.8.10+commit.fc410830`). */
  readonly compilerVersion: string;
  /** The compiler input: Sourcify's `stdJsonInput`, or Etherscan's source in whichever of its three forms. */
  readonly input: StandardJsonInput;
  /**
   * How well the service matched the deployed bytecode: Sourcify's `exact_match` (metadata hash too) or `match`;
   * Etherscan verifies without saying, `verified`.
   */
  readonly match: 'exact_match' | 'match' | 'verified';
  /** Etherscan's proxy fields: the contract is a proxy and the implementation it found (lowercase). */
  readonly proxy?: { readonly implementation: string | undefined };
}

/** The outcome of one look-up: the source, "not verified", or why neither could be had. */
export type ContractSourceOutcome =
  | { readonly kind: 'verified'; readonly source: ContractSource }
  | { readonly kind: 'unverified' }
  /** The service could not answer (429 or 5xx after the client's retries, a timeout): try again later. */
  | { readonly kind: 'unavailable'; readonly reason: string }
  /** The service answered something unusable (a malformed standard JSON, an answer off its schema, a refused key). */
  | { readonly kind: 'invalid'; readonly reason: string };

/** A compiler input that does not parse or lacks what a standard-JSON input has. */
export class MalformedStandardJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedStandardJsonError';
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A standard-JSON input from a parsed document: `language` (default Solidity), `sources` with each file's `content`
 * (a source given only by URL cannot be analysed), `settings` (default none). Throws `MalformedStandardJsonError`.
 */
export function standardJsonOf(doc: unknown, what: string): StandardJsonInput {
  if (!isRecord(doc)) throw new MalformedStandardJsonError(`${what}: the compiler input is not a JSON object`);
  const language = doc.language ?? 'Solidity';
  if (typeof language !== 'string') throw new MalformedStandardJsonError(`${what}: "language" is not a string`);
  if (!isRecord(doc.sources) || Object.keys(doc.sources).length === 0) {
    throw new MalformedStandardJsonError(`${what}: the compiler input has no "sources"`);
  }
  const sources: Record<string, { content: string }> = {};
  for (const [file, entry] of Object.entries(doc.sources)) {
    if (!isRecord(entry) || typeof entry.content !== 'string') {
      throw new MalformedStandardJsonError(`${what}: source ${JSON.stringify(file)} has no "content"`);
    }
    sources[file] = { content: entry.content };
  }
  if (doc.settings !== undefined && !isRecord(doc.settings)) {
    throw new MalformedStandardJsonError(`${what}: "settings" is not an object`);
  }
  return { language, sources, settings: (doc.settings as Record<string, unknown> | undefined) ?? {} };
}

/** A text as JSON, or `MalformedStandardJsonError` naming where it failed. */
export function parseCompilerJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new MalformedStandardJsonError(`${what}: the compiler input is not valid JSON: ${(err as Error).message}`);
  }
}
