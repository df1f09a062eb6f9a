/**
 * The derivatives area's public face: the only file another area imports. Its payload types and the model id its
 * documents carry; the conventions (open interest by venue kind, funding to a signed 1-hour rate) for any area that
 * values perpetual positions the same way.
 */
export type {
  FundingInterval,
  FundingPoint,
  OiConvention,
  OpenInterest,
  OpenInterestSides,
  SkewMethod,
  VenueKind,
} from './conventions.js';
export { annualised, fundingRate1h, markToMarketUsd, openInterest } from './conventions.js';
export type {
  DerivativesPairRecordT,
  DerivativesPairsListingT,
  DerivativesProtocolRecordT,
  MarketRefT,
} from './schema.js';
export { DERIVATIVES_METHODOLOGY } from './schema.js';
