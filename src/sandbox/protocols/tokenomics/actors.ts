/**
 * The tokenomics actors (stream `tokenomics`, agents of keys 3,000,000 + i): the keeper claims the TreasuryVesters
 * every 6 hours once past their cliff; beneficiaries release their VestingWallets every 12 hours and their
 * TokenTimelocks once due; airdrop recipients claim from the MerkleDistributor at their drawn time (a quarter never
 * do); holders deposit part of what they received into an exchange hot wallet now and then, and rarely burn a little
 * (a transfer to 0x…dEaD). Agents of the world who need one of these tokens withdraw it from the hot wallet holding
 * the most (`topUp`): the tokens are never minted after genesis.
 */
import { type Address, encodeFunctionData, type Hex } from 'viem';
import { Agent, type AgentState, agentPrivateKey } from '../../chain/agent.js';
import type { ManifestTokenomics, ManifestTokenomicsHolder } from '../../world/manifest.js';
import { Rng, type RngState, seedState } from '../../world/random.js';
import type { TokenView } from '../../world/tokens.js';
import type { ProtocolActors, WorldHost } from '../protocol.js';
import { merkleDistributorAbi, tokenAbi, tokenTimelockAbi, treasuryVesterAbi, vestingWalletAbi } from './abis.js';
import { TOKENOMICS_GAS, type TokenomicsAgents } from './deploy.js';
import { AirdropTree } from './merkle.js';
import { AIRDROP_CLAIMING_SHARE, AIRDROP_MEAN_CLAIM_HOURS, BURN_ADDRESS, EXCHANGES } from './plan.js';

const HOUR = 3600;
/** The keeper's TreasuryVester claims and the beneficiaries' VestingWallet releases: every 6 and 12 hours. */
const KEEPER_PERIOD = 6 * HOUR;
const RELEASE_PERIOD = 12 * HOUR;
/** Per holder and token held: deposits into an exchange per hour, and burns per hour in the whole cast. */
const DEPOSITS_PER_HOUR = 0.06;
const BURNS_PER_HOUR = 0.04;

export interface TokenomicsRuntimeState {
  rng: RngState;
  issuers: AgentState[];
  exchanges: AgentState[];
  governors: AgentState[];
  keeper: AgentState;
  beneficiaries: AgentState[];
  recipients: AgentState[];
  /** Per airdrop recipient: when it claims (unix seconds), or null: it never does. */
  claimAt: (number | null)[];
  /** Airdrop indices claimed. */
  claimed: number[];
  /** Lowercase addresses of vesting contracts with nothing left to claim or release. */
  finished: string[];
  stats: {
    withdrawals: number;
    deposits: number;
    burns: number;
    airdropClaims: number;
    vesterClaims: number;
    releases: number;
  };
}

export function initialTokenomicsState(
  seed: number,
  genesis: number,
  agents: TokenomicsAgents,
): TokenomicsRuntimeState {
  const rng = new Rng(seedState(seed, 'tokenomics'));
  const claimAt = agents.recipients.map(() =>
    rng.chance(AIRDROP_CLAIMING_SHARE)
      ? genesis + Math.max(60, Math.round(rng.exponential(AIRDROP_MEAN_CLAIM_HOURS) * HOUR))
      : null,
  );
  return {
    rng: rng.state(),
    issuers: agents.issuers.map((a) => a.state),
    exchanges: agents.exchanges.map((a) => a.state),
    governors: agents.governors.map((a) => a.state),
    keeper: agents.keeper.state,
    beneficiaries: agents.beneficiaries.map((a) => a.state),
    recipients: agents.recipients.map((a) => a.state),
    claimAt,
    claimed: [],
    finished: [],
    stats: { withdrawals: 0, deposits: 0, burns: 0, airdropClaims: 0, vesterClaims: 0, releases: 0 },
  };
}

/** Crossed a multiple of `period` between `from` (excluded) and `to` (included). */
const crossed = (from: number, to: number, period: number) => Math.floor(to / period) > Math.floor(from / period);

interface Vesting {
  readonly token: Address;
  readonly holder: ManifestTokenomicsHolder;
  readonly id: string;
}

export class TokenomicsActors implements ProtocolActors {
  private readonly rng: Rng;
  private readonly exchanges: Agent[];
  private readonly keeper: Agent;
  private readonly holders: Agent[];
  private readonly recipients: Agent[];
  private readonly byAddress = new Map<string, Agent>();
  private readonly tokens: TokenView[];
  private readonly tokenIds: Set<string>;
  private readonly vesting: Vesting[];
  private readonly finished: Set<string>;
  private readonly claimed: Set<number>;
  private readonly tree: AirdropTree | undefined;
  private readonly airdrop: NonNullable<ManifestTokenomics['tokens'][number]['airdrop']> | undefined;

  constructor(
    private readonly host: WorldHost,
    private readonly m: ManifestTokenomics,
    private readonly s: TokenomicsRuntimeState,
  ) {
    const seed = host.state.seed;
    const agent = (st: AgentState, i: number) => new Agent(st, i, agentPrivateKey(seed, st.key));
    this.rng = new Rng(s.rng);
    this.exchanges = s.exchanges.map(agent);
    this.keeper = agent(s.keeper, 0);
    const beneficiaries = s.beneficiaries.map(agent);
    this.recipients = s.recipients.map(agent);
    this.holders = [...beneficiaries, ...this.recipients];
    for (const a of [...this.exchanges, this.keeper, ...this.holders]) this.byAddress.set(a.id, a);
    this.tokens = m.tokens.map((t) => host.token(t.symbol));
    this.tokenIds = new Set(this.tokens.map((t) => t.id));
    this.vesting = m.tokens.flatMap((t) =>
      t.holders
        .filter((h) => h.schedule && h.contract)
        .map((holder) => ({ token: t.address, holder, id: holder.address.toLowerCase() })),
    );
    this.finished = new Set(s.finished);
    this.claimed = new Set(s.claimed);
    this.airdrop = m.tokens.find((t) => t.airdrop)?.airdrop;
    this.tree = this.airdrop
      ? new AirdropTree(
          this.airdrop.claims.map((c) => ({ index: c.index, account: c.account, amount: BigInt(c.amount) })),
        )
      : undefined;
    host.watch([...this.exchanges, this.keeper, ...this.holders], []);
  }

  /** The chain is the truth: nonces and these tokens' balances of the cast (the state file may be older). */
  async open(): Promise<void> {
    const agents = [...this.exchanges, this.keeper, ...this.holders];
    const rpc = this.host.session.rpc;
    const nonces = await rpc.batchResults<Hex>(
      agents.map((a) => ({ method: 'eth_getTransactionCount', params: [a.address, 'latest'] })),
    );
    agents.forEach((a, i) => {
      a.state.nonce = Number(nonces[i]);
    });
    const calls = agents.flatMap((a) =>
      this.tokens.map((t) => ({
        method: 'eth_call',
        params: [
          {
            to: t.m.address,
            data: encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [a.address] }),
          },
          'latest',
        ],
      })),
    );
    const balances = await rpc.batchResults<Hex>(calls);
    agents.forEach((a, i) => {
      this.tokens.forEach((t, k) => {
        a.balances.set(t.id, BigInt(balances[i * this.tokens.length + k]!));
      });
    });
  }

  step(_reading: unknown, from: number, to: number): void {
    this.vest(from, to);
    this.claimAirdrop(to);
    this.depositAndBurn(from, to);
  }

  private vest(from: number, to: number): void {
    for (const v of this.vesting) {
      if (this.finished.has(v.id)) continue;
      const { holder } = v;
      const schedule = holder.schedule!;
      if (to < schedule.cliff) continue;
      const done = to >= schedule.end;
      const markDone = (ok: boolean) => {
        if (ok && done) this.finished.add(v.id);
      };
      if (holder.contract === 'TreasuryVester') {
        if (!crossed(from, to, KEEPER_PERIOD) && !done) continue;
        this.host.session.send(this.keeper, {
          to: holder.address,
          data: encodeFunctionData({ abi: treasuryVesterAbi, functionName: 'claim' }),
          gas: TOKENOMICS_GAS.claim,
          kind: 'setup',
          onMined: (ok) => {
            if (ok) this.s.stats.vesterClaims += 1;
            markDone(ok);
          },
        });
      } else {
        const beneficiary = holder.beneficiary && this.byAddress.get(holder.beneficiary.toLowerCase());
        if (!beneficiary) continue;
        const wallet = holder.contract === 'VestingWallet';
        if (wallet && !crossed(from, to, RELEASE_PERIOD) && !done) continue;
        if (wallet && to <= schedule.start) continue;
        this.host.session.send(beneficiary, {
          to: holder.address,
          data: wallet
            ? encodeFunctionData({ abi: vestingWalletAbi, functionName: 'release', args: [v.token] })
            : encodeFunctionData({ abi: tokenTimelockAbi, functionName: 'release' }),
          gas: TOKENOMICS_GAS.release,
          kind: 'setup',
          onMined: (ok) => {
            if (ok) this.s.stats.releases += 1;
            markDone(ok);
          },
        });
      }
    }
  }

  private claimAirdrop(to: number): void {
    const airdrop = this.airdrop;
    const tree = this.tree;
    if (!airdrop || !tree) return;
    this.s.claimAt.forEach((at, i) => {
      if (at === null || at > to || this.claimed.has(i)) return;
      const claim = airdrop.claims[i];
      const agent = this.recipients[i];
      if (!claim || !agent) return;
      this.claimed.add(i);
      const entry = { index: claim.index, account: claim.account, amount: BigInt(claim.amount) };
      this.host.session.send(agent, {
        to: airdrop.distributor,
        data: encodeFunctionData({
          abi: merkleDistributorAbi,
          functionName: 'claim',
          args: [BigInt(entry.index), entry.account, entry.amount, tree.proof(entry)],
        }),
        gas: TOKENOMICS_GAS.claim,
        kind: 'setup',
        onMined: (ok) => {
          if (ok) this.s.stats.airdropClaims += 1;
          else this.claimed.delete(i);
        },
      });
    });
  }

  private depositAndBurn(from: number, to: number): void {
    const hoursStep = (to - from) / HOUR;
    const pDeposit = 1 - Math.exp(-DEPOSITS_PER_HOUR * hoursStep);
    const weights = EXCHANGES.map((e) => e.share);
    for (const holder of this.holders) {
      for (const t of this.tokens) {
        const held = holder.available(t.id);
        if (held <= 0n || !this.rng.chance(pDeposit)) continue;
        const amount = (held * BigInt(Math.round(this.rng.uniform(0.2, 0.6) * 1e6))) / 1_000_000n;
        const wallet = this.exchanges[this.rng.weightedIndex(weights)]!;
        this.transfer(holder, t, wallet.address, amount, () => {
          this.s.stats.deposits += 1;
        });
      }
    }
    if (!this.rng.chance(1 - Math.exp(-BURNS_PER_HOUR * hoursStep))) return;
    // A holder burns a little of a token it holds (any of the cast's holdings, equally likely).
    const holdings = this.holders.flatMap((h) =>
      this.tokens.filter((t) => h.available(t.id) > 0n).map((t) => ({ h, t })),
    );
    if (holdings.length === 0) return;
    const { h: holder, t } = holdings[this.rng.int(holdings.length)]!;
    const held = holder.available(t.id);
    const amount = (held * BigInt(Math.round(this.rng.uniform(0.01, 0.05) * 1e6))) / 1_000_000n;
    this.transfer(holder, t, BURN_ADDRESS, amount, () => {
      this.s.stats.burns += 1;
    });
  }

  private transfer(from: Agent, token: TokenView, to: Address, amount: bigint, counted: () => void): void {
    if (amount <= 0n) return;
    from.plan(token.id, -amount);
    this.host.session.send(from, {
      to: token.m.address,
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [to, amount] }),
      gas: TOKENOMICS_GAS.transfer,
      kind: 'fund',
      onMined: (ok) => {
        if (ok) counted();
      },
    });
  }

  /** An exchange withdrawal: the hot wallet holding the most of the token sends it (never a mint). */
  topUp(agent: Agent, token: TokenView, amount: bigint): boolean {
    if (!this.tokenIds.has(token.id)) return false;
    const wallet = this.exchanges.reduce((best, w) => (w.available(token.id) > best.available(token.id) ? w : best));
    if (wallet.available(token.id) < amount) {
      throw new Error(
        `tokenomics: the exchange hot wallets hold too little ${token.m.symbol} for a withdrawal of ${amount} (most: ${wallet.available(token.id)})`,
      );
    }
    this.transfer(wallet, token, agent.address, amount, () => {
      this.s.stats.withdrawals += 1;
    });
    return true;
  }

  save(): void {
    for (const a of [...this.exchanges, this.keeper, ...this.holders]) a.save();
    this.s.rng = this.rng.state();
    this.s.finished = [...this.finished].sort();
    this.s.claimed = [...this.claimed].sort((a, b) => a - b);
  }
}
