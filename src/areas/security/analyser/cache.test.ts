import { describe, expect, it } from 'vitest';
import { ENGINE_VERSION, RULESET_HASH } from './analyse.js';
import { type AnalysisCache, analyseCached, analysisKey } from './cache.js';

const SRC = 'pragma solidity ^0.8.0; contract A { function f() external { selfdestruct(payable(msg.sender)); } }';

describe('analysis cache', () => {
  it('keys an analysis by engine, rule set and content, not by the order of the sources', () => {
    const a = analysisKey({ sources: { 'a.sol': SRC, 'b.sol': 'contract B {}' } });
    expect(a.startsWith(`${ENGINE_VERSION}:${RULESET_HASH}:`)).toBe(true);
    expect(analysisKey({ sources: { 'b.sol': 'contract B {}', 'a.sol': SRC } })).toBe(a);
    expect(analysisKey({ sources: { 'a.sol': `${SRC} `, 'b.sol': 'contract B {}' } })).not.toBe(a);
    expect(analysisKey({ sources: { 'a.sol': SRC, 'b.sol': 'contract B {}' }, compilerVersion: '0.8.1' })).not.toBe(a);
  });

  it('analyses code once: an unchanged input is answered from the cache', () => {
    const store = new Map<string, ReturnType<AnalysisCache['get']>>();
    let sets = 0;
    const cache: AnalysisCache = {
      get: (k) => store.get(k),
      set: (k, r) => {
        sets++;
        store.set(k, r);
      },
    };
    const first = analyseCached({ sources: { 'a.sol': SRC } }, cache);
    const second = analyseCached({ sources: { 'a.sol': SRC } }, cache);
    expect([first.cached, second.cached, sets]).toEqual([false, true, 1]);
    expect(second.report).toBe(first.report);
    expect(first.report.findings.map((f) => f.detector)).toEqual(['suicidal']);
  });
});
