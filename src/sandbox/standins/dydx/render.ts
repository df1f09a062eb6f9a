/**
 * dYdX v4's indexer objects from the perpetuals simulation, in the indexer's wire format (comlink's
 * `request-transformer.ts` at dydxprotocol/v4-chain 84d4664: strings for decimals, ISO times, heights as strings).
 */
import { HOUR } from '../../../core/time.js';
import { decimalString } from '../perps/decimal.js';
import type { PerpMarketSpec } from '../perps/markets.js';
import type { PerpVenueSimulation, SimFill, SimHour } from '../perps/sim.js';

/** Noble's USDC on dYdX Chain (IBC denom): the collateral of every subaccount. */
export const DYDX_USDC_DENOM = 'ibc/8E27BA2D5493AF5636760E354E46004562C46AB7EC0CC4C1CA14E9E20E2545B5';
/** The `subaccounts` module account (bech32 `dydx` of sha256("subaccounts")[:20]): all collateral of all traders. */
export const DYDX_SUBACCOUNTS_MODULE = 'dydx1v88c3xv9xyv3eetdx0tvcmq7ung3dywp5upwc6';
/** The `insurance_fund` module account (bech32 `dydx` of sha256("insurance_fund")[:20]). */
export const DYDX_INSURANCE_FUND = 'dydx1c7ptc87hkd54e3r7zjy92q29xkq7t79w64slrq';

export const CANDLE_RESOLUTIONS = {
  '1MIN': 60,
  '5MINS': 300,
  '15MINS': 900,
  '30MINS': 1800,
  '1HOUR': 3600,
  '4HOURS': 14_400,
  '1DAY': 86_400,
} as const;
export type CandleResolution = keyof typeof CANDLE_RESOLUTIONS;

const iso = (ms: number) => new Date(ms).toISOString();

/** BTC-USD and ETH-USD are in dYdX's large-cap liquidity tier (no open-interest cap), the rest in a capped one. */
const largeCap = (m: PerpMarketSpec) => m.index <= 1;

/** `atomicResolution`: a step is `stepBaseQuantums` (10^6) quantums of 10^atomicResolution. */
const atomicResolution = (m: PerpMarketSpec) => -(m.stepDecimals + 6);

export function renderMarket(sim: PerpVenueSimulation, m: PerpMarketSpec, last: SimHour, dayAgo: SimHour | undefined) {
  const endMs = (last.hour + HOUR) * 1000;
  const day = sim.aggregate(m.id, endMs - 24 * HOUR * 1000, endMs, endMs);
  const oi = decimalString(last.openInterestEndSteps, m.stepDecimals);
  return {
    clobPairId: String(m.index),
    ticker: m.id,
    status: 'ACTIVE',
    oraclePrice: decimalString(last.oracleCloseTicks, m.tickDecimals),
    priceChange24H: decimalString(
      last.oracleCloseTicks - (dayAgo?.oracleCloseTicks ?? last.oracleOpenTicks),
      m.tickDecimals,
    ),
    volume24H: decimalString(day.notionalUnits, m.stepDecimals + m.tickDecimals),
    trades24H: day.trades,
    nextFundingRate: last.funding.rate,
    initialMarginFraction: largeCap(m) ? '0.02' : '0.1',
    maintenanceMarginFraction: largeCap(m) ? '0.012' : '0.05',
    openInterest: oi,
    atomicResolution: atomicResolution(m),
    quantumConversionExponent: -9,
    tickSize: decimalString(1, m.tickDecimals),
    stepSize: decimalString(1, m.stepDecimals),
    stepBaseQuantums: 1_000_000,
    // tickSize = subticksPerTick × 10^(quantumConversionExponent − atomicResolution − 6)
    subticksPerTick: Number(decimalString(1, -(9 - m.tickDecimals - m.stepDecimals))),
    marketType: 'CROSS',
    openInterestLowerCap: largeCap(m) ? '0' : '20000000',
    openInterestUpperCap: largeCap(m) ? '0' : '50000000',
    baseOpenInterest: oi,
    defaultFundingRate1H: '0',
  };
}

export function renderTrade(f: SimFill) {
  return {
    id: f.id,
    side: f.side,
    size: f.size,
    price: f.price,
    type: f.type,
    createdAt: iso(f.timeMs),
    createdAtHeight: String(f.height),
  };
}

export function renderFunding(h: SimHour) {
  return {
    ticker: h.market,
    rate: h.funding.rate,
    price: h.funding.price,
    effectiveAt: iso(h.funding.effectiveAtMs),
    effectiveAtHeight: String(h.funding.height),
  };
}

/**
 * The candle starting at `startMs`: its fills so far (`nowMs`), or, without any, the oracle price at its start for
 * open, high, low and close (the indexer opens a candle for every period at the previous close).
 */
export function renderCandle(
  sim: PerpVenueSimulation,
  m: PerpMarketSpec,
  resolution: CandleResolution,
  startMs: number,
  nowMs: number,
) {
  const endMs = startMs + CANDLE_RESOLUTIONS[resolution] * 1000;
  const a = sim.aggregate(m.id, startMs, endMs, nowMs);
  const at = sim.oracleTicksAt(m.id, startMs) ?? 0;
  const price = (ticks: number | undefined) => decimalString(ticks ?? at, m.tickDecimals);
  const closeOracle = sim.oracleTicksAt(m.id, Math.min(endMs, nowMs) - 1) ?? at;
  return {
    startedAt: iso(startMs),
    ticker: m.id,
    resolution,
    low: price(a.lowTicks),
    high: price(a.highTicks),
    open: price(a.openTicks),
    close: price(a.closeTicks),
    baseTokenVolume: decimalString(a.baseSteps, m.stepDecimals),
    usdVolume: decimalString(a.notionalUnits, m.stepDecimals + m.tickDecimals),
    trades: a.trades,
    startingOpenInterest: decimalString(sim.openInterestAt(m.id, startMs) ?? 0, m.stepDecimals),
    orderbookMidPriceOpen: price(at),
    orderbookMidPriceClose: price(closeOracle),
  };
}
