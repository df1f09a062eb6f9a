import { createHash } from 'node:crypto';
import type { SandboxChain } from '../../protocols/protocol.js';
import type { CompilerInput, ViewContract, WorldView } from '../../world/view.js';
import { HttpError } from '../base/server.js';

/**
 * What the contract-source stand-ins (Sourcify, Etherscan) know of the world: for every address the world deployed,
 * its contract and, where its artifact ships one, the compiler input it was built from (`WorldView.compilerInput`:
 * our own contracts' sources and settings, Aave's build-info). Every other address is not verified.
 *
 * The inputs are read on the first request for an address, not at start (Aave's build-info is 32 MB; a sandbox whose
 * security area is off never reads it): until the world is open, and while an address's input is being read, the
 * stand-ins answer 503 with `Retry-After: 1`, which both services' clients retry.
 */
export interface BookEntry {
  readonly chain: SandboxChain;
  readonly chainId: number;
  readonly contract: ViewContract;
  /** Undefined: the world deployed it, but its artifact ships no source (not verified). */
  readonly input: CompilerInput | undefined;
  /** The contract's position among the chain's deployed contracts, from 1 (Sourcify's `matchId`). */
  readonly index: number;
}

export type BookLookup =
  | { readonly kind: 'entry'; readonly entry: BookEntry }
  /** The world deployed nothing there: not verified. */
  | { readonly kind: 'none' }
  /** Not one of the world's chains. */
  | { readonly kind: 'unknown-chain' };

export class ContractBook {
  private view: WorldView | undefined;
  private failed: Error | undefined;
  private readonly inputs = new Map<string, CompilerInput | null>();
  private readonly reading = new Map<string, Promise<void>>();

  constructor(world: Promise<WorldView> | undefined) {
    world?.then(
      (v) => {
        this.view = v;
      },
      (err: Error) => {
        this.failed = err;
      },
    );
  }

  /** The world view once open. */
  world(): WorldView | undefined {
    return this.view;
  }

  /** Chain id → the world's chain. */
  chainOf(chainId: number): SandboxChain | undefined {
    for (const [chain, m] of this.view?.manifests ?? []) if (m.chainId === chainId) return chain;
    return undefined;
  }

  /**
   * The address's entry, synchronously for a route handler: throws `HttpError` 503 until the world is open and while
   * its input is read (the read starts here).
   */
  lookup(chainId: number, address: string): BookLookup {
    if (this.failed) throw new HttpError(503, `world unavailable: ${this.failed.message}`, { 'retry-after': '1' });
    const view = this.view;
    if (!view) throw new HttpError(503, 'the sandbox world is not open yet', { 'retry-after': '1' });
    const chain = this.chainOf(chainId);
    if (!chain) return { kind: 'unknown-chain' };
    const contract = view.contract(chain, address);
    if (!contract) return { kind: 'none' };
    const key = `${chain}:${contract.address}`;
    let input: CompilerInput | undefined;
    if (contract.hasSource) {
      const known = this.inputs.get(key);
      if (known === undefined) {
        void this.prepare(chainId, address);
        throw new HttpError(503, 'reading the contract source', { 'retry-after': '1' });
      }
      input = known ?? undefined;
    }
    const index = view.contracts(chain).findIndex((c) => c.address === contract.address) + 1;
    return { kind: 'entry', entry: { chain, chainId, contract, input, index } };
  }

  /** Reads an address's compiler input ahead of a request (tests, or a warm-up); resolves when it is known. */
  prepare(chainId: number, address: string): Promise<void> {
    const view = this.view;
    const chain = this.chainOf(chainId);
    if (!view || !chain) return Promise.resolve();
    const key = `${chain}:${address.toLowerCase()}`;
    let read = this.reading.get(key);
    if (!read) {
      read = view
        .compilerInput(chain, address)
        .catch(() => undefined)
        .then((input) => {
          this.inputs.set(key, input ?? null);
        });
      this.reading.set(key, read);
    }
    return read;
  }
}

/** `0.8.10+commit.fc410830` out of a compiler's name (`solc-js 0.8.37+commit.f401782d.Emscripten.clang`, `0.8.10+…`). */
export function compilerVersionOf(compiler: string): string {
  const m = /\d+\.\d+\.\d+(?:-nightly\.\d{4}\.\d+\.\d+)?\+commit\.[0-9a-f]{8}/.exec(compiler);
  return m ? m[0] : compiler;
}

/** A UUID-shaped id derived from `text` (the stand-ins' answers are the same bytes for the same requests). */
export function stableUuid(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
