import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { SynthetixClient } from './client.js';

/**
 * The Synthetix exchange this process reads (`SYNTHETIX_API_URL`: https://papi.synthetix.io in production, or the
 * sandbox's stand-in through the same key). Its perpetuals settle on Ethereum.
 */
export interface SynthetixEndpoint extends OpenedSource {
  readonly baseUrl: string;
  /** The registry chain the exchange settles on. */
  readonly chain: 'ethereum';
  readonly client: SynthetixClient;
}

/** The configured API base, or undefined (then no Synthetix source). */
export function synthetixFromConfig(config: Config): string | undefined {
  return config.synthetixApiUrl;
}

/** Opens the Synthetix source (`meta.source`: `synthetix`, or `sandbox:synthetix` from the sandbox's stand-in). */
export function openSynthetix(
  baseUrl: string,
  options: SourceOpenOptions & { readonly label?: string } = {},
): SynthetixEndpoint {
  const client = new SynthetixClient({ baseUrl, ...clientOptions(options, 'synthetix') });
  return {
    baseUrl: client.baseUrl,
    chain: 'ethereum',
    client,
    source: options.label === undefined ? 'synthetix' : 'sandbox:synthetix',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
