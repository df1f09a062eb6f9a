import type { Config } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { SOURCIFY_URL, SourcifyClient } from './client.js';

/**
 * The Sourcify server this process reads contract sources from, decided once at start-up: `SOURCIFY_URL` (default
 * Sourcify's public server). The sandbox's stand-in answers with the same key.
 */
export interface SourcifySettings {
  readonly baseUrl: string;
}

/** The opened Sourcify source: its one client (one concurrency limit, one retry policy). */
export interface SourcifyEndpoint extends OpenedSource {
  readonly client: SourcifyClient;
  readonly baseUrl: string;
}

export function sourcifyFromConfig(config: Config): SourcifySettings {
  return { baseUrl: config.contractSources.sourcifyUrl ?? SOURCIFY_URL };
}

/** Opens the Sourcify source (`meta.source`: `sourcify`, or `sandbox:sourcify` from the sandbox's stand-in). */
export function openSourcify(
  settings: SourcifySettings,
  options: SourceOpenOptions & { readonly label?: string } = {},
): SourcifyEndpoint {
  const client = new SourcifyClient({ baseUrl: settings.baseUrl, ...clientOptions(options, 'sourcify') });
  return {
    client,
    baseUrl: client.baseUrl,
    source: options.label === undefined ? 'sourcify' : 'sandbox:sourcify',
    ...(options.label !== undefined ? { label: options.label } : {}),
  };
}
