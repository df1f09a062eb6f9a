import { parseAbi } from 'viem';
import { nowSeconds } from '../../core/time.js';
import type { JobContext } from '../../jobs/types.js';
import type { EvmChains } from '../../sources/evm/chains.js';
import type { EvmSource } from '../../sources/evm/source.js';
import type { LendingMarketTarget } from '../lending/public.js';
import { exchangeRateBlocks } from './compute.js';
import { type FactsInput, LiquidStakingRepository } from './repo.js';
import type { LiquidStakingTarget } from './targets.js';

/** wstETH's interface: the amount of the underlying one token is worth, 1e18 scale. */
export const STAKED_TOKEN_ABI = parseAbi(['function stEthPerToken() view returns (uint256)']);

/**
 * Each token's exchange rate at `blocks` (`eth_call` of `stEthPerToken()` at each block). A block whose state the
 * node cannot serve (a pruned history) answers null: its figures become gaps rather than guesses.
 */
export async function readExchangeRates(
  source: EvmSource,
  token: string,
  blocks: readonly number[],
): Promise<Map<number, bigint | null>> {
  const out = new Map<number, bigint | null>();
  for (const block of [...blocks].sort((a, b) => a - b)) {
    const [result] = await source.multicall({
      contracts: [{ address: token as `0x${string}`, abi: STAKED_TOKEN_ABI, functionName: 'stEthPerToken' }],
      allowFailure: true,
      blockNumber: BigInt(block),
    });
    out.set(block, result?.status === 'success' ? (result.result as bigint) : null);
  }
  return out;
}

/** `liquid-staking.ingest`: one pass, when the DEX and lending facts moved since the last. */
export class LiquidStakingIngest {
  constructor(
    private readonly evm: EvmChains,
    private readonly lsts: readonly LiquidStakingTarget[],
    private readonly markets: readonly LendingMarketTarget[],
    private readonly exchangeNames: ReadonlyMap<string, string>,
  ) {}

  async run(ctx: JobContext): Promise<string> {
    const repo = new LiquidStakingRepository(ctx.store.db);
    const pin = await repo.currentPin([...new Set(this.lsts.map((l) => l.chain))], this.markets);
    if (!pin) return 'no DEX snapshot yet';
    if (JSON.stringify(await repo.ratesIngestedFor()) === JSON.stringify(pin)) {
      return 'up to date: the DEX and lending facts did not move';
    }
    const facts = await repo.factsInput(this.lsts, this.markets, this.exchangeNames, pin);
    if (!facts) return 'the DEX or lending snapshots moved while reading them; next run';
    const summary = await ingestExchangeRates(ctx, this.evm, repo, facts);
    await repo.recordRatesIngested(pin, nowSeconds(ctx.clock));
    return summary;
  }
}

/**
 * The exchange rates the computation needs, as facts. From the DEX and lending facts the
 * computation would read now (`exchangeRateBlocks`), it reads each token's rate at every block not stored yet, and
 * again at blocks above the chain's final block (`EvmSource.finalBlock`: a reorg may have replaced them).
 */
export async function ingestExchangeRates(
  ctx: JobContext,
  evm: EvmChains,
  repo: LiquidStakingRepository,
  facts: FactsInput,
): Promise<string> {
  const parts: string[] = [];
  for (const [key, blocks] of exchangeRateBlocks(facts)) {
    const [chain, token] = key.split('/') as [string, string];
    const source = evm.source(chain);
    const finalBelow = (await source.finalBlock(await source.blockNumber())).number;
    const stored = await repo.rates(chain, token, [...blocks]);
    const wanted = [...blocks].filter((b) => !stored.has(b) || b > finalBelow);
    const read = await readExchangeRates(source, token, wanted);
    await repo.saveRates(chain, token, read, blocks, nowSeconds(ctx.clock));
    const missing = [...read.values()].filter((r) => r === null).length;
    parts.push(`${chain} ${token}: ${read.size} rates read${missing ? ` (${missing} blocks without state)` : ''}`);
  }
  return parts.join('; ') || 'no block needs a rate yet';
}
