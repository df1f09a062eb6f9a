import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { DYDX_INDEXER_URL, DydxClient } from './client.js';

/**
 * The dYdX v4 venue this process reads, decided once at start-up from the configuration: the indexer's REST base
 * (`DYDX_INDEXER_URL`, default https://indexer.dydx.trade) and the chain node's Cosmos REST base
 * (`DYDX_NODE_REST_URL`, no default: dYdX runs no public node of its own; without one the TVL is not read). The
 * sandbox's stand-in answers with both keys: jobs never know which one they got.
 */
export interface DydxSettings {
  readonly indexerUrl: string;
  readonly nodeRestUrl: string | undefined;
}

/** The opened dYdX source: its one client (one concurrency limit, one retry policy). */
export interface DydxEndpoint extends OpenedSource {
  readonly client: DydxClient;
  readonly indexerUrl: string;
  readonly nodeRestUrl: string | undefined;
}

export function dydxFromConfig(config: Config): DydxSettings {
  return { indexerUrl: config.dydx.indexerUrl ?? DYDX_INDEXER_URL, nodeRestUrl: config.dydx.nodeRestUrl };
}

/** Opens the dYdX source (`meta.source`: `dydx`, or `sandbox:dydx` from the sandbox's stand-in). */
export function openDydx(
  settings: DydxSettings,
  options: SourceOpenOptions & { readonly label?: string } = {},
): DydxEndpoint {
  const client = new DydxClient({
    indexerUrl: settings.indexerUrl,
    nodeRestUrl: settings.nodeRestUrl,
    ...clientOptions(options, 'dydx'),
  });
  return {
    client,
    indexerUrl: settings.indexerUrl,
    nodeRestUrl: settings.nodeRestUrl,
    source: options.label === undefined ? 'dydx' : 'sandbox:dydx',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
