import { describe, expect, it } from 'vitest';
import { createdAddress, tokenArtifacts } from './artifacts.js';

describe('artifacts', () => {
  it('loads every token contract with 0x-prefixed creation bytecode and an ABI', () => {
    for (const [name, artifact] of Object.entries(tokenArtifacts())) {
      expect(artifact.bytecode.startsWith('0x6'), name).toBe(true);
      expect(artifact.bytecode.length, name).toBeGreaterThan(1000);
      expect(artifact.abi.length, name).toBeGreaterThan(0);
    }
  });

  it('derives CREATE addresses', () => {
    // anvil's account 0, nonce 0: the first contract every local chain deploys.
    expect(createdAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 0)).toBe(
      '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    );
  });
});
