/**
 * The tokenomics world's plan (pure data): per token its issuer's standard, its fixed supply and how the genesis
 * block distributes it, by category, contract kind and label (the address book's `tokenomics/<protocol>/<category>/
 * <kind>/<label>`). Amounts are whole tokens (18 decimals); times are hours after the world's genesis, scaled so that
 * the default world (8 days at its first start) sees cliffs pass, linear unlocking after them, and steps release.
 *
 * UNI follows Uniswap's published split (community 60 % of which the 15 % retroactive airdrop and the 43 % treasury,
 * team 21.266 %, investors 18.044 %, advisors 0.69 %); LINK and AAVE keep their real maximum supply (1B, 16M) with a
 * real-like share of team, investor and treasury allocations. Every exchange float is held by three labelled hot
 * wallets (EOAs shared by the three tokens); the pools' genesis seeds and the agents' top-ups are withdrawals from
 * them.
 */
import type { TokenomicsCategory, TokenomicsKind } from '../../../registry/address-book.js';

export type { TokenomicsCategory, TokenomicsKind };

/** A vesting schedule in hours after genesis: a cliff then linear (TreasuryVester, VestingWallet) or a step. */
export type SchedulePlan =
  | { readonly type: 'cliff-linear'; readonly begin: number; readonly cliff: number; readonly end: number }
  | { readonly type: 'linear'; readonly start: number; readonly duration: number }
  | { readonly type: 'step'; readonly release: number };

export interface AllocationPlan {
  readonly category: TokenomicsCategory;
  readonly kind: TokenomicsKind;
  readonly label: string;
  /** Whole tokens. */
  readonly amount: number;
  readonly schedule?: SchedulePlan;
  /** A treasury vester's recipient is the timelock (as on mainnet), not an EOA beneficiary. */
  readonly toTimelock?: boolean;
}

export interface TokenomicsTokenPlan {
  readonly symbol: 'UNI' | 'LINK' | 'AAVE';
  /** The registry's protocol whose `token` this is. */
  readonly protocol: 'uniswap' | 'chainlink' | 'aave';
  /** `uni`: Uniswap's `Uni` (governance); `oz-fixed-supply`: OpenZeppelin's ERC20PresetFixedSupply. */
  readonly standard: 'uni' | 'oz-fixed-supply';
  /** Whole tokens, all minted at genesis. */
  readonly supply: number;
  readonly allocations: readonly AllocationPlan[];
}

/**
 * The exchanges whose hot wallets hold the market float (their share of each token's float). Each label names one of
 * the CoinGecko stand-in's venues as the tokenomics area matches a wallet to a venue: the venue's identifier
 * (`sandbox_binance`, standins/coingecko/world.ts `CEX_VENUES`), a dash and the wallet's own slug. `formerly`: the
 * label a world saved before carries in its manifest (`binance-hot-1`, naming no venue); its address book is rebuilt
 * with the current one (`exchangeLabel`), the wallets being the same.
 */
export const EXCHANGES: readonly { readonly label: string; readonly formerly: string; readonly share: number }[] = [
  { label: 'sandbox_binance-hot-1', formerly: 'binance-hot-1', share: 0.5 },
  { label: 'sandbox_coinbase-hot-1', formerly: 'coinbase-hot-1', share: 0.3 },
  { label: 'sandbox_kraken-hot-1', formerly: 'kraken-hot-1', share: 0.2 },
];

/** An exchange wallet's label as the address book names it: a saved world's former label is the current one. */
export function exchangeLabel(label: string): string {
  return EXCHANGES.find((e) => e.formerly === label)?.label ?? label;
}

const exchanges = (total: number): AllocationPlan[] =>
  EXCHANGES.map((e) => ({ category: 'exchange', kind: 'eoa', label: e.label, amount: total * e.share }));

const DAY = 24;

export const TOKENOMICS_PLAN: readonly TokenomicsTokenPlan[] = [
  {
    symbol: 'UNI',
    protocol: 'uniswap',
    standard: 'uni',
    supply: 1_000_000_000,
    allocations: [
      // Team 21.266 %, investors 18.044 %, advisors 0.69 %: TreasuryVesters (a cliff, then linear).
      {
        category: 'team',
        kind: 'treasury_vester',
        label: 'team-1',
        amount: 127_596_000,
        schedule: { type: 'cliff-linear', begin: 0, cliff: 36, end: 30 * DAY },
      },
      {
        category: 'team',
        kind: 'treasury_vester',
        label: 'team-2',
        amount: 85_064_000,
        schedule: { type: 'cliff-linear', begin: 0, cliff: 3 * DAY, end: 45 * DAY },
      },
      {
        category: 'investors',
        kind: 'treasury_vester',
        label: 'investors-1',
        amount: 108_264_000,
        schedule: { type: 'cliff-linear', begin: 0, cliff: 18, end: 20 * DAY },
      },
      {
        category: 'investors',
        kind: 'treasury_vester',
        label: 'investors-2',
        amount: 72_176_000,
        schedule: { type: 'cliff-linear', begin: 0, cliff: 2 * DAY, end: 30 * DAY },
      },
      {
        category: 'advisors',
        kind: 'treasury_vester',
        label: 'advisors-1',
        amount: 6_900_000,
        schedule: { type: 'cliff-linear', begin: 0, cliff: 4 * DAY, end: 40 * DAY },
      },
      // Community 60 %: the governance Timelock (treasury; 40 % of its share at once, the rest through a vester to
      // it, as mainnet's treasury vesters), the retroactive airdrop (15 %) and the exchanges' float.
      { category: 'treasury', kind: 'timelock', label: 'timelock', amount: 172_000_000 },
      {
        category: 'treasury',
        kind: 'treasury_vester',
        label: 'treasury-1',
        amount: 258_000_000,
        schedule: { type: 'cliff-linear', begin: 0, cliff: 0, end: 90 * DAY },
        toTimelock: true,
      },
      { category: 'community', kind: 'merkle_distributor', label: 'airdrop', amount: 150_000_000 },
      ...exchanges(20_000_000),
    ],
  },
  {
    symbol: 'LINK',
    protocol: 'chainlink',
    standard: 'oz-fixed-supply',
    supply: 1_000_000_000,
    allocations: [
      {
        category: 'team',
        kind: 'vesting_wallet',
        label: 'team-1',
        amount: 200_000_000,
        schedule: { type: 'linear', start: DAY, duration: 30 * DAY },
      },
      {
        category: 'team',
        kind: 'token_timelock',
        label: 'team-2',
        amount: 100_000_000,
        schedule: { type: 'step', release: 60 },
      },
      {
        category: 'investors',
        kind: 'vesting_wallet',
        label: 'investors-1',
        amount: 150_000_000,
        schedule: { type: 'linear', start: 0, duration: 10 * DAY },
      },
      {
        category: 'investors',
        kind: 'token_timelock',
        label: 'investors-2',
        amount: 50_000_000,
        schedule: { type: 'step', release: 30 },
      },
      { category: 'treasury', kind: 'timelock_controller', label: 'treasury', amount: 350_000_000 },
      ...exchanges(150_000_000),
    ],
  },
  {
    symbol: 'AAVE',
    protocol: 'aave',
    standard: 'oz-fixed-supply',
    supply: 16_000_000,
    allocations: [
      {
        category: 'team',
        kind: 'vesting_wallet',
        label: 'team-1',
        amount: 1_600_000,
        schedule: { type: 'linear', start: 0, duration: 20 * DAY },
      },
      {
        category: 'team',
        kind: 'token_timelock',
        label: 'team-2',
        amount: 800_000,
        schedule: { type: 'step', release: 40 },
      },
      {
        category: 'investors',
        kind: 'vesting_wallet',
        label: 'investors-1',
        amount: 1_000_000,
        schedule: { type: 'linear', start: 12, duration: 15 * DAY },
      },
      {
        category: 'investors',
        kind: 'token_timelock',
        label: 'investors-2',
        amount: 600_000,
        schedule: { type: 'step', release: 84 },
      },
      { category: 'treasury', kind: 'timelock_controller', label: 'ecosystem-reserve', amount: 3_000_000 },
      ...exchanges(9_000_000),
    ],
  },
];

/** Every allocation sums to the token's supply (checked by the tests and at deployment). */
export function allocatedTotal(plan: TokenomicsTokenPlan): number {
  return plan.allocations.reduce((sum, a) => sum + a.amount, 0);
}

/** Airdrop recipients (agents of the tokenomics cast) and the share of them who ever claim. */
export const AIRDROP_RECIPIENTS = 48;
export const AIRDROP_CLAIMING_SHARE = 0.75;
/** Mean delay of a claim after genesis, in hours (exponential): most claims in the first days, some much later. */
export const AIRDROP_MEAN_CLAIM_HOURS = 40;

/** The conventional burn address (a label category of its own). */
export const BURN_ADDRESS = '0x000000000000000000000000000000000000dEaD' as const;

/** The UNI Timelock's delay (Timelock's minimum, 2 days) and the treasuries' TimelockController minimum delay. */
export const TIMELOCK_DELAY_SECONDS = 2 * 86_400;
/** Uni's `mintingAllowedAfter`: four years after genesis, as mainnet's (no mint within any world's life). */
export const UNI_MINTING_AFTER_SECONDS = 4 * 365 * 86_400;
