import type { Config } from '../../config/index.js';
import { type OpenedSource, type SourceOpenOptions, stoppableSleep } from '../http.js';
import { BeaconClient } from './client.js';

/**
 * The beacon node API this process reads, from `BEACON_API_URL` (or the sandbox's stand-in, through the same key).
 * It belongs to one execution chain: Ethereum.
 */
export interface BeaconEndpoint extends OpenedSource {
  readonly baseUrl: string;
  /** Registry id of the execution chain whose consensus it serves. */
  readonly chain: 'ethereum';
  readonly client: BeaconClient;
}

/** The configured beacon API's base URL, or undefined. */
export function beaconFromConfig(config: Config): string | undefined {
  return config.beaconApiUrl;
}

/** Opens the beacon source (`meta.source`: `beacon`, or `sandbox:beacon` from the sandbox's stand-in). */
export function openBeacon(
  baseUrl: string,
  options: SourceOpenOptions & { readonly label?: string } = {},
): BeaconEndpoint {
  const client = new BeaconClient({
    baseUrl,
    sleep: options.sleep ?? stoppableSleep('beacon'),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  });
  return {
    baseUrl,
    chain: 'ethereum',
    client,
    source: options.label === undefined ? 'beacon' : 'sandbox:beacon',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
