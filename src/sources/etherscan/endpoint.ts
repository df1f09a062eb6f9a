import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { ETHERSCAN_URL, EtherscanClient } from './client.js';

/**
 * The Etherscan API this process reads contract sources and creations from, decided once at start-up:
 * `ETHERSCAN_API_URL` (default Etherscan's host) and `ETHERSCAN_API_KEY`. The sandbox's stand-in answers with the
 * same keys.
 */
export interface EtherscanSettings {
  readonly baseUrl: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly apiKey: string | undefined;
}

/** The opened Etherscan source: its one client (one pace, one retry policy). */
export interface EtherscanEndpoint extends OpenedSource {
  readonly client: EtherscanClient;
  readonly baseUrl: string;
}

export function etherscanFromConfig(config: Config): EtherscanSettings {
  const { etherscanUrl, etherscanApiKey } = config.contractSources;
  return { baseUrl: etherscanUrl ?? ETHERSCAN_URL, apiKey: etherscanApiKey };
}

/** Opens the Etherscan source (`meta.source`: `etherscan`, or `sandbox:etherscan` from the sandbox's stand-in). */
export function openEtherscan(
  settings: EtherscanSettings,
  options: SourceOpenOptions & { readonly label?: string } = {},
): EtherscanEndpoint {
  const client = new EtherscanClient({
    baseUrl: settings.baseUrl,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...clientOptions(options, 'etherscan'),
  });
  // The key stays in the client: the handle is logged and shown without it.
  return {
    client,
    baseUrl: client.baseUrl,
    source: options.label === undefined ? 'etherscan' : 'sandbox:etherscan',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
