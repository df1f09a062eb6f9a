import { ConfigError } from '../config/index.js';
import { JobSideSetupError } from './job-side.js';

/**
 * Whether a failure to come up is the operator's to fix (a bad `RPC_URL_<CHAIN>` or other configuration, a saved
 * sandbox world made with other settings, or either reported by the job side's thread), so the CLI says it in one
 * line without a stack trace and the job thread does not log it as a crash. One predicate for both.
 */
export function isOperatorError(err: unknown): boolean {
  if (err instanceof ConfigError) return true;
  if (err instanceof JobSideSetupError) return err.config;
  // By name: the sandbox is not imported here (the world's module pulls in anvil and the deployment).
  return err instanceof Error && err.name === 'WorldMismatchError';
}
