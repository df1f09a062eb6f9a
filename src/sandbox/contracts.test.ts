import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS_DIR, compileContracts } from '../../tools/compile-contracts.mjs';

describe('the sandbox’s own contracts', () => {
  it('the committed artifacts are what the sources compile to (run `node tools/compile-contracts.mjs` after a change)', () => {
    const compiled = compileContracts();
    expect(Object.keys(compiled)).toEqual(['FeedAggregator', 'StakedToken']);
    for (const [name, artifact] of Object.entries(compiled)) {
      const committed = JSON.parse(readFileSync(path.join(CONTRACTS_DIR, `${name}.json`), 'utf8'));
      expect(committed, name).toEqual(JSON.parse(JSON.stringify(artifact)));
    }
  }, 60_000);
});
