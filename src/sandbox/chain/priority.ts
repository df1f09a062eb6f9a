import os from 'node:os';

/**
 * CPU priority of the sandbox's background parts: the layer-2 chains' anvils and the Bitcoin stand-in's history
 * builder run at Unix niceness 10, so that on a machine short of cores (a 2-core laptop or CI runner) the Ethereum
 * world and the service's own threads come first, and the background parts use the time those leave idle. They
 * still get their share when nothing else runs. Lowering a priority never needs privileges; a failure (a platform
 * without it) leaves the default priority and is not an error.
 */
export const BACKGROUND_NICENESS = 10;

/** Lowers a child process's priority (anvil, once spawned). */
export function lowerProcessPriority(pid: number, niceness = BACKGROUND_NICENESS): void {
  try {
    os.setPriority(pid, niceness);
  } catch {
    // Not supported here: the process keeps the default priority.
  }
}

/**
 * Lowers the calling worker thread's priority. On Linux, `setpriority` on the calling "process" applies to the
 * calling thread only (man 2 setpriority, NPTL), which is what a worker thread wants; elsewhere it would lower the
 * whole process, so it does nothing there.
 */
export function lowerThreadPriority(niceness = BACKGROUND_NICENESS): void {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(0, niceness);
  } catch {
    // Not supported here.
  }
}
