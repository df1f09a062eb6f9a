import { DocumentSet, type NamedDocument } from '../kit/index.js';
import {
  type ListedPair,
  type PairHistoryInput,
  type ProtocolHistoryInput,
  pairRecords,
  pairsListing,
  protocolRecords,
  type VenueInput,
} from './records.js';
import { derivativesPaths } from './routes.js';
import { DERIVATIVES_METHODOLOGY } from './schema.js';

/** What a venue's part hands the area top to publish: its venue-neutral inputs (records.ts). */
export interface VenuePublication {
  readonly venue: VenueInput;
  readonly listed: readonly ListedPair[];
  readonly protocol: ProtocolHistoryInput;
  /** One history per registry pair; a pair the venue does not list has `not_listed` days. */
  readonly pairs: readonly PairHistoryInput[];
}

/**
 * A venue's three kinds of document, as every part publishes them: the `/pairs` listing, the protocol's 7 records
 * and each registry pair's, under `derivatives.perpetuals`' methodology. `source` is the documents' `meta.source`
 * where it is not the part's sources' label (GMX: the venue's own chain); `freshFor` their freshness where the part
 * reads on a slower schedule than the default's (dYdX's hourly reads).
 */
export function venueDocuments(
  p: VenuePublication,
  registryPairs: readonly string[],
  asOf: number,
  options: { readonly source?: string; readonly freshFor?: number } = {},
): NamedDocument[] {
  const set = new DocumentSet(derivativesPaths, { asOf, ...options });
  const m = { methodology: DERIVATIVES_METHODOLOGY };
  const protocol = p.venue.protocol;
  set.add('derivatives.pairs', { protocol }, pairsListing(p.venue, registryPairs, p.listed, asOf), m);
  set.add('derivatives.protocol', { protocol }, protocolRecords(p.protocol), m);
  for (const pair of p.pairs) set.add('derivatives.pair', { protocol, pair: pair.pair }, pairRecords(pair), m);
  return set.documents;
}
