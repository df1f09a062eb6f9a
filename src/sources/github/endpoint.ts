import { type Config, DEFAULT_GITHUB_API_URL } from '../../config/index.js';
import { clientOptions, type OpenedSource, type SourceOpenOptions } from '../http.js';
import { GithubSource } from './source.js';

/**
 * The GitHub REST API this process reads, decided once at start-up from the configuration (`GITHUB_API_URL`,
 * default GitHub's own, and `GITHUB_TOKEN`). The sandbox's stand-in is configured the same way, through those
 * two keys: jobs never know which one they got.
 */
export interface GithubSettings {
  readonly baseUrl: string;
  /** Secret: passed to the client only, never logged or shown. */
  readonly token: string | undefined;
}

/** The opened GitHub source: its one client, shared by every area that reads GitHub. */
export interface GithubEndpoint extends GithubSettings, OpenedSource {
  readonly client: GithubSource;
  /** Only these subjects (`kind:id`, e.g. `protocol:aave`); default: every registry subject. Tests use a few. */
  readonly subjects?: readonly string[];
}

/** The configured GitHub API (GITHUB_API_URL or GitHub's), with the configured token. */
export function githubFromConfig(config: Config): GithubSettings {
  return { baseUrl: config.github.apiUrl ?? DEFAULT_GITHUB_API_URL, token: config.github.token };
}

/** Opens the GitHub source: one client, its conditional requests cached in `options.etags` as well as in memory. */
export function openGithub(
  settings: GithubSettings,
  options: SourceOpenOptions & { readonly label?: string; readonly subjects?: readonly string[] } = {},
): GithubEndpoint {
  const client = new GithubSource({
    baseUrl: settings.baseUrl,
    ...(settings.token ? { token: settings.token } : {}),
    ...(options.etags ? { etagStore: options.etags } : {}),
    ...clientOptions(options, 'github'),
  });
  return {
    ...settings,
    client,
    source: options.label === undefined ? 'github' : 'sandbox:github',
    ...(options.label !== undefined ? { label: options.label } : {}),
    ...(options.subjects ? { subjects: options.subjects } : {}),
  };
}
