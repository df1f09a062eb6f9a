/**
 * The sandbox's layer-2 chains, opened next to the Ethereum world with its genesis and cadence (chain.ts): what
 * `setUpSources` starts and gives to the service as `RPC_URL_OPTIMISM` and `RPC_URL_ARBITRUM`. Each hosts the
 * protocols of the list that declare its kind (their transactions in its blocks, their manifest in `manifest`).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../core/time.js';
import type { SandboxProtocol } from '../protocols/index.js';
import { type L2Chain, type L2Kind, openL2Chain } from './chain.js';

export type { L2Chain, L2Kind } from './chain.js';

export const L2_KINDS: readonly L2Kind[] = ['optimism', 'arbitrum'];

export interface L2Chains {
  readonly chains: readonly L2Chain[];
  /** Configuration keys of the chains (`RPC_URL_OPTIMISM`, `RPC_URL_ARBITRUM`): their proxies. */
  readonly config: Readonly<Record<string, string>>;
  /** Settles when every chain has reached the clock's now. */
  readonly caughtUp: Promise<void>;
  stop(): Promise<void>;
}

export async function openL2Chains(options: {
  readonly dataDir: string;
  readonly seed: number;
  readonly genesisTimestamp: number;
  readonly blockSeconds: number;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly live?: boolean;
  readonly kinds?: readonly L2Kind[];
  /** The protocol list (default protocols/index.ts; a test may pass its own): each chain hosts those of its kind. */
  readonly protocols?: readonly SandboxProtocol[];
  readonly scale?: number;
  readonly stablecoins?: boolean;
}): Promise<L2Chains> {
  const opened = await Promise.allSettled((options.kinds ?? L2_KINDS).map((kind) => openL2Chain({ ...options, kind })));
  const chains = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const failure = opened.find((o) => o.status === 'rejected');
  if (failure) {
    await Promise.all(chains.map((c) => c.stop()));
    throw (failure as PromiseRejectedResult).reason;
  }
  return {
    chains,
    config: Object.fromEntries(chains.map((c) => [`RPC_URL_${c.kind.toUpperCase()}`, c.rpcUrl])),
    caughtUp: Promise.all(chains.map((c) => c.caughtUp)).then(() => undefined),
    stop: async () => {
      await Promise.all(chains.map((c) => c.stop()));
    },
  };
}
