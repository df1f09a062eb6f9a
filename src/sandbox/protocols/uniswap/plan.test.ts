import { describe, expect, it } from 'vitest';
import type { PoolCharacter } from '../../world/manifest.js';
import { TOKEN_PLAN } from '../../world/plan.js';
import { plannedDexes } from './deploy.js';
import { CHARACTERS, POOL_PLAN, V3_TICK_SPACING } from './plan.js';

describe('the plan', () => {
  it('deploys the four uniswap-design deployments the registry lists', () => {
    expect(plannedDexes().map((d) => `${d.protocol} ${d.version}`)).toEqual([
      'uniswap V2',
      'uniswap V3',
      'pancakeswap V3',
      'fraxfinance V2',
    ]);
  });

  it('has every pool character, several pools per deployment, known tokens and fee tiers', () => {
    const characters = new Set(POOL_PLAN.map((p) => p.character));
    for (const c of Object.keys(CHARACTERS)) expect(characters.has(c as PoolCharacter), c).toBe(true);
    for (const d of plannedDexes()) {
      expect(POOL_PLAN.filter((p) => p.protocol === d.protocol && p.version === d.version).length).toBeGreaterThan(2);
    }
    const symbols = new Set(TOKEN_PLAN.map((t) => t.symbol));
    for (const p of POOL_PLAN) {
      expect(p.tokens.every((t) => symbols.has(t))).toBe(true);
      if (p.version === 'V3') expect(V3_TICK_SPACING[p.fee]).toBeDefined();
      else expect(p.fee).toBe(3000);
    }
    const keys = POOL_PLAN.map((p) => `${p.protocol} ${p.version} ${[...p.tokens].sort().join('/')} ${p.fee}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
