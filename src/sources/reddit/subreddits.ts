/**
 * The subreddit read for each protocol tracked on Reddit (`registry.socialSubjects('reddit')`, by social id).
 *
 * Decision (issue 16): the registry's `social.reddit` entry is the protocol's id on the community paths, not a
 * subreddit, and a protocol's subreddit is deployment knowledge that changes (communities move, get banned or go
 * private). So the mapping is configuration: `REDDIT_SUBREDDITS` (`id=Subreddit,id=Subreddit`) overrides the
 * defaults below, and a protocol with neither reads the subreddit named like its id. The defaults are the
 * communities' names as publicly known when this was written; they were not checked against Reddit from here
 * (no network), so an operator confirms them before production. The sandbox's stand-in serves the same names, so
 * the same lookup runs everywhere. The source reports the subreddit it read (`about().display_name`), and the
 * area shows it in `source.subreddit`.
 */
export const DEFAULT_SUBREDDITS: Readonly<Record<string, string>> = {
  aave: 'Aave_Official',
  uniswap: 'UniSwap',
  chainlink: 'Chainlink',
  makerdao: 'MakerDAO',
  curve: 'CurveFinance',
  synthetix: 'synthetix_io',
  yearn: 'yearn_finance',
  pancakeswap: 'pancakeswap',
  dydx: 'dYdX',
  lido: 'LidoFinance',
  bitcoin: 'Bitcoin',
  ethereum: 'ethereum',
  arbitrum: 'arbitrum',
  near: 'nearprotocol',
  optimism: 'optimismCollective',
};

/** The subreddit of a social id: the configured one, else the default, else the id itself. */
export function subredditFor(socialId: string, overrides: ReadonlyMap<string, string> = new Map()): string {
  return overrides.get(socialId) ?? DEFAULT_SUBREDDITS[socialId] ?? socialId;
}
