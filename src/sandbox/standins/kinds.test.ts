import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { STANDINS } from './index.js';

describe('stand-in kinds', () => {
  // `sandbox run` writes SANDBOX_STANDINS from these kinds into the configuration file every serve and worker process
  // reads: a kind the key refuses stops the whole scaled-out deployment (gmx_oracle once did).
  it('every stand-in kind is one SANDBOX_STANDINS accepts', () => {
    const kinds = STANDINS.map((s) => s.kind);
    const config = loadConfig({ SANDBOX_STANDINS: kinds.join(',') });
    expect([...config.sandbox.standins].sort()).toEqual([...kinds].sort());
  });

  it('SANDBOX_STANDINS still refuses what is no kind of source', () => {
    expect(() => loadConfig({ SANDBOX_STANDINS: 'github,Git Hub' })).toThrow(/SANDBOX_STANDINS/);
  });
});
