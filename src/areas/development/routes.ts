import { Type } from '@sinclair/typebox';
import { seeListing } from '../../paths/entity.js';
import type { PathDef, PathParams } from '../../paths/types.js';
import type { Registry } from '../../registry/index.js';
import { ActivityRecord, DevelopmentRankingEntry, DevelopmentScoreHistory, Stats } from './schema.js';

const LISTING = '/scores/development';

const subject = (kind: 'protocol' | 'chain', key: 'protocol' | 'chain') => (p: PathParams, r: Registry) =>
  r.developmentSubjects().some((s) => s.kind === kind && s.id === p[key])
    ? undefined
    : seeListing(`${kind} with tracked repositories`, p[key]!, LISTING);

const protocol = subject('protocol', 'protocol');

export const developmentPaths: PathDef[] = [
  {
    id: 'development.activity',
    area: 'development',
    template: '/data/development/<protocol>',
    shape: 'daily-7',
    payload: Type.Array(ActivityRecord),
    summary: "Repository activity of a protocol's repositories, one record per repository and day, past 7 days",
    entity: protocol,
  },
  {
    id: 'development.stats',
    area: 'development',
    template: '/data/development/<protocol>/stats',
    shape: 'snapshot',
    payload: Stats,
    summary: "Statistics aggregated over a protocol's tracked repositories",
    entity: protocol,
  },
  {
    id: 'development.protocol-score',
    area: 'development',
    template: '/scores/development/protocols/<protocol>',
    shape: 'score-history',
    payload: DevelopmentScoreHistory,
    summary: "Development score of a protocol's repositories",
    methodology: 'development.activity',
    entity: protocol,
  },
  {
    id: 'development.chain-score',
    area: 'development',
    template: '/scores/development/blockchain/<chain>',
    shape: 'score-history',
    payload: DevelopmentScoreHistory,
    summary: "Development score of a chain's repositories",
    methodology: 'development.activity',
    entity: subject('chain', 'chain'),
  },
  {
    id: 'development.all',
    area: 'development',
    template: '/scores/development',
    shape: 'all-scores',
    payload: Type.Array(DevelopmentRankingEntry),
    summary: 'Current development scores of all protocols and chains',
    methodology: 'development.activity',
    entity: () => undefined,
  },
];
