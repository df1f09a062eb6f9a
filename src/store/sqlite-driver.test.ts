import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SQLITE_DRIVER_PACKAGE, SQLite, sqliteDriverPath } from './sqlite-driver.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * Worker threads that open a database, prepare statements and end, then a collection in the main thread: with
 * better-sqlite3 12 on Node.js 24 the statements' finalizers abort the process ("Assertion failed: (env) != nullptr"
 * in RemoveEnvironmentCleanupHook), which is how the suite died there.
 */
const SCENARIO = `
const { Worker } = require('node:worker_threads');
const driver = process.argv[1];
const code = \`
  const { workerData } = require('node:worker_threads');
  const db = new (require(workerData.driver))(':memory:');
  db.exec('create table t (x)');
  for (let i = 0; i < 200; i++) db.prepare('insert into t values (' + i + ')').run();
  db.close();\`;
const db = new (require(driver))(':memory:');
for (let i = 0; i < 1000; i++) db.prepare('select ' + i).get();
let left = 4;
const next = () => {
  if (left-- === 0) {
    globalThis.gc();
    process.stdout.write(String(db.prepare('select count(*) as n from sqlite_schema').get().n));
    return;
  }
  const worker = new Worker(code, { eval: true, workerData: { driver } });
  worker.on('exit', (code) => (code === 0 ? next() : process.exit(10 + code)));
};
next();
`;

describe('SQLite driver', () => {
  it('is the better-sqlite3 whose engines include this Node.js: 13 from Node.js 22, 12 on Node.js 20', () => {
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(sqliteDriverPath), '..', 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    expect(pkg.name).toBe('better-sqlite3');
    expect(Number(pkg.version.split('.')[0])).toBe(NODE_MAJOR >= 22 ? 13 : 12);
    expect(SQLITE_DRIVER_PACKAGE).toBe(NODE_MAJOR >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20');
  });

  it('opens a database and runs statements', () => {
    const db = new SQLite(':memory:');
    try {
      db.exec('create table t (x integer)');
      const insert = db.prepare('insert into t values (?)');
      db.transaction(() => {
        for (let i = 1; i <= 100; i++) insert.run(i);
      })();
      expect(db.prepare('select sum(x) as s from t').get()).toEqual({ s: 5050 });
    } finally {
      db.close();
    }
  });

  it('survives worker threads that used it ending and a collection afterwards', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', SCENARIO, sqliteDriverPath], {
      timeout: 20_000,
    });
    expect(stdout).toBe('0');
  });
});
