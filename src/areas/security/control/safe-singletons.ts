/**
 * The canonical Safe singletons (the contracts a Safe proxy delegates to), by the keccak256 of their runtime code,
 * from Safe's own deployment list (`@safe-global/safe-deployments`): a Safe whose singleton's code hash is here runs
 * audited, released Safe code, whatever address it was deployed at. Pure data.
 */
import { getSafeL2SingletonDeployments, getSafeSingletonDeployments } from '@safe-global/safe-deployments';

export interface SafeSingleton {
  readonly version: string;
  /** The L2 variant (events on every transaction). */
  readonly l2: boolean;
  /** The deployment kind of Safe's list (`canonical`, `eip155`, `zksync`). */
  readonly deployment: string;
}

/** The versions whose singletons Safe's list holds (1.0.0 is the first Safe, earlier ones were Gnosis multisigs). */
const VERSIONS = ['1.0.0', '1.1.1', '1.2.0', '1.3.0', '1.4.1', '1.5.0'] as const;

let byCodeHash: Map<string, SafeSingleton> | undefined;

function table(): Map<string, SafeSingleton> {
  if (byCodeHash) return byCodeHash;
  const out = new Map<string, SafeSingleton>();
  for (const version of VERSIONS) {
    for (const l2 of [false, true]) {
      const found = (l2 ? getSafeL2SingletonDeployments : getSafeSingletonDeployments)({ version });
      for (const [deployment, entry] of Object.entries(found?.deployments ?? {})) {
        const hash = (entry as { codeHash?: string } | undefined)?.codeHash?.toLowerCase();
        if (hash && !out.has(hash)) out.set(hash, { version, l2, deployment });
      }
    }
  }
  byCodeHash = out;
  return out;
}

/** The canonical singleton whose runtime code hashes to `codeHash` (0x-prefixed), or undefined. */
export function canonicalSafeSingleton(codeHash: string): SafeSingleton | undefined {
  return table().get(codeHash.toLowerCase());
}
