/** The calls the tokenomics world makes and the views its tests read, as the contracts of its npm packages declare them. */
import { parseAbi } from 'viem';
import { loadArtifact } from '../../chain/artifacts.js';

/** The token calls both standards share (Uni's `transfer` takes a `rawAmount` below 2⁹⁶). */
export const tokenAbi = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function decimals() view returns (uint8)',
  'event Transfer(address indexed from, address indexed to, uint256 amount)',
]);

/** Uni's minting (only its minter, only after `mintingAllowedAfter`, at most 2 % a year). */
export const uniAbi = parseAbi([
  'function mint(address dst, uint256 rawAmount)',
  'function minter() view returns (address)',
  'function mintingAllowedAfter() view returns (uint256)',
]);

export const treasuryVesterAbi = parseAbi([
  'function claim()',
  'function recipient() view returns (address)',
  'function vestingAmount() view returns (uint256)',
  'function vestingBegin() view returns (uint256)',
  'function vestingCliff() view returns (uint256)',
  'function vestingEnd() view returns (uint256)',
  'function lastUpdate() view returns (uint256)',
]);

export const timelockAbi = parseAbi([
  'function admin() view returns (address)',
  'function delay() view returns (uint256)',
]);

export const merkleDistributorAbi = parseAbi([
  'function claim(uint256 index, address account, uint256 amount, bytes32[] merkleProof)',
  'function isClaimed(uint256 index) view returns (bool)',
  'function merkleRoot() view returns (bytes32)',
  'function token() view returns (address)',
  'event Claimed(uint256 index, address account, uint256 amount)',
]);

export const vestingWalletAbi = parseAbi([
  'function release(address token)',
  'function released(address token) view returns (uint256)',
  'function releasable(address token) view returns (uint256)',
  'function vestedAmount(address token, uint64 timestamp) view returns (uint256)',
  'function beneficiary() view returns (address)',
  'function start() view returns (uint256)',
  'function duration() view returns (uint256)',
]);

export const tokenTimelockAbi = parseAbi([
  'function release()',
  'function token() view returns (address)',
  'function beneficiary() view returns (address)',
  'function releaseTime() view returns (uint256)',
]);

export const timelockControllerAbi = parseAbi([
  'function getMinDelay() view returns (uint256)',
  'function hasRole(bytes32 role, address account) view returns (bool)',
  'function PROPOSER_ROLE() view returns (bytes32)',
  'function EXECUTOR_ROLE() view returns (bytes32)',
]);

let cache: ReturnType<typeof load> | undefined;

function load() {
  const oz = (name: string) => loadArtifact(`@openzeppelin/contracts/build/contracts/${name}.json`, name);
  return {
    uni: loadArtifact('@uniswap/governance/build/Uni.json', 'Uni'),
    treasuryVester: loadArtifact('@uniswap/governance/build/TreasuryVester.json', 'TreasuryVester'),
    timelock: loadArtifact('@uniswap/governance/build/Timelock.json', 'Timelock'),
    merkleDistributor: loadArtifact('@uniswap/merkle-distributor/build/MerkleDistributor.json', 'MerkleDistributor'),
    fixedSupply: oz('ERC20PresetFixedSupply'),
    vestingWallet: oz('VestingWallet'),
    tokenTimelock: oz('TokenTimelock'),
    timelockController: oz('TimelockController'),
  };
}

/** The tokenomics contracts' artifacts (real bytecode from npm, never recompiled), read once. */
export function tokenomicsArtifacts(): ReturnType<typeof load> {
  cache ??= load();
  return cache;
}
