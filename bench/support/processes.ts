/**
 * The processes of a service's tree and what they cost, from `/proc` (Linux): CPU time in clock ticks and resident
 * memory of the service and every descendant (each chain's anvil, the stand-ins' processes). Used by `bench:soak`
 * and the resting-service test.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

function getconf(name: string): number {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim());
  } catch {
    return Number.NaN;
  }
}

/** Clock ticks per second (`cpuTicks / TICK` is seconds of CPU). */
export const TICK = getconf('CLK_TCK') || 100;
const PAGE = getconf('PAGESIZE') || 4096;

export interface Proc {
  readonly pid: number;
  /** A name: `service`, `anvil:<port>`, or the command's base name. */
  readonly name: string;
  /** User and system CPU time so far, in clock ticks. */
  readonly cpuTicks: number;
  readonly rssBytes: number;
}

function readProc(pid: number): { ppid: number; ticks: number; rss: number; cmd: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command is in parentheses and may hold spaces: split after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    // Fields after the command: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14) … rss(21)
    return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]), rss: Number(rest[21]) * PAGE, cmd };
  } catch {
    return undefined;
  }
}

/** The process `root` and all its descendants alive now. */
export function processTree(root: number): Proc[] {
  const all = new Map<number, { ppid: number; ticks: number; rss: number; cmd: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const p = readProc(Number(entry));
    if (p) all.set(Number(entry), p);
  }
  const inTree = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of all) {
      if (!inTree.has(pid) && inTree.has(p.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  return [...inTree]
    .filter((pid) => all.has(pid))
    .map((pid) => {
      const p = all.get(pid)!;
      const anvilPort = /anvil.*--port[= ](\d+)/.exec(p.cmd)?.[1];
      const name =
        pid === root ? 'service' : anvilPort ? `anvil:${anvilPort}` : path.basename(p.cmd.split(' ')[0] ?? `${pid}`);
      return { pid, name, cpuTicks: p.ticks, rssBytes: p.rss };
    });
}
