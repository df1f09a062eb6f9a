import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { COINGECKO_DEMO_URL, COINGECKO_PRO_URL, CoingeckoClient, type CoingeckoPlanName } from './client.js';

/**
 * The CoinGecko API this process reads, decided once at start-up from the configuration: `COINGECKO_API_URL`
 * (default the plan's host), `COINGECKO_API_KEY` and `COINGECKO_API_PLAN` (`demo` or `pro`: which header carries the
 * key). The sandbox's stand-in answers with the same keys: jobs never know which one they got.
 */
export interface CoingeckoSettings {
  readonly baseUrl: string;
  readonly plan: CoingeckoPlanName;
  /** Secret: passed to the client only, never logged or shown. */
  readonly apiKey: string | undefined;
}

/** The opened CoinGecko source: its one client (one pace, one retry policy), shared by every area that reads it. */
export interface CoingeckoEndpoint extends OpenedSource {
  readonly client: CoingeckoClient;
  readonly baseUrl: string;
  readonly plan: CoingeckoPlanName;
}

/** The configured CoinGecko API, or the plan's own host. */
export function coingeckoFromConfig(config: Config): CoingeckoSettings {
  const { apiUrl, apiKey, plan } = config.coingecko;
  return { baseUrl: apiUrl ?? (plan === 'pro' ? COINGECKO_PRO_URL : COINGECKO_DEMO_URL), plan, apiKey };
}

/** Opens the CoinGecko source (`meta.source`: `coingecko`, or `sandbox:coingecko` from the sandbox's stand-in). */
export function openCoingecko(
  settings: CoingeckoSettings,
  options: SourceOpenOptions & { readonly label?: string } = {},
): CoingeckoEndpoint {
  const client = new CoingeckoClient({
    baseUrl: settings.baseUrl,
    plan: settings.plan,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...clientOptions(options, 'coingecko'),
  });
  // The key stays in the client: the handle is logged and shown (`/status`, `sandbox info`) without it.
  return {
    client,
    baseUrl: client.baseUrl,
    plan: settings.plan,
    source: options.label === undefined ? 'coingecko' : 'sandbox:coingecko',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
