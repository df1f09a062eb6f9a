import { keccak256 } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  sortTokens,
  uniswapArtifacts,
  V2_PAIR_INIT_CODE_HASH,
  V3_POOL_INIT_CODE_HASH,
  v2PairAddress,
  v3PoolAddress,
} from './artifacts.js';

// Mainnet addresses: the CREATE2 derivations must reproduce them from mainnet's factories.
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const V2_FACTORY = '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f';
const V3_FACTORY = '0x1F98431c8aD98523631AE4a59f267346ea31F984';

describe('Uniswap artifacts', () => {
  it('loads every contract with 0x-prefixed creation bytecode and an ABI', () => {
    for (const [name, artifact] of Object.entries(uniswapArtifacts())) {
      expect(artifact.bytecode.startsWith('0x6'), name).toBe(true);
      expect(artifact.bytecode.length, name).toBeGreaterThan(1000);
      expect(artifact.abi.length, name).toBeGreaterThan(0);
    }
  });

  it("ships the pool bytecode whose hash the periphery embeds (mainnet's)", () => {
    expect(keccak256(uniswapArtifacts().v2Pair.bytecode)).toBe(V2_PAIR_INIT_CODE_HASH);
    expect(keccak256(uniswapArtifacts().v3Pool.bytecode)).toBe(V3_POOL_INIT_CODE_HASH);
  });

  it('derives mainnet pool addresses', () => {
    expect(v2PairAddress(V2_FACTORY, WETH, USDC)).toBe('0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc');
    expect(v3PoolAddress(V3_FACTORY, WETH, USDC, 500)).toBe('0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640');
    expect(v3PoolAddress(V3_FACTORY, USDC, WETH, 3000)).toBe('0x8ad599c3A0ff1De082011EFDDc58f1908eb6e6D8');
  });

  it('sorts tokens numerically', () => {
    expect(sortTokens(WETH, USDC)).toEqual([USDC, WETH]);
  });
});
