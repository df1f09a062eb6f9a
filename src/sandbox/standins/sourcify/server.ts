import type { Clock } from '../../../core/time.js';
import type { WorldView } from '../../world/view.js';
import {
  type FaultRates,
  HttpError,
  json,
  type RouteDef,
  type Standin,
  type StandinDialect,
  type StandinService,
  startStandin,
} from '../base/index.js';
import { type BookEntry, ContractBook, compilerVersionOf, stableUuid } from './book.js';

/**
 * Sourcify's API v2 for the sandbox world (`GET /v2/contract/{chainId}/{address}`), in the wire format of Sourcify's
 * own OpenAPI description (ethereum/sourcify `services/server/src/apiv2.yaml`): for every address the world deployed
 * whose artifact ships its compiler input, an `exact_match` (the input is the one the bytecode was built from, its
 * metadata hash included) with `compilation`, `sources` and `stdJsonInput`; for every other address a 404 with
 * `match: null`. `fields` picks among the fields the stand-in has (`compilation`, `sources`, `stdJsonInput`, or
 * `all`); without it the minimal answer. Errors are `GenericErrorResponse`s (`invalid_parameter`,
 * `unsupported_chain`, `route_not_found`, `too_many_requests`).
 */

export interface SourcifyStandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  readonly world?: Promise<WorldView>;
  readonly faults?: FaultRates;
  /** Requests a minute per client (default 600). */
  readonly limitPerMinute?: number;
}

export interface SourcifyStandin extends Standin {
  /** What it serves (tests read ground truth from it). */
  readonly book: ContractBook;
}

/** Seeded faults of the sandbox's Sourcify: an occasional 5xx or 429. */
export const SANDBOX_SOURCIFY_FAULTS: FaultRates = {
  serverError: 0.01,
  secondaryLimit: 0.002,
  secondaryRetryAfterSeconds: 2,
};

/** The fields of a verified contract the stand-in serves. */
export const SOURCIFY_STANDIN_FIELDS = ['compilation', 'sources', 'stdJsonInput'] as const;

const errorBody = (customCode: string, message: string) => ({ customCode, message, errorId: stableUuid(message) });

const TOO_MANY = (retryAfterSeconds: number) => ({
  status: 429,
  body: errorBody('too_many_requests', 'You are sending too many requests'),
  headers: { 'retry-after': String(retryAfterSeconds) },
});

export const sourcifyDialect: StandinDialect = {
  defaultResource: 'api',
  commonHeaders: { 'content-type': 'application/json; charset=utf-8', server: 'protoscore-sourcify-standin' },
  errorBody: (status, message) =>
    errorBody(
      status === 404 ? 'route_not_found' : status === 503 || status >= 500 ? 'internal_error' : 'invalid_parameter',
      message,
    ),
  identify: () => undefined,
  rateLimitHeaders: () => ({}),
  primaryLimited: (window, nowMs) => TOO_MANY(Math.max(1, window.resetSeconds - Math.floor(nowMs / 1000))),
  secondaryLimited: (retryAfterSeconds) => TOO_MANY(retryAfterSeconds),
};

/** The verified contract's answer with the asked fields. */
export function verifiedContract(entry: BookEntry, address: string, fields: ReadonlySet<string>) {
  const input = entry.input!;
  const { outputSelection: _o, ...compilerSettings } = input.settings as Record<string, unknown>;
  const [, name = entry.contract.name] = input.fullyQualifiedName.split(':');
  return {
    match: 'exact_match',
    creationMatch: 'exact_match',
    runtimeMatch: 'exact_match',
    chainId: String(entry.chainId),
    address,
    matchId: String(entry.index),
    ...(fields.has('compilation')
      ? {
          compilation: {
            language: input.language,
            compiler: 'solc',
            compilerVersion: compilerVersionOf(input.compiler),
            compilerSettings,
            name,
            fullyQualifiedName: input.fullyQualifiedName,
          },
        }
      : {}),
    ...(fields.has('sources') ? { sources: input.sources } : {}),
    ...(fields.has('stdJsonInput')
      ? { stdJsonInput: { language: input.language, sources: input.sources, settings: input.settings } }
      : {}),
  };
}

export async function startSourcifyStandin(options: SourcifyStandinOptions): Promise<SourcifyStandin> {
  const book = new ContractBook(options.world);
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/v2/contract/:chainId/:address',
      resource: 'api',
      handler: (req) => {
        const { chainId, address } = req.params as { chainId: string; address: string };
        if (!/^\d{1,20}$/.test(chainId)) throw new HttpError(400, `Invalid chainId: ${chainId}`);
        if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new HttpError(400, `Invalid address: ${address}`);
        const fieldsParam = req.query.get('fields');
        if (fieldsParam !== null && req.query.get('omit') !== null) {
          throw new HttpError(400, 'Cannot specify both fields and omit at the same time');
        }
        const found = book.lookup(Number(chainId), address);
        if (found.kind === 'unknown-chain') {
          return json(errorBody('unsupported_chain', `The chain with chainId ${chainId} is not supported`), {}, 400);
        }
        if (found.kind === 'none' || !found.entry.input) {
          return json({ match: null, creationMatch: null, runtimeMatch: null, chainId, address }, {}, 404);
        }
        const fields = new Set<string>(
          fieldsParam === null
            ? req.query.get('omit') !== null
              ? SOURCIFY_STANDIN_FIELDS.filter((f) => !req.query.get('omit')!.split(',').includes(f))
              : []
            : fieldsParam.split(',').includes('all')
              ? SOURCIFY_STANDIN_FIELDS
              : fieldsParam.split(','),
        );
        return json(verifiedContract(found.entry, address, fields));
      },
    },
    { method: 'GET', path: '/health', resource: null, handler: () => ({ status: 200, body: 'Alive and kicking!' }) },
  ];
  const service: StandinService = { name: 'sourcify', routes, dialect: sourcifyDialect };
  const perMinute = options.limitPerMinute ?? 600;
  const standin = await startStandin(service, {
    seed: options.seed,
    clock: options.clock,
    rateLimit: { limit: perMinute, anonymousLimit: perMinute, windowSeconds: 60 },
    ...(options.faults ? { faults: options.faults } : {}),
  });
  return Object.assign(standin, { book });
}
