import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useAnvils } from '../../../test/support/anvil.js';
import { useTempDirs } from '../../../test/support/temp-dirs.js';
import { type Anvil, SANDBOX_CHAIN_ID } from './anvil.js';
import { BACKGROUND_NICENESS } from './priority.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

/** Alive means running: a zombie (killed, not yet reaped by a container's init) counts as gone. */
function alive(pid: number): boolean {
  if (existsSync('/proc')) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !alive(pid);
}

/**
 * A contract whose every call emits one LOG1 with topic 0x…01 and the caller as data. Init code copies the
 * 12-byte runtime after itself and returns it. Runtime: CALLER PUSH1 0 MSTORE PUSH1 1 PUSH1 32 PUSH1 0 LOG1 STOP.
 */
const RUNTIME = '33600052600160206000a100';
const INIT = `0x600c600c600039600c6000f3${RUNTIME}`;

async function mineWithLog(anvil: Anvil, from: string, to: string, timestamp: number): Promise<void> {
  await anvil.request('eth_sendTransaction', [{ from, to, gas: '0x30000' }]);
  await anvil.request('evm_mine', [timestamp]);
}

const anvils = useAnvils();
const tempDir = useTempDirs();

describe('anvil process', () => {
  it('starts on a free port with the genesis time asked, answers, and stops without leftovers', async () => {
    const genesis = 1_700_000_000;
    const [a, b] = await Promise.all([anvils.start({ genesisTimestamp: genesis }), anvils.start()]);
    expect(a.port).not.toBe(b.port);
    expect(a.chainId).toBe(SANDBOX_CHAIN_ID);
    expect(Number(await a.request<string>('eth_chainId'))).toBe(31337);
    const block0 = await a.request<{ timestamp: string }>('eth_getBlockByNumber', ['0x0', false]);
    expect(Number(block0.timestamp)).toBe(genesis);

    await a.stop();
    await a.stop();
    expect(await gone(a.pid, 2000)).toBe(true);
    expect(await gone(a.watchdogPid, 3000)).toBe(true);
    // (Not "its port refuses": another test file's server may take a freed port at once; the pid is the proof.)
    expect(alive(b.pid)).toBe(true);
  });

  it('runs a background chain at a lower CPU priority, and the others at the default', async () => {
    const [bg, fg] = await Promise.all([anvils.start({ background: true }), anvils.start()]);
    expect(os.getPriority(bg.pid)).toBe(BACKGROUND_NICENESS);
    expect(os.getPriority(fg.pid)).toBe(os.getPriority());
  });

  // A child Node process starts anvil, prints the pids, then ends in one of the ways a service can end.
  it.each([
    ['SIGKILL of the service', 'idle', 'SIGKILL'],
    ['SIGTERM with no handler of its own', 'idle', 'SIGTERM'],
    ['an uncaught error', 'throw', undefined],
  ] as const)('leaves no anvil after %s', async (_name, mode, signal) => {
    const moduleUrl = pathToFileURL(path.join(ROOT, 'src/sandbox/chain/anvil.ts')).href;
    const code = [
      `import { startAnvil } from ${JSON.stringify(moduleUrl)};`,
      'const a = await startAnvil();',
      'process.stdout.write(JSON.stringify({ pid: a.pid, watchdog: a.watchdogPid }) + "\\n");',
      mode === 'throw' ? 'setTimeout(() => { throw new Error("boom"); }, 300);' : 'setInterval(() => {}, 1000);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pids = await new Promise<{ pid: number; watchdog: number }>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      child.once('exit', (c) => reject(new Error(`child exited (${c}) before starting anvil: ${err}`)));
    });
    expect(alive(pids.pid)).toBe(true);
    const childExit = new Promise((resolve) => child.once('exit', resolve));
    if (signal) child.kill(signal);
    await childExit;
    expect(await gone(pids.pid, 4000)).toBe(true);
    expect(await gone(pids.watchdog, 4000)).toBe(true);
  });

  it('a dumped state reloads with its history: old blocks and their logs', async () => {
    const genesis = 1_700_000_000;
    const a = await anvils.start({ genesisTimestamp: genesis, mining: 'manual' });
    const [from] = await a.request<string[]>('eth_accounts');
    await a.request('eth_sendTransaction', [{ from, data: INIT, gas: '0x100000' }]);
    await a.request('evm_mine', [genesis + 3600]);
    const deployBlock = await a.request<{ transactions: string[] }>('eth_getBlockByNumber', ['0x1', false]);
    const receipt = await a.request<{ contractAddress: string }>('eth_getTransactionReceipt', [
      deployBlock.transactions[0],
    ]);
    const contract = receipt.contractAddress;
    for (let hour = 2; hour <= 6; hour++) await mineWithLog(a, from!, contract, genesis + hour * 3600);
    // Blocks without transactions too, like quiet live blocks.
    for (let i = 1; i <= 20; i++) await a.request('evm_mine', [genesis + 6 * 3600 + i * 5]);

    const logsBefore = await a.request<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    expect(logsBefore).toHaveLength(5);
    const headBefore = await a.request<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
    const block3Before = await a.request<{ hash: string }>('eth_getBlockByNumber', ['0x3', false]);
    const genesisBefore = await a.request<{ hash: string }>('eth_getBlockByNumber', ['0x0', false]);

    const dump = await a.dumpState();
    expect(dump.subarray(0, 2).toString('hex')).toBe('1f8b');
    await a.stop();
    const file = path.join(tempDir('anvil-state-'), 'state.json');
    writeFileSync(file, gunzipSync(dump));

    const b = await anvils.start({ loadStateFile: file, genesisTimestamp: genesis, mining: 'manual' });
    const headAfter = await b.request<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
    expect(headAfter).toMatchObject({ number: headBefore.number, hash: headBefore.hash });
    expect((await b.request<{ hash: string }>('eth_getBlockByNumber', ['0x3', false])).hash).toBe(block3Before.hash);
    expect((await b.request<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash).toBe(genesisBefore.hash);
    // One block 0 only: the dump of the reloaded chain holds the same blocks as the first.
    const blocksIn = (gz: Buffer) => (JSON.parse(gunzipSync(gz).toString()) as { blocks: unknown[] }).blocks.length;
    expect(blocksIn(await b.dumpState())).toBe(blocksIn(dump));
    const logsAfter = await b.request<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    expect(logsAfter).toEqual(logsBefore);
    // The chain goes on from where it was.
    await mineWithLog(b, from!, contract, genesis + 7 * 3600);
    expect(await b.request<unknown[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])).toHaveLength(6);
  });
});
