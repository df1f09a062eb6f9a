import { type Config, ConfigError, loadConfig } from '../config/index.js';

/** The configuration for a CLI command: a bad value ends the process with exit code 2 and a message naming the key. */
export function cliConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`protoscore: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
