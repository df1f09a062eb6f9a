import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver for the running Node.js: better-sqlite3 13 on Node.js 22 and later, 12 (installed under the alias
 * `better-sqlite3-node20`, an optional dependency) on Node.js 20.
 *
 * better-sqlite3 12 wraps its objects in Node's own `node::ObjectWrap`, whose destructor on Node.js 24 and later
 * asserts that a Node environment is current; when the garbage collector finalizes a database or statement outside
 * one (a worker or a process ending, or a collection outside JavaScript), the process aborts ("Assertion failed:
 * (env) != nullptr" in RemoveEnvironmentCleanupHook). better-sqlite3 13 is built on Node-API and ships prebuilt
 * binaries, so it loads on every Node.js from 22 without a compiler, but it crashes on Node.js 20. Both have the same
 * JavaScript interface for what the store uses (docs/architecture.md, "Decisions").
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The package this Node.js loads: what a worker thread that opens the database must `require` too. */
export const SQLITE_DRIVER_PACKAGE = NODE_MAJOR >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

const require = createRequire(import.meta.url);

/** The resolved entry point of the driver, for a worker thread's `require`. */
export const sqliteDriverPath: string = require.resolve(SQLITE_DRIVER_PACKAGE);

/** better-sqlite3's `Database` constructor. */
export const SQLite: typeof BetterSqlite3 = require(SQLITE_DRIVER_PACKAGE) as typeof BetterSqlite3;
