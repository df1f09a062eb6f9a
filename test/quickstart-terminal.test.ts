/**
 * `npm start` as a new user meets it (issue 33): the service started inside a pseudo-terminal of 80 columns
 * (`script` from util-linux), twice on one data directory, and once with its output piped. What the terminal shows
 * is read through a terminal emulator (test/support/terminal-screen.ts), so a line cut by the progress bar's
 * redraws or by a disabled line wrap reads cut here too. Each time a complete curl line must be on the screen, and
 * running it must answer 200; the token must be the same on every start.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { quickstartTokenFile } from '../src/cli/quickstart.js';
import { useTempDirs } from './support/temp-dirs.js';
import { terminalLines } from './support/terminal-screen.js';

const COLS = 80;
const ROOT = path.resolve(import.meta.dirname, '..');
/** The curl line of /authorization exactly as `start` prints it, whole. */
const CURL =
  /^ {2}curl -H 'Authorization: Bearer (ps_[0-9a-f]{12}_[A-Za-z0-9_-]{43})' (http:\/\/127\.0\.0\.1:\d+)\/authorization$/;

const children = new Set<ChildProcess>();
const stopAll = async () => {
  for (const child of children) await stop(child);
};
afterEach(stopAll);
const tempDir = useTempDirs(stopAll);

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
}

function launch(env: Record<string, string>, terminal: boolean): Started {
  const start = `exec ${JSON.stringify(process.execPath)} --import tsx src/cli/run.ts start`;
  const [command, args] = terminal
    ? ['script', ['-q', '-f', '-e', '-c', `stty cols ${COLS} rows 24; ${start}`, '/dev/null']]
    : ['sh', ['-c', start]];
  // The quickstart is the embedded default: CI's DATABASE_URL and REDIS_URL (a shared database other suites use)
  // would make this a different start, on a database that may already hold a world.
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
  const child = spawn(command as string, args as string[], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so that stopping it reaches the service behind `script`.
    detached: true,
  });
  children.add(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr!.resume();
  return { child, output: () => out };
}

/** SIGINT to the process group (what Ctrl-C at the terminal sends), then waits for the exit (the world is saved). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    children.delete(child);
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid!, 'SIGINT');
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
  await exited;
  clearTimeout(timer);
  children.delete(child);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The screen's logical lines (what a person sees, wrapped lines joined). */
async function screen(started: Started): Promise<string[]> {
  return terminalLines(started.output(), COLS);
}

/** Runs the curl line's request (what copying it does) and returns the status. */
async function runCurl(token: string, base: string): Promise<number> {
  const res = await fetch(`${base}/authorization`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('start prints a working curl line on every start, at 80 columns and piped', () => {
  it('first and second start in an 80-column terminal, then piped: a complete curl line each time, and 200', async () => {
    const dataDir = tempDir('quickstart-');
    const env = {
      DATA_DIR: dataDir,
      PORT: '0',
      SANDBOX_DAYS: '1',
      SANDBOX_SCALE: '0.1',
      TERM: 'xterm-256color',
      LOG_LEVEL: 'info',
    };

    // First start: the curl lines come while the world simulates its history under the progress bar.
    const first = launch(env, true);
    const [token, base] = await until(
      'the first curl line',
      async () => {
        const line = (await screen(first)).map((l) => CURL.exec(l)).find(Boolean);
        return line ? [line[1]!, line[2]!] : undefined;
      },
      180_000,
    );
    expect(await runCurl(token, base)).toBe(200);
    // The bar is drawn, and the line is still whole once the first start is complete and the bar is gone.
    await until(
      'the end of the first start',
      async () => ((await screen(first)).some((l) => l.includes('first start complete')) ? true : undefined),
      600_000,
    );
    const firstScreen = await screen(first);
    expect(first.output()).toContain('simulating history [');
    expect(firstScreen.filter((l) => CURL.test(l))).toHaveLength(1);
    expect(firstScreen.some((l) => l.startsWith('A new token (named "quickstart"'))).toBe(true);
    // Kept for the next start, readable by the service's user only.
    expect(statSync(quickstartTokenFile(dataDir)).mode & 0o777).toBe(0o600);
    await stop(first.child);

    // Second start on the saved world: the same token, printed again, whole, and still valid.
    const second = launch(env, true);
    const [again, base2] = await until(
      'the second curl line',
      async () => {
        const line = (await screen(second)).map((l) => CURL.exec(l)).find(Boolean);
        return line ? [line[1]!, line[2]!] : undefined;
      },
      180_000,
    );
    expect(again).toBe(token);
    expect(await runCurl(again, base2)).toBe(200);
    await until(
      'the second start to be ready',
      async () => ((await fetch(`${base2}/ready`)).status === 200 ? true : undefined),
      300_000,
    );
    // Whatever the bar did meanwhile, the lines are still there, whole, once.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const secondScreen = await screen(second);
    expect(secondScreen.filter((l) => CURL.test(l))).toHaveLength(1);
    expect(secondScreen.some((l) => l.startsWith('Your token (named "quickstart"'))).toBe(true);
    await stop(second.child);

    // Piped: JSON log lines, and the token lines once on standard output.
    const piped = launch(env, false);
    const [pipedToken, base3] = await until(
      'the piped curl line',
      async () => {
        const line = piped
          .output()
          .split('\n')
          .map((l) => CURL.exec(l))
          .find(Boolean);
        return line ? [line[1]!, line[2]!] : undefined;
      },
      180_000,
    );
    expect(pipedToken).toBe(token);
    expect(await runCurl(pipedToken, base3)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const lines = piped.output().split('\n');
    expect(lines.filter((l) => CURL.test(l))).toHaveLength(1);
    expect(piped.output()).not.toContain('\x1b[');
    expect(lines.some((l) => l.startsWith('{"level":30'))).toBe(true);
    await stop(piped.child);
  }, 1_200_000);
});
