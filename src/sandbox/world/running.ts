/**
 * `running.json`: what a running world tells other processes (`protoscore sandbox info`, a second `start`) about
 * itself, in `<dataDir>/sandbox/`, and how they find out whether it is really running.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { jsonRpc } from '../chain/anvil.js';
import type { WorldManifest } from './manifest.js';

export const WORLD_DIR = 'sandbox';
export const RUNNING_FILE = 'running.json';

/** Where a world is in its life. */
export type WorldPhase = 'catching-up' | 'live' | 'idle' | 'stopped' | 'failed';

/** What `running.json` holds while a world is up. */
export interface RunningWorld {
  readonly rpc_url: string;
  readonly chain_id: number;
  /** The service's pid. */
  readonly pid: number;
  readonly anvil_pid: number;
  readonly watchdog_pid: number;
  readonly started_at: string;
  readonly phase: WorldPhase;
  readonly seed: number;
  readonly genesis_timestamp: number;
  readonly manifest: WorldManifest;
  /** Base URLs of other stand-ins and anything else announced. */
  readonly [extra: string]: unknown;
}

export function worldDir(dataDir: string): string {
  return path.join(dataDir, WORLD_DIR);
}

/**
 * The running world of a data directory, or why there is none. "Running" means running.json exists, its
 * service process is alive and the RPC URL answers with the recorded chain id (a SIGKILL leaves the file behind).
 */
export async function findRunningWorld(
  dataDir: string,
): Promise<{ running: RunningWorld } | { running: undefined; reason: string }> {
  const file = path.join(worldDir(dataDir), RUNNING_FILE);
  let info: RunningWorld;
  try {
    info = JSON.parse(await readFile(file, 'utf8')) as RunningWorld;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { running: undefined, reason: `no ${file}` };
    return { running: undefined, reason: `unreadable ${file}: ${(err as Error).message}` };
  }
  if (!processAlive(info.pid)) return { running: undefined, reason: `its process ${info.pid} has exited` };
  try {
    const chainId = Number(await jsonRpc<string>(info.rpc_url, 'eth_chainId', [], 2000));
    if (chainId !== info.chain_id) return { running: undefined, reason: `${info.rpc_url} answers another chain` };
  } catch (err) {
    return { running: undefined, reason: `${info.rpc_url} does not answer (${(err as Error).message})` };
  }
  return { running: info };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads running.json without checking it (tests, diagnostics). */
export function readRunningFile(dataDir: string): RunningWorld | undefined {
  const file = path.join(worldDir(dataDir), RUNNING_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as RunningWorld) : undefined;
}
