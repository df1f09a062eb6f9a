import type { Clock } from '../../../core/time.js';
import type { WorldView } from '../../world/view.js';
import {
  type FaultRates,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinResponse,
  type StandinService,
  startStandin,
} from '../base/index.js';
import { type BookEntry, ContractBook, compilerVersionOf } from '../sourcify/book.js';

/**
 * Etherscan's API V2 for the sandbox world (`GET /v2/api?chainid=…&module=contract&action=getsourcecode&address=…
 * &apikey=…`), in Etherscan's wire format: HTTP 200 with `{status, message, result}` for answers and errors alike.
 * An address the world deployed whose artifact ships its compiler input is verified by standard JSON: `SourceCode` is
 * the input in Etherscan's double braces (`{{ … }}`), with the artifact's ABI, the compiler as `v0.8.10+commit…`,
 * the optimizer settings and the SPDX licence of the contract's file; every other address is "not verified"
 * (`SourceCode: ""`, `ABI: "Contract source code not verified"`). `ConstructorArguments` is empty: the world does
 * not record them. The proxy fields name the implementation a proxy was deployed with, where its protocol records it
 * (Aave's), as Etherscan's proxy detection would; an upgrade later in the world is not followed.
 *
 * The key is checked as Etherscan does (`NOTOK`, `Missing/Invalid API Key`), the free plan's 5 calls a second are
 * counted per client (`Max calls per sec rate limit reached (5/sec)`), a chain that is not the world's is
 * `Missing or unsupported chainid parameter`. `getcontractcreation` is not served (the world does not record
 * creation transactions): `NOTOK`, `Error! Missing Or invalid Action name`, as Etherscan answers an action it lacks.
 */

export interface EtherscanStandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  readonly world?: Promise<WorldView>;
  readonly faults?: FaultRates;
  /** The key it accepts (default `SANDBOX_ETHERSCAN_KEY`). */
  readonly apiKey?: string;
  /** Calls a second per client (default 5, Etherscan's free plan). */
  readonly limitPerSecond?: number;
}

export interface EtherscanStandin extends Standin {
  readonly book: ContractBook;
}

/** The key the sandbox's clients send (Etherscan's keys are 34 upper-case letters and digits). */
export const SANDBOX_ETHERSCAN_KEY = 'SANDBOXETHERSCANKEY000000000000000';

/** Seeded faults of the sandbox's Etherscan: an occasional 5xx or rate-limit answer. */
export const SANDBOX_ETHERSCAN_FAULTS: FaultRates = {
  serverError: 0.01,
  secondaryLimit: 0.005,
  secondaryRetryAfterSeconds: 1,
};

export const ETHERSCAN_RATE_LIMIT_TEXT = 'Max calls per sec rate limit reached (5/sec)';

const notOk = (result: string, message = 'NOTOK'): StandinResponse => json({ status: '0', message, result });

export const etherscanDialect: StandinDialect = {
  defaultResource: 'api',
  commonHeaders: { 'content-type': 'application/json; charset=utf-8', server: 'protoscore-etherscan-standin' },
  errorBody: (_status, message) => ({ status: '0', message: 'NOTOK', result: message }),
  identify: () => undefined,
  rateLimitHeaders: () => ({}),
  // Etherscan says "slow down" with HTTP 200 and a NOTOK body.
  primaryLimited: () => notOk(ETHERSCAN_RATE_LIMIT_TEXT),
  secondaryLimited: () => notOk(ETHERSCAN_RATE_LIMIT_TEXT),
};

/** An unverified contract's entry, as Etherscan answers it. */
export const UNVERIFIED_ENTRY = {
  SourceCode: '',
  ABI: 'Contract source code not verified',
  ContractName: '',
  CompilerVersion: '',
  OptimizationUsed: '',
  Runs: '',
  ConstructorArguments: '',
  EVMVersion: 'Default',
  Library: '',
  LicenseType: 'Unknown',
  Proxy: '0',
  Implementation: '',
  SwarmSource: '',
};

/** A verified contract's `getsourcecode` entry: its standard-JSON input in Etherscan's double braces. */
export function sourceEntry(entry: BookEntry): typeof UNVERIFIED_ENTRY {
  const input = entry.input!;
  const [file = '', name = entry.contract.name] = input.fullyQualifiedName.split(':');
  const settings = input.settings as { optimizer?: { enabled?: boolean; runs?: number }; evmVersion?: string };
  const licence = /SPDX-License-Identifier:\s*([^\s*]+)/.exec(input.sources[file]?.content ?? '')?.[1];
  return {
    SourceCode: `{${JSON.stringify({ language: input.language, sources: input.sources, settings: input.settings })}}`,
    ABI: JSON.stringify(input.abi),
    ContractName: name,
    CompilerVersion: `v${compilerVersionOf(input.compiler)}`,
    OptimizationUsed: settings.optimizer?.enabled ? '1' : '0',
    Runs: String(settings.optimizer?.runs ?? 200),
    ConstructorArguments: '',
    EVMVersion: settings.evmVersion ?? 'Default',
    Library: '',
    LicenseType: licence ?? 'None',
    Proxy: entry.contract.implementation ? '1' : '0',
    Implementation: entry.contract.implementation ?? '',
    SwarmSource: '',
  };
}

export async function startEtherscanStandin(options: EtherscanStandinOptions): Promise<EtherscanStandin> {
  const book = new ContractBook(options.world);
  const key = options.apiKey ?? SANDBOX_ETHERSCAN_KEY;
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/v2/api',
      resource: 'api',
      handler: (req) => {
        const q = req.query;
        const chainid = q.get('chainid') ?? '';
        if (!/^\d+$/.test(chainid) || (book.world() && !book.chainOf(Number(chainid)))) {
          return notOk(
            'Missing or unsupported chainid parameter (required for v2 api), please see https://api.etherscan.io/v2/chainlist for the list of supported chainids',
          );
        }
        if (q.get('apikey') !== key) return notOk('Missing/Invalid API Key');
        if (q.get('module') !== 'contract') return notOk('Error! Missing Or invalid Module name');
        if (q.get('action') !== 'getsourcecode') return notOk('Error! Missing Or invalid Action name');
        const address = q.get('address') ?? '';
        if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return notOk('Invalid Address format');
        const found = book.lookup(Number(chainid), address);
        if (found.kind === 'unknown-chain') return notOk('Missing or unsupported chainid parameter');
        const verified = found.kind === 'entry' && found.entry.input !== undefined;
        return json({
          status: '1',
          message: 'OK',
          result: [verified ? sourceEntry(found.entry) : UNVERIFIED_ENTRY],
        });
      },
    },
  ];
  const service: StandinService = { name: 'etherscan', routes, dialect: etherscanDialect };
  const perSecond = options.limitPerSecond ?? 5;
  const standin = await startStandin(service, {
    seed: options.seed,
    clock: options.clock,
    rateLimit: { limit: perSecond, anonymousLimit: perSecond, windowSeconds: 1 },
    ...(options.faults ? { faults: options.faults } : {}),
  });
  return Object.assign(standin, { book });
}
