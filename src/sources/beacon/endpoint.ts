import type { Config } from '../../config/index.js';
import { BeaconClient, type BeaconClientOptions } from './client.js';

/**
 * The beacon node API this process reads, from `BEACON_API_URL` (or the sandbox's stand-in, through the same key).
 * It belongs to one execution chain: Ethereum.
 */
export interface BeaconEndpoint {
  readonly baseUrl: string;
  /** Registry id of the execution chain whose consensus it serves. */
  readonly chain: 'ethereum';
  readonly client: BeaconClient;
  /** Set by the runtime when the sandbox's stand-in serves it (`meta.source` then says `sandbox:beacon`). */
  readonly label?: string;
}

export function beaconFromConfig(
  config: Config,
  options: Omit<BeaconClientOptions, 'baseUrl'> = {},
): BeaconEndpoint | undefined {
  const baseUrl = config.beaconApiUrl;
  if (!baseUrl) return undefined;
  return { baseUrl, chain: 'ethereum', client: new BeaconClient({ baseUrl, ...options }) };
}
