/**
 * The tokenomics tokens' genesis (protocol.ts's `issue`, before any protocol's `deploy`): per token its issuer (an
 * agent of its own) deploys the token with its whole fixed supply, the contracts that hold its allocations, and
 * transfers each allocation (plan.ts) in the same block; then the pools' seeds are withdrawals from the exchange hot
 * wallets (`GENESIS_FUNDS`), never mints.
 */
import { type Address, encodeDeployData, encodeFunctionData, getAddress, type Hex } from 'viem';
import { Agent, type AgentRole, agentPrivateKey, newAgentState } from '../../chain/agent.js';
import { createdAddress } from '../../chain/artifacts.js';
import { GAS } from '../../chain/session.js';
import type {
  ManifestAirdropClaim,
  ManifestToken,
  ManifestTokenomics,
  ManifestTokenomicsHolder,
  ManifestTokenomicsToken,
} from '../../world/manifest.js';
import { Rng, seedState } from '../../world/random.js';
import type { GenesisBuild, GenesisFunds } from '../protocol.js';
import { tokenAbi, tokenomicsArtifacts } from './abis.js';
import { AirdropTree } from './merkle.js';
import {
  AIRDROP_RECIPIENTS,
  type AllocationPlan,
  allocatedTotal,
  BURN_ADDRESS,
  EXCHANGES,
  TIMELOCK_DELAY_SECONDS,
  TOKENOMICS_PLAN,
  type TokenomicsTokenPlan,
  UNI_MINTING_AFTER_SECONDS,
} from './plan.js';

/** Key offsets of the tokenomics agents in the world's key derivation (above Maker's and the batchers'). */
export const KEYS = {
  issuer: 3_000_000,
  exchange: 3_000_010,
  governor: 3_000_020,
  keeper: 3_000_030,
  beneficiary: 3_000_100,
  airdrop: 3_001_000,
} as const;

/** Native ETH set on the agents that sign in the genesis block (before the cast funds everyone). */
const GENESIS_ETH = 10n ** 24n;

export const TOKENOMICS_GAS = {
  transfer: 100_000n,
  claim: 150_000n,
  release: 150_000n,
} as const;

const WAD = 10n ** 18n;
const raw = (whole: number): bigint => BigInt(Math.round(whole * 1e6)) * (WAD / 1_000_000n);

/** The agents of the tokenomics cast, as created for the genesis block (their nonces move as they sign). */
export interface TokenomicsAgents {
  readonly issuers: Agent[];
  readonly exchanges: Agent[];
  readonly governors: Agent[];
  readonly keeper: Agent;
  /** One per vesting allocation with an EOA beneficiary, in the plan's order. */
  readonly beneficiaries: Agent[];
  readonly recipients: Agent[];
}

export interface QueuedTokenomics {
  readonly section: ManifestTokenomics;
  readonly agents: TokenomicsAgents;
}

function makeAgent(seed: number, key: number, role: AgentRole, index: number): Agent {
  return new Agent(newAgentState(seed, key, role), index, agentPrivateKey(seed, key));
}

/** How many vesting allocations have an EOA beneficiary (one beneficiary agent each). */
const isVesting = (a: AllocationPlan) => a.schedule !== undefined && !a.toTimelock;

export function tokenomicsAgents(seed: number): TokenomicsAgents {
  const vesting = TOKENOMICS_PLAN.flatMap((t) => t.allocations.filter(isVesting));
  return {
    issuers: TOKENOMICS_PLAN.map((_, i) => makeAgent(seed, KEYS.issuer + i, 'deployer', i)),
    exchanges: EXCHANGES.map((_, i) => makeAgent(seed, KEYS.exchange + i, 'exchange', i)),
    governors: TOKENOMICS_PLAN.map((_, i) => makeAgent(seed, KEYS.governor + i, 'holder', i)),
    keeper: makeAgent(seed, KEYS.keeper, 'keeper', 0),
    beneficiaries: vesting.map((_, i) => makeAgent(seed, KEYS.beneficiary + i, 'holder', i)),
    recipients: Array.from({ length: AIRDROP_RECIPIENTS }, (_, i) => makeAgent(seed, KEYS.airdrop + i, 'holder', i)),
  };
}

/** The airdrop's claims: log-normal shares of the distributor's amount, exactly summing to it. */
export function airdropClaims(seed: number, recipients: readonly Address[], total: bigint): ManifestAirdropClaim[] {
  const rng = new Rng(seedState(seed, 'tokenomics-airdrop'));
  const weights = recipients.map(() => rng.logNormal(1, 1.2));
  const sum = weights.reduce((a, b) => a + b, 0);
  const scaled = weights.map((w) => BigInt(Math.floor((w / sum) * 1e12)));
  const units = scaled.reduce((a, b) => a + b, 0n);
  const amounts = scaled.map((s) => (total * s) / units);
  amounts[amounts.length - 1]! += total - amounts.reduce((a, b) => a + b, 0n);
  return recipients.map((account, index) => ({
    index,
    account: getAddress(account),
    amount: amounts[index]!.toString(),
  }));
}

const hours = (genesis: number, h: number) => genesis + Math.round(h * 3600);

/**
 * Queues the tokens and their distribution on the genesis block and fills in their addresses in `build.tokens`.
 * Returns the manifest section and the agents (with the nonces they used).
 */
export async function queueTokenomics(build: GenesisBuild): Promise<QueuedTokenomics> {
  const agents = tokenomicsAgents(build.seed);
  const signers = [...agents.issuers, ...agents.exchanges];
  await build.rpc.batchResults(
    signers.map((s) => ({ method: 'anvil_setBalance', params: [s.address, `0x${GENESIS_ETH.toString(16)}`] })),
  );
  const genesis = build.startTimestamp;
  const vestingBeneficiaries = [...agents.beneficiaries];
  const tokens: ManifestTokenomicsToken[] = [];
  for (const [i, plan] of TOKENOMICS_PLAN.entries()) {
    if (allocatedTotal(plan) !== plan.supply)
      throw new Error(`tokenomics: ${plan.symbol}'s allocations miss its supply`);
    const world = build.tokens.find((t) => t.symbol === plan.symbol);
    if (!world) throw new Error(`tokenomics: the world has no ${plan.symbol}`);
    if (world.decimals !== 18) throw new Error(`tokenomics: ${plan.symbol} must have 18 decimals`);
    tokens.push(
      queueToken(build, plan, agents.issuers[i]!, agents, vestingBeneficiaries, agents.governors[i]!, world, genesis),
    );
  }
  return { section: { startBlock: build.deployBlock, tokens }, agents };
}

function queueToken(
  build: GenesisBuild,
  plan: TokenomicsTokenPlan,
  issuer: Agent,
  agents: TokenomicsAgents,
  beneficiaries: Agent[],
  governor: Agent,
  world: ManifestToken,
  genesis: number,
): ManifestTokenomicsToken {
  const a = tokenomicsArtifacts();
  const deploy = (data: Hex): Address => {
    const address = createdAddress(issuer.address, issuer.state.nonce);
    build.session.send(issuer, { to: null, data, gas: GAS.deploy, kind: 'deploy' });
    return address;
  };
  const supply = raw(plan.supply);
  let token: Address;
  let timelock: Address | undefined;
  if (plan.standard === 'uni') {
    // Uni's minter is the governance Timelock (as on mainnet), deployed right after it: its address is known.
    timelock = createdAddress(issuer.address, issuer.state.nonce + 1);
    token = deploy(
      encodeDeployData({
        abi: a.uni.abi,
        bytecode: a.uni.bytecode,
        args: [issuer.address, timelock, BigInt(genesis + UNI_MINTING_AFTER_SECONDS)],
      }),
    );
    const deployed = deploy(
      encodeDeployData({
        abi: a.timelock.abi,
        bytecode: a.timelock.bytecode,
        args: [governor.address, BigInt(TIMELOCK_DELAY_SECONDS)],
      }),
    );
    if (deployed !== timelock) throw new Error('tokenomics: the Timelock is not where Uni expects its minter');
  } else {
    token = deploy(
      encodeDeployData({
        abi: a.fixedSupply.abi,
        bytecode: a.fixedSupply.bytecode,
        args: [world.name, world.symbol, supply, issuer.address],
      }),
    );
  }
  world.address = token;

  const holders: ManifestTokenomicsHolder[] = [];
  let airdrop: ManifestTokenomicsToken['airdrop'];
  for (const alloc of plan.allocations) {
    const amount = raw(alloc.amount);
    const base = { category: alloc.category, kind: alloc.kind, label: alloc.label, amount: amount.toString() };
    const s = alloc.schedule;
    const beneficiary = isVesting(alloc) ? beneficiaries.shift() : undefined;
    if (isVesting(alloc) && !beneficiary) throw new Error('tokenomics: too few beneficiaries');
    let holder: ManifestTokenomicsHolder;
    if (alloc.kind === 'treasury_vester' && s?.type === 'cliff-linear') {
      const recipient = alloc.toTimelock ? timelock : beneficiary?.address;
      if (!recipient) throw new Error(`tokenomics: ${plan.symbol} ${alloc.label} has no recipient`);
      const schedule = { start: hours(genesis, s.begin), cliff: hours(genesis, s.cliff), end: hours(genesis, s.end) };
      const address = deploy(
        encodeDeployData({
          abi: a.treasuryVester.abi,
          bytecode: a.treasuryVester.bytecode,
          args: [token, recipient, amount, BigInt(schedule.start), BigInt(schedule.cliff), BigInt(schedule.end)],
        }),
      );
      holder = { ...base, address, contract: 'TreasuryVester', beneficiary: recipient, schedule };
    } else if (alloc.kind === 'vesting_wallet' && s?.type === 'linear' && beneficiary) {
      const start = hours(genesis, s.start);
      const end = hours(genesis, s.start + s.duration);
      const address = deploy(
        encodeDeployData({
          abi: a.vestingWallet.abi,
          bytecode: a.vestingWallet.bytecode,
          args: [beneficiary.address, BigInt(start), BigInt(end - start)],
        }),
      );
      holder = {
        ...base,
        address,
        contract: 'VestingWallet',
        beneficiary: beneficiary.address,
        schedule: { start, cliff: start, end },
      };
    } else if (alloc.kind === 'token_timelock' && s?.type === 'step' && beneficiary) {
      const at = hours(genesis, s.release);
      const address = deploy(
        encodeDeployData({
          abi: a.tokenTimelock.abi,
          bytecode: a.tokenTimelock.bytecode,
          args: [token, beneficiary.address, BigInt(at)],
        }),
      );
      holder = {
        ...base,
        address,
        contract: 'TokenTimelock',
        beneficiary: beneficiary.address,
        schedule: { start: at, cliff: at, end: at },
      };
    } else if (alloc.kind === 'timelock' && timelock) {
      holder = { ...base, address: timelock, contract: 'Timelock' };
    } else if (alloc.kind === 'timelock_controller') {
      const address = deploy(
        encodeDeployData({
          abi: a.timelockController.abi,
          bytecode: a.timelockController.bytecode,
          args: [
            BigInt(TIMELOCK_DELAY_SECONDS),
            [governor.address],
            [governor.address],
            '0x0000000000000000000000000000000000000000',
          ],
        }),
      );
      holder = { ...base, address, contract: 'TimelockController' };
    } else if (alloc.kind === 'merkle_distributor') {
      const claims = airdropClaims(
        build.seed,
        agents.recipients.map((r) => r.address),
        amount,
      );
      const tree = new AirdropTree(
        claims.map((c) => ({ index: c.index, account: c.account, amount: BigInt(c.amount) })),
      );
      const address = deploy(
        encodeDeployData({
          abi: a.merkleDistributor.abi,
          bytecode: a.merkleDistributor.bytecode,
          args: [token, tree.root],
        }),
      );
      holder = { ...base, address, contract: 'MerkleDistributor' };
      airdrop = { distributor: address, merkleRoot: tree.root, claims };
    } else if (alloc.kind === 'eoa' && alloc.category === 'exchange') {
      const i = EXCHANGES.findIndex((e) => e.label === alloc.label);
      const wallet = agents.exchanges[i];
      if (!wallet) throw new Error(`tokenomics: no exchange wallet ${alloc.label}`);
      holder = { ...base, address: wallet.address };
    } else {
      throw new Error(`tokenomics: ${plan.symbol} ${alloc.label}: no way to deploy a ${alloc.kind} with this schedule`);
    }
    holders.push(holder);
  }
  // The issuer hands every allocation out in the genesis block: it keeps nothing.
  for (const h of holders) {
    build.session.send(issuer, {
      to: token,
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [h.address, BigInt(h.amount)] }),
      gas: TOKENOMICS_GAS.transfer,
      kind: 'fund',
    });
  }
  // The beneficiaries' own wallets are labelled too (a vested and released allocation stays in its category while its
  // beneficiary holds it); a treasury vester's recipient is the Timelock, already labelled.
  const labelled = new Set(holders.map((h) => h.address));
  for (const h of [...holders]) {
    if (!h.beneficiary || labelled.has(h.beneficiary)) continue;
    holders.push({
      address: h.beneficiary,
      category: h.category,
      kind: 'eoa',
      label: `${h.label}-beneficiary`,
      amount: '0',
    });
  }
  holders.push({ address: BURN_ADDRESS, category: 'burn', kind: 'burn', label: 'dead', amount: '0' });
  return {
    symbol: plan.symbol,
    protocol: plan.protocol,
    address: token,
    standard: plan.standard,
    totalSupply: supply.toString(),
    issuer: issuer.address,
    holders,
    ...(airdrop ? { airdrop } : {}),
  };
}

/**
 * The pools' genesis seeds in the tokenomics tokens: withdrawals from the exchange hot wallet holding the most of
 * the token (a transfer the wallet signs in the genesis block), never a mint.
 */
export function genesisFunds(build: GenesisBuild, queued: QueuedTokenomics): GenesisFunds {
  const float = new Map<string, bigint[]>();
  for (const t of queued.section.tokens) {
    float.set(
      t.address.toLowerCase(),
      queued.agents.exchanges.map((w) => BigInt(t.holders.find((h) => h.address === w.address)?.amount ?? '0')),
    );
  }
  return {
    fund: (agent, token, amount) => {
      const held = float.get(token.address.toLowerCase());
      if (!held) return false;
      const i = held.reduce((best, v, k) => (v > held[best]! ? k : best), 0);
      if (held[i]! < amount)
        throw new Error(`tokenomics: the exchange wallets hold too little ${token.symbol} to seed the pools`);
      held[i]! -= amount;
      build.session.send(queued.agents.exchanges[i]!, {
        to: token.address,
        data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [agent.address, amount] }),
        gas: TOKENOMICS_GAS.transfer,
        kind: 'fund',
      });
      return true;
    },
  };
}
