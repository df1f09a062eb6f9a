import type { DevelopmentSubject } from '../../registry/index.js';
import type { GithubEndpoint } from '../../sources/github/endpoint.js';
import type { AreaEnv } from '../kit/module.js';

/**
 * What the development area reads: the registry's protocols and chains with tracked repositories (their GitHub
 * organisations and named repositories), from the GitHub API this process has, GitHub's own or the sandbox's
 * stand-in alike. The repositories themselves are discovered from the organisations at each ingest pass.
 */
export interface DevelopmentTargets {
  readonly github: GithubEndpoint;
  readonly subjects: readonly DevelopmentSubject[];
}

/** `kind:id` of a subject (`protocol:aave`, `chain:ethereum`). */
export const subjectKey = (s: Pick<DevelopmentSubject, 'kind' | 'id'>) => `${s.kind}:${s.id}`;

/** The subjects to read (all, or those the endpoint names), or undefined when this process has no GitHub API. */
export function developmentTargets(env: Pick<AreaEnv, 'registry' | 'sources'>): DevelopmentTargets | undefined {
  const github = env.sources.get('github');
  if (!github) return undefined;
  const all = env.registry.developmentSubjects();
  const only = github.subjects;
  return { github, subjects: only ? all.filter((s) => only.includes(subjectKey(s))) : all };
}
