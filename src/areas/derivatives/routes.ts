import { oneOf, seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { DerivativesPairHistory, DerivativesPairsListing, DerivativesProtocolHistory } from './schema.js';

const protocol = (p: PathParams, r: Registry) =>
  oneOf(
    'derivatives protocol',
    p.protocol!,
    r.derivativesProtocols().map((x) => x.id),
  );

const pair = (p: PathParams, r: Registry) => {
  const unknownProtocol = protocol(p, r);
  if (unknownProtocol) return unknownProtocol;
  return r.protocol(p.protocol!)!.derivatives!.pairs.includes(p.pair!)
    ? undefined
    : seeListing(`pair on ${p.protocol}`, p.pair!, `/data/derivatives/${p.protocol}/pairs`);
};

/**
 * The derivatives paths. Their documents carry `meta.methodology` = `DERIVATIVES_METHODOLOGY` (schema.ts; the
 * methodology index lists `/data/derivatives/*` under it); the rows name no model, as no path here serves a score.
 */
export const derivativesPaths: PathDef[] = [
  {
    id: 'derivatives.pairs',
    area: 'derivatives',
    template: '/data/derivatives/<protocol>/pairs',
    payload: DerivativesPairsListing,
    shape: 'listing',
    summary: 'Trading pairs of a derivatives protocol',
    entity: protocol,
  },
  {
    id: 'derivatives.protocol',
    area: 'derivatives',
    template: '/data/derivatives/<protocol>',
    payload: DerivativesProtocolHistory,
    shape: 'daily-7',
    summary: 'Analytics of a derivatives protocol, past 7 days',
    entity: protocol,
  },
  {
    id: 'derivatives.pair',
    area: 'derivatives',
    template: '/data/derivatives/<protocol>/<pair>',
    payload: DerivativesPairHistory,
    shape: 'daily-7',
    summary: 'Analytics of one trading pair, past 7 days',
    entity: pair,
  },
];
