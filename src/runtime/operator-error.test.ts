import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.js';
import { WorldMismatchError } from '../sandbox/world/saved.js';
import { JobSideSetupError } from './job-side.js';
import { isOperatorError } from './operator-error.js';

describe('isOperatorError', () => {
  it('is true for a configuration error, a mismatched saved world and a job side that reports either', () => {
    expect(isOperatorError(new ConfigError('RPC_URL_ETHEREUM', 'not a URL'))).toBe(true);
    expect(isOperatorError(new WorldMismatchError('seed 1 ≠ 2'))).toBe(true);
    expect(isOperatorError(new JobSideSetupError('bad key', true))).toBe(true);
  });

  it('is false for anything else: a crash is logged with its stack', () => {
    expect(isOperatorError(new JobSideSetupError('anvil died', false))).toBe(false);
    expect(isOperatorError(new Error('ECONNREFUSED'))).toBe(false);
    expect(isOperatorError('a string')).toBe(false);
    expect(isOperatorError(undefined)).toBe(false);
  });
});
