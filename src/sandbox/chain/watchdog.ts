import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * The watchdog: a tiny Node process that outlives the service only to clean up after it. It holds the read end
 * of a pipe whose write end only the service has; the kernel closes that end however the service ends (even
 * SIGKILL, which no handler in the service can see), and the watchdog then kills the child's process group and
 * exits. It runs with `node -e` from this string rather than from a file so that it is found the same way from
 * sources (tsx, vitest) and from the build (`dist/`), and starts without a TypeScript loader (~40 ms).
 *
 * It lives in its own process group, so a Ctrl-C in a terminal (SIGINT to the foreground group) does not reach
 * it: the service may still be saving the world, which needs the node alive. A signal sent to the watchdog
 * itself means "stop watching": it cleans up first. SIGTERM gives the node a moment to exit on its own, then
 * SIGKILL makes sure (checked with signal 0, so a group that is already gone ends the wait at once).
 */
const WATCHDOG_SOURCE = `
const group = -Number(process.argv[1]);
const graceMs = Number(process.argv[2]);
let done = false;
function signal(sig) { try { process.kill(group, sig); return true; } catch { return false; } }
function cleanUp() {
  if (done) return;
  done = true;
  if (!signal('SIGTERM')) process.exit(0);
  const started = Date.now();
  setInterval(() => {
    if (!signal(0)) process.exit(0);
    if (Date.now() - started >= graceMs) { signal('SIGKILL'); process.exit(0); }
  }, 20);
}
process.stdin.on('data', () => {});
process.stdin.on('end', cleanUp);
process.stdin.on('close', cleanUp);
process.stdin.on('error', cleanUp);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, cleanUp);
`;

export interface Watchdog {
  readonly pid: number;
  /** Ends the watch (closes the pipe): the watchdog kills whatever is left of the group and exits. */
  release(): void;
}

/**
 * Starts a watchdog for the process group `groupId` (the pid of a child spawned with `detached: true`). Call it
 * right after spawning that child, in the same tick, so that no await separates the two: the window in which
 * the service could die with an unwatched child is then a few microseconds.
 */
export function startWatchdog(groupId: number, options: { graceMs?: number } = {}): Watchdog {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', WATCHDOG_SOURCE, String(groupId), String(options.graceMs ?? 1500)],
    // Only stdin, the pipe that is the whole point; its own group (see above); an empty environment so that no
    // NODE_OPTIONS (a loader such as tsx) slows its start.
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: {} },
  );
  if (child.pid === undefined) throw new Error('cannot start the sandbox watchdog process');
  // Neither the watchdog nor its pipe may keep the service's event loop alive.
  child.unref();
  (child.stdin as Socket | null)?.unref();
  child.stdin?.on('error', () => undefined);
  return {
    pid: child.pid,
    release: () => {
      child.stdin?.destroy();
    },
  };
}
