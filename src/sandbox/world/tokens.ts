/** The world's tokens as the scenario and the protocols' actors use them: the manifest's entry and the plan's. */
import type { ManifestToken, WorldManifest } from './manifest.js';
import { TOKEN_PLAN, type TokenPlan } from './plan.js';

export interface TokenView {
  readonly m: ManifestToken;
  /** Lowercase address. */
  readonly id: string;
  readonly plan: TokenPlan | undefined;
}

/** Every token of the manifest, in its order. */
export function tokenViews(manifest: WorldManifest): TokenView[] {
  return manifest.tokens.map((m) => ({
    m,
    id: m.address.toLowerCase(),
    plan: TOKEN_PLAN.find((p) => p.symbol === m.symbol),
  }));
}
