/**
 * Analysis runs once per code: a key from what decides the result (the engine and rule set, the sources by content,
 * remappings, compiler version), and a cache the caller provides (the security area stores it by this key). A
 * contract whose code did not change gets the stored report back without being parsed again; a new engine version
 * or rule set gives new keys, so reports are recomputed once after an analyser change.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { type AnalysisReport, analyse, ENGINE_VERSION, RULESET_HASH } from './analyse.js';
import type { AnalysisInput } from './input.js';

const hash = (text: string) => bytesToHex(sha256(utf8ToBytes(text)));

/** The cache key of an analysis: `<engine version>:<rule-set hash>:<sha256 of the input>`. */
export function analysisKey(input: AnalysisInput): string {
  const files = Object.keys(input.sources).sort();
  const digest = hash(
    JSON.stringify({
      sources: files.map((f) => [f, hash(input.sources[f]!)]),
      remappings: [...(input.remappings ?? [])].sort(),
      compilerVersion: input.compilerVersion ?? null,
      targets: input.targets ? [...input.targets].sort() : null,
    }),
  );
  return `${ENGINE_VERSION}:${RULESET_HASH}:${digest}`;
}

export interface AnalysisCache {
  get(key: string): AnalysisReport | undefined;
  set(key: string, report: AnalysisReport): void;
}

/** The report for an input: from the cache when its key is there, else analysed and stored. */
export function analyseCached(input: AnalysisInput, cache: AnalysisCache): { report: AnalysisReport; cached: boolean } {
  const key = analysisKey(input);
  const found = cache.get(key);
  if (found) return { report: found, cached: true };
  const report = analyse(input);
  cache.set(key, report);
  return { report, cached: false };
}
