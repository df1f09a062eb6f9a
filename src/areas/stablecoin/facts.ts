/**
 * The facts the stablecoin area ingests from chains and its computation reads: plain data, no I/O. Every amount is
 * an exact bigint in the contract's own unit (Maker: wad 1e18, ray 1e27, rad 1e45; Liquity: 1e18), converted to a
 * float only in the computed payloads (convention 7 of DESIGN.md).
 */

export type StableDesign = 'maker-mcd' | 'liquity-v1';

/** The Vat functions whose LogNote the area decodes. */
export type VatNoteKind =
  | 'init'
  | 'fileIlk'
  | 'file'
  | 'slip'
  | 'flux'
  | 'move'
  | 'frob'
  | 'fork'
  | 'grab'
  | 'heal'
  | 'suck'
  | 'fold';

/** A decoded Vat LogNote: exact integers, lowercase addresses, ilk names as text (`ETH-A`). */
export type VatNote =
  | { kind: 'init'; ilk: string }
  | { kind: 'file'; what: string; data: bigint }
  | { kind: 'fileIlk'; ilk: string; what: string; data: bigint }
  | { kind: 'slip'; ilk: string; usr: string; wad: bigint }
  | { kind: 'flux'; ilk: string; src: string; dst: string; wad: bigint }
  | { kind: 'move'; src: string; dst: string; rad: bigint }
  | { kind: 'frob' | 'grab'; ilk: string; u: string; v: string; w: string; dink: bigint; dart: bigint }
  | { kind: 'fork'; ilk: string; src: string; dst: string; dink: bigint; dart: bigint }
  | { kind: 'heal'; rad: bigint }
  | { kind: 'suck'; u: string; v: string; rad: bigint }
  | { kind: 'fold'; ilk: string; u: string; rate: bigint };

/** A decoded ordinary event of the Maker or Liquity contracts, or of the stablecoin token. */
export type StableEvent =
  | { kind: 'poke'; ilk: string; val: bigint; spot: bigint }
  | { kind: 'bark'; ilk: string; urn: string; ink: bigint; art: bigint; due: bigint; clip: string; id: bigint }
  | { kind: 'kick' | 'redo'; id: bigint; top: bigint; tab: bigint; lot: bigint; usr: string; kpr: string }
  | { kind: 'take'; id: bigint; max: bigint; price: bigint; owe: bigint; tab: bigint; lot: bigint; usr: string }
  | { kind: 'transfer'; from: string; to: string; value: bigint }
  | { kind: 'trove_updated'; borrower: string; debt: bigint; coll: bigint; stake: bigint; operation: number }
  | { kind: 'trove_liquidated'; borrower: string; debt: bigint; coll: bigint; operation: number }
  | { kind: 'liquidation'; debt: bigint; coll: bigint; collGasCompensation: bigint; lusdGasCompensation: bigint }
  | { kind: 'redemption'; attempted: bigint; actual: bigint; ethSent: bigint; ethFee: bigint }
  | { kind: 'sp_balance'; balance: bigint }
  | { kind: 'last_good_price'; price: bigint };

/** One stored log of a protocol's contracts, decoded. */
export interface StableEventFact {
  readonly chain: string;
  readonly protocol: string;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly txHash: string;
  /** The emitting contract, lowercase. */
  readonly address: string;
  /** Unix seconds of the block. */
  readonly timestamp: number;
  /** `vat_note` (the Vat's anonymous LogNote) or `event` (every other log). */
  readonly event: ({ source: 'vat_note' } & VatNote) | ({ source: 'event' } & StableEvent);
}

/** Collateral kinds: a collateral ratio is meaningful over `crypto` only (the others are priced at par by design). */
export type CollateralKind = 'crypto' | 'psm' | 'rwa' | 'credit-line';

/** One Maker collateral type at a block: the IlkRegistry's description and the Vat, Spot, Jug and Dog parameters. */
export interface MakerIlkState {
  /** The ilk's name as text (`ETH-A`). */
  readonly ilk: string;
  readonly name: string;
  readonly symbol: string;
  /** IlkRegistry class: 1 Clipper, 2 Flipper, 3 and above other adapters (RWA, D3M, PSM lite…). */
  readonly class: number;
  readonly dec: number;
  /** The collateral token, the join adapter, the price feed (`pip`), the liquidation contract (Clipper). */
  readonly gem: string;
  readonly join: string;
  readonly pip: string;
  readonly clip: string;
  /** Vat.ilks: normalised debt (wad), accumulated rate (ray), price / mat (ray), ceiling and floor (rad). */
  readonly Art: bigint;
  readonly rate: bigint;
  readonly spot: bigint;
  readonly line: bigint;
  readonly dust: bigint;
  /** Spot.ilks mat: the liquidation ratio (ray). */
  readonly mat: bigint;
  /** Jug.ilks duty: per-second stability fee factor (ray), before `base`. */
  readonly duty: bigint;
  /** Dog.ilks: penalty (wad, 1.13e18 = 13 %), the ilk's auction limit and what is in auctions (rad). */
  readonly chop: bigint;
  readonly hole: bigint;
  readonly dirt: bigint;
  /** The join adapter's balance of the collateral token (raw, `dec` decimals): what the Vat holds of it; null when unread. */
  readonly joinBalance: bigint | null;
  /**
   * The Clipper the Dog auctions the type through (its `clip`), with its price curve; null when the Dog names none
   * (a type it does not liquidate: PSM, RWA, or a Flipper type under the old Cat). Absent in snapshots taken before
   * stablecoin.liquidity@1.5.0 (the absorption is then unknown, `no_data`).
   */
  readonly clipper?: MakerClipperState | null;
}

/** A Clipper's auction parameters and its price curve (the Abacus `calc`), read at the snapshot block. */
export interface MakerClipperState {
  /** The Abacus (LinearDecrease, StairstepExponentialDecrease, ExponentialDecrease…), lowercase. */
  readonly calc: string;
  /** Start price over the oracle price at the kick (ray: 1.2e27 = 120 %). */
  readonly buf: bigint;
  /** Seconds after which an auction must be reset (`redo`). */
  readonly tail: bigint;
  /** Fall of the price, as a fraction of the start price (ray), below which an auction must be reset. */
  readonly cusp: bigint;
  /** `calc.price(RAY, tail)`: the curve at the tail as a fraction of the start price (ray), by the Abacus itself. */
  readonly curveAtTail: bigint;
}

/** A vault: its collateral type (the ilk's name) and its address in the Vat. */
export interface UrnKey {
  readonly ilk: string;
  readonly urn: string;
}

/** One vault: the Vat's `urns(ilk, urn)` at the snapshot block. */
export interface UrnState extends UrnKey {
  /** Locked collateral (wad) and normalised debt (wad; debt in DAI = art × rate). */
  readonly ink: bigint;
  readonly art: bigint;
}

/**
 * A peg stability module, found by its interface among the Chainlog's entries (`psms.ts`). The fields after `tout`
 * are absent in snapshots taken before stablecoin.liquidity@1.8.0 (found then by the `MCD_PSM_` prefix and valued by
 * the ilk's join balance).
 */
export interface MakerPsm {
  /** The Chainlog key (`MCD_PSM_USDC_A`, `MCD_LITE_PSM_USDC_A`). */
  readonly key: string;
  readonly address: string;
  readonly ilk: string;
  /** Fees in (wad): sell gem for DAI (tin), buy gem with DAI (tout); 2²⁵⁶ − 1 is the LitePSM's HALTED. */
  readonly tin: bigint | null;
  readonly tout: bigint | null;
  /** `classic` (DssPsm, its gems in its GemJoin) or `lite` (DssLitePsm, its gems in its pocket). */
  readonly kind?: 'classic' | 'lite';
  /** The gem (lowercase) and its decimals. */
  readonly gem?: string;
  readonly dec?: number;
  /** Where the gems are: the GemJoin (classic) or `pocket()` (lite), lowercase. */
  readonly holder?: string;
  /** `gem.balanceOf(holder)` (raw, `dec` decimals): what exits through the PSM can take; null when unread. */
  readonly held?: bigint | null;
  /** The LitePSM's `buf` (wad): the DAI it pre-mints into itself beyond its gems (null for a classic PSM). */
  readonly buf?: bigint | null;
  /** Other Chainlog keys answering as this PSM over the same gems (a wrapper): counted once, here. */
  readonly aliases?: readonly string[];
}

export interface MakerSnapshot {
  readonly design: 'maker-mcd';
  readonly chain: string;
  readonly protocol: string;
  readonly blockNumber: number;
  readonly timestamp: number;
  /** Lowercase addresses read (Chainlog keys: MCD_VAT, MCD_DAI, MCD_SPOT…). */
  readonly addresses: Readonly<Record<string, string>>;
  readonly token: string;
  readonly vat: string;
  /** DAI.totalSupply (wad) and the DAI tokens that contracts named by the Chainlog hold (wad). */
  readonly totalSupply: bigint;
  readonly protocolHeld: bigint;
  /** Vat.debt (rad), Vat.Line (rad), Jug.base (ray), Spot.par (ray: the DAI target price in USD). */
  readonly debt: bigint;
  /**
   * Vat.vice (rad): debt no collateral backs (the system's bad debt, `suck`ed by the Vow and its modules); Vat.debt =
   * Σ Art × rate + vice. The Vow's internal DAI and sin (Vat.dai(MCD_VOW), Vat.sin(MCD_VOW), rad): the surplus buffer
   * is their difference. Absent in snapshots taken before stablecoin.liquidity@1.3.0 (vice is then Vat.debt less the
   * backed debt, by the Vat's identity; the buffer unknown); the Vow's null where the Chainlog names no MCD_VOW.
   */
  readonly vice?: bigint;
  readonly vowDai?: bigint | null;
  readonly vowSin?: bigint | null;
  readonly par: bigint;
  readonly Line: bigint;
  readonly base: bigint;
  /**
   * Dog.Hole and Dog.Dirt (rad): the most DAI (debt and penalty) all auctions may be raising at once, and what they
   * are raising now. Absent in snapshots taken before stablecoin.liquidity@1.5.0.
   */
  readonly Hole?: bigint;
  readonly Dirt?: bigint;
  readonly ilks: readonly MakerIlkState[];
  readonly psms: readonly MakerPsm[];
  /** Every vault the Vat's notes named that is not empty at the block (ink or art not 0), as the Vat holds it. */
  readonly urns: readonly UrnState[];
  /**
   * The vaults the notes named that are empty at the block (ink = art = 0): with `urns`, the whole kept set, which
   * the next snapshot carries forward (ingest-snapshot.ts `readSnapshot`). Absent in snapshots taken before the
   * vaults were read incrementally: a snapshot with such a base reads every vault its notes named, once.
   */
  readonly emptyUrns?: readonly UrnKey[];
  /** How the vaults were read (absent before the vaults were read incrementally: every one, each snapshot). */
  readonly urnRead?: MakerUrnRead;
}

/**
 * How a snapshot read its vaults: only those the Vat's notes between it and its base snapshot touched (`frob`,
 * `grab`, `fork`: the only Vat functions that write `urns`), the others carried from the base; or all of them (no
 * base, or the daily reconciliation).
 */
export interface MakerUrnRead {
  /** Every vault of the set read (`Vat.urns`), or only the touched ones. */
  readonly full: boolean;
  /** The block of the snapshot the values not read were carried from (null: none). */
  readonly base: number | null;
  /** Unix seconds of the full read the carried values descend from (this snapshot's own time when full). */
  readonly reconciledAt: number;
  /** `Vat.urns` calls made. */
  readonly read: number;
  /** On a full read over a base: vaults no note touched whose (ink, art) differ from the base's (should be 0). */
  readonly drift: number;
}

export interface TroveState {
  readonly owner: string;
  /** getEntireDebtAndColl: debt and collateral with pending redistribution rewards (1e18). */
  readonly debt: bigint;
  readonly coll: bigint;
}

export interface LiquitySnapshot {
  readonly design: 'liquity-v1';
  readonly chain: string;
  readonly protocol: string;
  readonly blockNumber: number;
  readonly timestamp: number;
  readonly addresses: Readonly<Record<string, string>>;
  readonly token: string;
  readonly troveManager: string;
  readonly totalSupply: bigint;
  /** LUSD held by the GasPool: the gas compensation the protocol mints to itself for each trove. */
  readonly protocolHeld: bigint;
  readonly systemColl: bigint;
  readonly systemDebt: bigint;
  /** PriceFeed.lastGoodPrice (USD per ETH, 1e18): the price the system values troves at. */
  readonly price: bigint;
  readonly tcr: bigint;
  readonly recoveryMode: boolean;
  readonly spDeposits: bigint;
  readonly borrowingRate: bigint;
  readonly redemptionRate: bigint;
  /**
   * The fee formula of a redemption at this block (TroveManager, 1e18): the rate now with the base rate decayed
   * (`getRedemptionRateWithDecay`, floor + decayed base rate), `BETA` (redeeming a fraction f of the system debt adds
   * f / BETA to the base rate before the fee is charged) and the floor. Absent in snapshots taken before
   * stablecoin.liquidity@1.2.0 (the backstop is then unknown, `no_data`).
   */
  readonly redemptionRateWithDecay?: bigint;
  readonly redemptionBeta?: bigint;
  readonly redemptionFeeFloor?: bigint;
  readonly mcr: bigint;
  readonly ccr: bigint;
  /** The native collateral's wrapped token (WETH), whose market price the price policy gives. */
  readonly collateralToken: string;
  readonly troves: readonly TroveState[];
}

export type StableSnapshot = MakerSnapshot | LiquitySnapshot;
