import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { GMX_ORACLE_URL, GmxOracleClient } from './client.js';

/**
 * The GMX oracle keeper this process reads (`GMX_ORACLE_URL`, default https://arbitrum-api.gmxinfra.io, GMX v2 on
 * Arbitrum); the sandbox's stand-in is configured through the same key.
 */
export interface GmxOracleEndpoint extends OpenedSource {
  readonly baseUrl: string;
  /** The registry chain whose GMX deployment the keeper prices. */
  readonly chain: 'arbitrum';
  readonly client: GmxOracleClient;
}

/** The configured keeper's base URL, or GMX's own. */
export function gmxOracleFromConfig(config: Config): string {
  return config.gmxOracleUrl ?? GMX_ORACLE_URL;
}

/** Opens the keeper source (`meta.source`: `gmx_oracle`, or `sandbox:gmx_oracle` from the sandbox's stand-in). */
export function openGmxOracle(
  baseUrl: string,
  options: SourceOpenOptions & { readonly label?: string } = {},
): GmxOracleEndpoint {
  const client = new GmxOracleClient({ baseUrl, ...clientOptions(options, 'gmx_oracle') });
  return {
    baseUrl: client.baseUrl,
    chain: 'arbitrum',
    client,
    source: options.label === undefined ? 'gmx_oracle' : 'sandbox:gmx_oracle',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
