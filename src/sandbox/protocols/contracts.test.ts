import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactFile, compileContracts, compileMorpho, MORPHO_ARTIFACT } from '../../../tools/compile-contracts.mjs';

describe('the sandbox’s own contracts', () => {
  it('the committed artifacts are what the sources compile to (run `node tools/compile-contracts.mjs` after a change)', () => {
    const compiled = compileContracts();
    expect(Object.keys(compiled).sort()).toEqual([
      'ActivePool',
      'BorrowerOperations',
      'ChainLog',
      'CollSurplusPool',
      'DataStore',
      'DefaultPool',
      'EventEmitter',
      'FeedAggregator',
      'FeedPriceOracle',
      'FeedProxy',
      'FixedCurveIrm',
      'GasPool',
      'HintHelpers',
      'LUSDToken',
      'LiquitySandboxReader',
      'MarketEngine',
      'MarketEvents',
      'MarketFactory',
      'MarketToken',
      'Oracle',
      'PriceFeed',
      'SortedTroves',
      'StabilityPool',
      'StakedToken',
      'TroveManager',
    ]);
    for (const [name, artifact] of Object.entries(compiled)) {
      const committed = JSON.parse(readFileSync(artifactFile(artifact), 'utf8'));
      expect(committed, name).toEqual(JSON.parse(JSON.stringify(artifact)));
    }
    // A hang guard, not a speed check (solc-js compiles every contract, GMX's since issue 27: 44 s on CI's Node.js
    // 20 pass, 116 s on a loaded machine), as the Morpho Blue compile below.
  }, 180_000);

  it('the committed Morpho Blue artifact is what @morpho-org/morpho-blue compiles to with its own settings', () => {
    const committed = JSON.parse(readFileSync(MORPHO_ARTIFACT, 'utf8'));
    expect(committed.compiler).toMatch(/^solc-js 0\.8\.19\+commit\.7dd6d404/);
    expect(committed.settings).toEqual({
      viaIR: true,
      optimizer: { enabled: true, runs: 999999 },
      evmVersion: 'paris',
      metadata: { bytecodeHash: 'none' },
    });
    expect(committed).toEqual(JSON.parse(JSON.stringify(compileMorpho())));
  }, 180_000);
});
