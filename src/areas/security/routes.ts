import { oneOf } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { ScoreHistory, ScoreRecord } from '../kit/schema.js';

const protocol = (p: PathParams, r: Registry) =>
  oneOf(
    'security data for protocol',
    p.protocol!,
    r.securityProtocols().map((x) => x.id),
  );

const onChain = (p: PathParams, r: Registry) => {
  const unknownProtocol = protocol(p, r);
  if (unknownProtocol) return unknownProtocol;
  return oneOf(`chain for ${p.protocol}`, p.chain!, r.protocol(p.protocol!)!.security!.chains);
};

export const securityPaths: PathDef[] = [
  {
    id: 'security.vulnerabilities',
    area: 'security',
    template: '/data/security/<protocol>/vulnerabilities',
    shape: 'daily-7',
    summary: 'Vulnerability counts by severity of the analysed contracts of a protocol, past 7 days',
    entity: protocol,
  },
  {
    id: 'security.static',
    area: 'security',
    template: '/data/security/<protocol>/static',
    shape: 'snapshot',
    summary: 'Static security data of a protocol',
    entity: protocol,
  },
  {
    id: 'security.score',
    area: 'security',
    template: '/score/security/<chain>/<protocol>',
    shape: 'score-history',
    payload: ScoreHistory(ScoreRecord),
    summary: 'Security score of a protocol on a chain',
    methodology: 'security.score',
    entity: onChain,
  },
];
