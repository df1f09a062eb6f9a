import type { Config } from '../../config/index.js';
import { BitcoinSource } from './source.js';

/**
 * The Bitcoin Core RPC this process reads, from the configuration (`RPC_URL_BITCOIN`, `BITCOIN_RPC_USER` and
 * `BITCOIN_RPC_PASSWORD`, or `BITCOIN_RPC_COOKIE_FILE`). The sandbox's stand-in is configured through the same keys.
 */
export interface BitcoinEndpoint {
  readonly url: string;
  /** Secrets: passed to the client only, never logged or shown. */
  readonly user?: string | undefined;
  readonly password?: string | undefined;
  readonly cookieFile?: string | undefined;
  /** Set by the runtime when the sandbox's stand-in serves it (`meta.source`: `sandbox:bitcoin:regtest`). */
  readonly label?: string;
  /** Client tuning (tests make retries instant). */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly maxRetries?: number;
}

export function bitcoinFromConfig(config: Config): BitcoinEndpoint | undefined {
  const b = config.bitcoin;
  if (b.rpcUrl === undefined) return undefined;
  return { url: b.rpcUrl, user: b.user, password: b.password, cookieFile: b.cookieFile };
}

/** A source on the endpoint. */
export function openBitcoin(endpoint: BitcoinEndpoint, log?: import('../evm/types.js').EvmLogger): BitcoinSource {
  return new BitcoinSource({
    url: endpoint.url,
    user: endpoint.user,
    password: endpoint.password,
    cookieFile: endpoint.cookieFile,
    ...(endpoint.sleep ? { sleep: endpoint.sleep } : {}),
    ...(endpoint.maxRetries !== undefined ? { maxRetries: endpoint.maxRetries } : {}),
    ...(log ? { log } : {}),
  });
}
