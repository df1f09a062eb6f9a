import { bookEntry, bookKey, bookToken } from '../../registry/address-book.js';
import { USD_ANCHOR_SYMBOLS } from '../../registry/feeds.js';
import type { AreaEnv } from '../kit/module.js';
import type { StableDesign } from './facts.js';

/**
 * What the stablecoin area reads: the registry's stablecoin protocols on the chains this process has an RPC
 * endpoint for, at the entry point of the address book (`stablecoin/<protocol>`: MakerDAO's Chainlog, Liquity's
 * TroveManager; the registry's on mainnet, the sandbox's deployment in the sandbox). Every other contract is read
 * from the entry point. A protocol the book does not name is not read (its jobs wait quietly).
 */
export interface StablecoinTarget {
  readonly chain: string;
  readonly protocol: string;
  readonly name: string;
  readonly design: StableDesign;
  /** Lowercase address of the entry point. */
  readonly entryPoint: `0x${string}`;
  /** The entry point's deployment block when the book knows it; else ingestion starts at a look-back. */
  readonly startBlock?: number | undefined;
  /** The stablecoin's symbol (DAI, LUSD) and, when the book has it, its address (the Chainlog's is authoritative). */
  readonly symbol: string;
  /** The USD stablecoins its peg and exit liquidity are measured against (USDC first), lowercase addresses. */
  readonly quotes: readonly { readonly symbol: string; readonly address: string }[];
  /** The book's wrapped native token (WETH): Liquity's collateral as the DEX prices it. */
  readonly wrappedNative?: string | undefined;
}

export function stablecoinTargets(env: Pick<AreaEnv, 'registry' | 'book' | 'sources'>): StablecoinTarget[] {
  const evm = env.sources.get('evm');
  const out: StablecoinTarget[] = [];
  for (const p of env.registry.stablecoinProtocols()) {
    const s = p.stablecoin!;
    const chain = s.token.chain;
    if (!evm?.has(chain)) continue;
    const entry = bookEntry(env.book, chain, bookKey.stablecoin(p.id));
    if (!entry) continue;
    const quotes = [...USD_ANCHOR_SYMBOLS]
      .filter((q) => q !== s.token.symbol)
      .flatMap((symbol) => {
        const t = bookToken(env.book, chain, symbol);
        return t ? [{ symbol, address: t.address }] : [];
      });
    out.push({
      chain,
      protocol: p.id,
      name: p.name,
      design: s.entryPoint.design,
      entryPoint: entry.address as `0x${string}`,
      startBlock: entry.startBlock,
      symbol: s.token.symbol,
      quotes,
      wrappedNative: bookToken(env.book, chain, 'WETH')?.address,
    });
  }
  return out;
}
