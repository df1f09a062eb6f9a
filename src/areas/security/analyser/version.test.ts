import { LanguageFacts } from '@nomicfoundation/slang/utils';
import { describe, expect, it } from 'vitest';
import { allowedVersions, chooseVersion, lowestAllowed, parseVersionExpression } from './version.js';

const ALL = LanguageFacts.allVersions();

describe('version pragmas', () => {
  it('allows the versions Slang infers from the same pragma', () => {
    for (const pragma of [
      '^0.8.0',
      '^0.4.24',
      '0.6.12',
      '=0.7.6',
      '>=0.4.22 <0.9.0',
      '>=0.5.0 <0.7.0',
      '~0.5.16',
      '^0.5.0 || ^0.6.0',
      '>0.4.23 <=0.5.3',
      '0.8',
      '^0.8',
      '>=0.6.2',
      '0.4.24 - 0.5.2',
      '<0.5.0',
      '>0.6',
      '0.5.x',
    ]) {
      const slang = LanguageFacts.inferLanguageVersions(`pragma solidity ${pragma};`);
      expect(allowedVersions([pragma], ALL), pragma).toEqual(slang);
    }
  });

  it('reads a partial version after <= as solc does (the whole 0.6 line), where Slang stops at 0.6.0', () => {
    expect(allowedVersions(['<=0.6'], ALL).at(-1)).toBe('0.6.12');
  });

  it('chooses the newest version every pragma allows, or the one the input names', () => {
    expect(chooseVersion(['^0.8.0', '>=0.8.4 <0.8.10'], ALL)).toEqual({ version: '0.8.9', exact: false });
    expect(chooseVersion(['^0.8.0'], ALL, '0.8.10+commit.fc410830')).toEqual({ version: '0.8.10', exact: true });
    // Contradictory pragmas: the first one decides.
    expect(chooseVersion(['^0.4.24', '^0.8.0'], ALL).version).toBe('0.4.26');
    expect(chooseVersion([], ALL).version).toBe(ALL[ALL.length - 1]);
    expect(lowestAllowed(['^0.6.0'], ALL)).toBe('0.6.0');
  });

  it('rejects what is not a version expression', () => {
    expect(parseVersionExpression('abc')).toBeUndefined();
    expect(parseVersionExpression('^0.8.0 foo')).toBeUndefined();
  });
});
