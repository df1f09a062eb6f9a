import type { Clock } from '../../../core/time.js';
import type { WorldManifest } from '../../world/manifest.js';
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
import { oracleTokens, tickersAt } from './world.js';

/**
 * A stand-in of GMX's oracle keeper REST API (`https://arbitrum-api.gmxinfra.io`) for the sandbox's GMX v2 on
 * Arbitrum: `GET /prices/tickers` (an array of `{tokenAddress, tokenSymbol, minPrice, maxPrice, oracleDecimals,
 * updatedAt, timestamp}`: 30-decimal prices per smallest unit as integer strings, `updatedAt` in milliseconds),
 * `GET /tokens` (`{tokens: [{symbol, address, decimals, synthetic}]}`) and `GET /ping` (`{ok: true}`), quoting the
 * world's reference prices (./world.ts). Errors are `{errors: [message]}`, as the keeper's `/ping` documents them.
 * Until the world is open the keeper answers 503 (retryable), as a keeper whose database is not up does.
 *
 * GMX publishes no rate limit for the keeper: the stand-in allows 600 requests a minute per client and answers a
 * 429 with `Retry-After` beyond (a client of the service sends a few a minute).
 */

export interface GmxOracleStandinOptions {
  readonly seed: number;
  readonly clock: Clock;
  /** The world, once open: the Arbitrum chain's manifest (tokens, the `gmx` section) and the hours' prices. */
  readonly world?: Promise<WorldView>;
  /** The manifest to read instead of the world's Arbitrum one (tests). */
  readonly manifest?: WorldManifest;
  readonly faults?: FaultRates;
  /** Requests a minute per client (default 600). */
  readonly limitPerMinute?: number;
}

export interface GmxOracleStandin extends Standin {
  /** The world view, once resolved (tests read ground truth from it). */
  view(): WorldView | undefined;
  /** The manifest quoted from (Arbitrum's), once known. */
  manifest(): WorldManifest | undefined;
}

/** Seeded faults of the sandbox's keeper: an occasional 5xx or 429. */
export const SANDBOX_GMX_ORACLE_FAULTS: FaultRates = {
  serverError: 0.01,
  secondaryLimit: 0.001,
  secondaryRetryAfterSeconds: 5,
};

export const gmxOracleDialect: StandinDialect = {
  defaultResource: 'api',
  commonHeaders: { 'content-type': 'application/json; charset=utf-8', server: 'protoscore-gmx-oracle-standin' },
  errorBody: (_status, message) => ({ errors: [message] }),
  identify: () => undefined,
  rateLimitHeaders: () => ({}),
  primaryLimited: (window, nowMs) => ({
    status: 429,
    body: { errors: ['Too Many Requests'] },
    headers: { 'retry-after': String(Math.max(1, window.resetSeconds - Math.floor(nowMs / 1000))) },
  }),
  secondaryLimited: (retryAfterSeconds) => ({
    status: 429,
    body: { errors: ['Too Many Requests'] },
    headers: { 'retry-after': String(retryAfterSeconds) },
  }),
};

export async function startGmxOracleStandin(options: GmxOracleStandinOptions): Promise<GmxOracleStandin> {
  let view: WorldView | undefined;
  let failed: Error | undefined;
  options.world?.then(
    (v) => {
      view = v;
    },
    (err: Error) => {
      failed = err;
    },
  );
  const manifest = (): WorldManifest | undefined => options.manifest ?? view?.manifests.get('arbitrum');
  const ready = () => {
    if (failed) throw new HttpError(503, `world unavailable: ${failed.message}`);
    const m = manifest();
    if (!m || (!view && !options.manifest)) throw new HttpError(503, 'prices are not available yet');
    return { m, hours: view ?? { hours: () => [] } };
  };
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/prices/tickers',
      resource: 'api',
      handler: (req) => {
        const { m, hours } = ready();
        return json(tickersAt(options.seed, hours, m, req.nowMs));
      },
    },
    {
      method: 'GET',
      path: '/tokens',
      resource: 'api',
      handler: () => {
        const { m } = ready();
        return json({
          tokens: oracleTokens(m).map((t) => ({
            symbol: t.symbol,
            address: t.address,
            decimals: t.decimals,
            synthetic: t.synthetic,
          })),
        });
      },
    },
    { method: 'GET', path: '/ping', resource: null, handler: () => json({ ok: true }) },
  ];
  const service: StandinService = { name: 'gmx_oracle', routes, dialect: gmxOracleDialect };
  const perMinute = options.limitPerMinute ?? 600;
  const standin = await startStandin(service, {
    seed: options.seed,
    clock: options.clock,
    rateLimit: { limit: perMinute, anonymousLimit: perMinute, windowSeconds: 60 },
    ...(options.faults ? { faults: options.faults } : {}),
  });
  return Object.assign(standin, { view: () => view, manifest });
}
