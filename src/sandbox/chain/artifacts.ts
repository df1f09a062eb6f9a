/**
 * Loading contracts from the npm packages' build artifacts (the real, audited bytecode; never recompiled), the
 * tokens every protocol of the world uses (WETH9 and a mintable ERC-20), and the token ABIs of the calls the
 * sandbox makes. Each protocol loads its own contracts with `loadArtifact` (protocols/uniswap) or its own loader
 * (protocols/aave links libraries).
 *
 * Two artifact formats ship: Waffle (`@uniswap/v2-*`, bytecode without `0x`) and Hardhat (`@uniswap/v3-*`,
 * `@aave/core-v3`). `loadArtifact` normalises both. The call ABIs below are written out with `parseAbi` rather than
 * taken from the JSON so that viem can type the arguments.
 */
import { createRequire } from 'node:module';
import { type Abi, type Address, getContractAddress, type Hex, parseAbi } from 'viem';

export interface Artifact {
  readonly contractName: string;
  readonly abi: Abi;
  /** Creation bytecode, `0x`-prefixed. */
  readonly bytecode: Hex;
}

const require = createRequire(import.meta.url);

interface RawArtifact {
  readonly contractName?: string;
  readonly abi: Abi;
  readonly bytecode: string;
  readonly linkReferences?: Record<string, unknown>;
}

/** An artifact of an npm package (`path` as `require` resolves it), checked to be deployable as it is. */
export function loadArtifact(path: string, contractName: string): Artifact {
  const raw = require(path) as RawArtifact;
  const bytecode = (raw.bytecode.startsWith('0x') ? raw.bytecode : `0x${raw.bytecode}`) as Hex;
  if (bytecode.length <= 2) throw new Error(`${path}: the artifact has no bytecode (abstract contract)`);
  // None of the contracts the sandbox deploys links libraries; a linked artifact would need its placeholders patched.
  if (raw.linkReferences && Object.keys(raw.linkReferences).length > 0) {
    throw new Error(`${path}: the artifact needs library linking`);
  }
  return { contractName, abi: raw.abi, bytecode };
}

let cache: ReturnType<typeof loadTokens> | undefined;

function loadTokens() {
  return {
    weth9: loadArtifact('@uniswap/v2-periphery/build/WETH9.json', 'WETH9'),
    mintableErc20: loadArtifact(
      '@aave/core-v3/artifacts/contracts/mocks/tokens/MintableERC20.sol/MintableERC20.json',
      'MintableERC20',
    ),
  };
}

/** The token contracts (WETH9, MintableERC20), read from `node_modules` once. */
export function tokenArtifacts(): ReturnType<typeof loadTokens> {
  cache ??= loadTokens();
  return cache;
}

/** The address of the contract an account creates with the given nonce. */
export function createdAddress(deployer: Address, nonce: number): Address {
  return getContractAddress({ from: deployer, nonce: BigInt(nonce) });
}

export const erc20Abi = parseAbi([
  'function approve(address spender, uint256 amount) returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

/** `MintableERC20` of `@aave/core-v3`: anyone may mint to themselves (the sandbox's faucet). */
export const mintableErc20Abi = parseAbi(['function mint(uint256 value) returns (bool)']);

export const weth9Abi = parseAbi([
  'function deposit() payable',
  'event Deposit(address indexed dst, uint256 wad)',
  'event Withdrawal(address indexed src, uint256 wad)',
]);
