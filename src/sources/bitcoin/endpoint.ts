import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { BitcoinSource } from './source.js';

/**
 * The Bitcoin Core RPC this process reads, from the configuration (`RPC_URL_BITCOIN`, `BITCOIN_RPC_USER` and
 * `BITCOIN_RPC_PASSWORD`, or `BITCOIN_RPC_COOKIE_FILE`). The sandbox's stand-in is configured through the same keys.
 */
export interface BitcoinSettings {
  readonly url: string;
  /** Secrets: passed to the client only, never logged or shown. */
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  readonly cookieFile?: string | undefined;
}

/** The opened Bitcoin source: its one client. */
export interface BitcoinEndpoint extends OpenedSource {
  readonly url: string;
  readonly client: BitcoinSource;
}

export function bitcoinFromConfig(config: Config): BitcoinSettings | undefined {
  const b = config.bitcoin;
  if (b.rpcUrl === undefined) return undefined;
  return { url: b.rpcUrl, user: b.user, password: b.password, cookieFile: b.cookieFile };
}

/** Opens the Bitcoin source (`meta.source`: `bitcoin`, or `sandbox:bitcoin:regtest` from the sandbox's stand-in). */
export function openBitcoin(
  settings: BitcoinSettings,
  options: SourceOpenOptions & { readonly label?: string } = {},
): BitcoinEndpoint {
  const client = new BitcoinSource({
    url: settings.url,
    user: settings.user,
    password: settings.password,
    cookieFile: settings.cookieFile,
    ...clientOptions(options, 'bitcoin'),
  });
  return {
    url: settings.url,
    client,
    source: options.label === undefined ? 'bitcoin' : 'sandbox:bitcoin:regtest',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
