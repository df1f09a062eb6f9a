import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../../test/support/temp-dirs.js';
import { jsonRpc } from '../chain/anvil.js';
import { readRunningFile } from './running.js';
import { openWorld, plannedGenesisTimestamp, type World, type WorldDriver, type WorldOptions } from './world.js';

const log = pino({ level: 'silent' });
const HOUR = 3600;

/** A clock the test moves by hand. */
function testClock(startSeconds: number) {
  let nowMs = startSeconds * 1000;
  return {
    nowMs: () => nowMs,
    advance: (seconds: number) => {
      nowMs += seconds * 1000;
    },
  };
}

/** 2026-03-10T14:10:07Z: ten minutes into an hour, off the 5-second grid. */
const T0 = Date.UTC(2026, 2, 10, 14, 10, 7) / 1000;

const opened: World[] = [];
/** Temporary directories, removed after the file's tests once every world has stopped. */
const tempDir = useTempDirs(() => Promise.all(opened.map((w) => w.stop())));

async function open(options: Partial<WorldOptions> & { dataDir: string; clock: { nowMs(): number } }) {
  const world = await openWorld({ seed: 1, days: 1, blockSeconds: 5, scale: 1, log, live: false, ...options });
  opened.push(world);
  return world;
}

async function block(world: World, tag: number | 'latest') {
  const id = tag === 'latest' ? tag : `0x${tag.toString(16)}`;
  const b = await jsonRpc<{ number: string; hash: string; timestamp: string }>(world.rpcUrl, 'eth_getBlockByNumber', [
    id,
    false,
  ]);
  return { number: Number(b.number), hash: b.hash, timestamp: Number(b.timestamp) };
}

/**
 * A light stand-in for deploy.ts and scenario.ts, for the lifecycle alone: one contract that logs, and one
 * logging transaction per step, each step its own block at the step's time. Plain JS in a module file of its
 * own, so that a child process (the crash test) runs the very same driver.
 */
const RUNTIME = '33600052600160206000a100';
const INIT = `0x600c600c600039600c6000f3${RUNTIME}`;
const FAKE_DRIVER_MODULE = `
async function rpc(url, method, params = []) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(method + ': ' + body.error.message);
  return body.result;
}
export async function deployWorld(rpcUrl, { seed, startTimestamp }) {
  await rpc(rpcUrl, 'evm_setAutomine', [false]);
  const [deployer] = await rpc(rpcUrl, 'eth_accounts');
  const tx = await rpc(rpcUrl, 'eth_sendTransaction', [{ from: deployer, data: '${INIT}', gas: '0x100000' }]);
  await rpc(rpcUrl, 'evm_mine', [startTimestamp]);
  const receipt = await rpc(rpcUrl, 'eth_getTransactionReceipt', [tx]);
  const manifest = { seed, chain: 'ethereum', chainId: 31337, genesisTimestamp: startTimestamp, deployer,
    tokens: [], dex: [], pools: [], weth: receipt.contractAddress };
  return { manifest, state: { lastTimestamp: startTimestamp, prices: {}, step: 0 } };
}
export async function simulate(rpcUrl, manifest, state, until, { stepSeconds, signal }) {
  await rpc(rpcUrl, 'evm_setAutomine', [false]);
  let { lastTimestamp, step } = state;
  while (lastTimestamp + stepSeconds <= until && !signal?.aborted) {
    await rpc(rpcUrl, 'eth_sendTransaction', [{ from: manifest.deployer, to: manifest.weth, gas: '0x30000' }]);
    lastTimestamp += stepSeconds;
    step += 1;
    await rpc(rpcUrl, 'evm_mine', [lastTimestamp]);
  }
  return { ...state, lastTimestamp, step };
}
`;
const fakeDriverFile = path.join(tempDir('world-driver-'), 'driver.mjs');
writeFileSync(fakeDriverFile, FAKE_DRIVER_MODULE);
const fakeDriver = (await import(pathToFileURL(fakeDriverFile).href)) as WorldDriver;

describe('sandbox world lifecycle (light scenario)', () => {
  it('catches up hourly then by blocks, saves, reloads fast, fills a pause, and keeps its history', async () => {
    const dataDir = tempDir('world-');
    const clock = testClock(T0);
    const genesis = Math.floor(T0 / HOUR) * HOUR - 86_400;

    let t = Date.now();
    const first = await open({ dataDir, clock, driver: fakeDriver });
    await first.caughtUp;
    const firstMs = Date.now() - t;
    const running = readRunningFile(dataDir);
    expect(running).toMatchObject({ rpc_url: first.rpcUrl, chain_id: 31337, pid: process.pid, phase: 'idle' });
    // anvil's genesis a second before the grid, the deployment, 24 hourly blocks (2…25), ten one-minute blocks
    // (26…35) up to 14:10, then one 5-second block: 14:10:05.
    expect(await block(first, 0)).toMatchObject({ timestamp: genesis - 1 });
    expect(await block(first, 1)).toMatchObject({ timestamp: genesis });
    expect((await block(first, 25)).timestamp).toBe(genesis + 24 * HOUR);
    const head = await block(first, 'latest');
    expect(head.timestamp).toBe(T0 - 2);
    expect((await block(first, 35)).timestamp).toBe(genesis + 24 * HOUR + 10 * 60);
    expect(head.number).toBe(36);
    const logs = await jsonRpc<unknown[]>(first.rpcUrl, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    await first.stop();
    expect(existsSync(path.join(first.dir, 'running.json'))).toBe(false);
    expect(readdirSync(first.dir).filter((f) => f.startsWith('chain-'))).toHaveLength(1);

    // Three hours and two minutes later.
    clock.advance(3 * HOUR + 120);
    t = Date.now();
    const second = await open({ dataDir, clock, driver: fakeDriver });
    const reopenMs = Date.now() - t;
    expect(await block(second, head.number)).toEqual(head);
    await second.caughtUp;
    // Three hourly blocks from the old head, then two one-minute blocks up to the new now.
    expect((await block(second, head.number + 3)).timestamp).toBe(head.timestamp + 3 * HOUR);
    expect(await block(second, 'latest')).toMatchObject({ number: head.number + 5 });
    expect((await block(second, 'latest')).timestamp).toBe(T0 + 3 * HOUR + 120 - 2);
    const logsAfter = await jsonRpc<unknown[]>(second.rpcUrl, 'eth_getLogs', [
      { fromBlock: '0x0', toBlock: `0x${head.number.toString(16)}` },
    ]);
    expect(logsAfter).toEqual(logs);
    // The reload, not a rebuild, is proven above: a rebuilt world three hours later would have its genesis three
    // hours later, so neither the old head's hash nor the logs (block hashes) would be equal. Timings are only
    // shown (comparing two wall-clock times failed by chance on a loaded 2-core machine).
    console.log({ firstMs, reopenMs });
    await second.stop();
  });

  it('goes live: blocks follow the clock every blockSeconds', async () => {
    const dataDir = tempDir('world-');
    // Seven seconds into the hour: seven 1-second blocks after the hourly ones.
    const start = Math.floor(T0 / HOUR) * HOUR + 7;
    const clock = testClock(start);
    const world = await open({ dataDir, clock, driver: fakeDriver, live: true, blockSeconds: 1 });
    await world.caughtUp;
    expect(world.status().phase).toBe('live');
    const before = await block(world, 'latest');
    expect(before.timestamp).toBe(start);
    clock.advance(3);
    const deadline = Date.now() + 5000;
    while ((await block(world, 'latest')).timestamp < start + 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = await block(world, 'latest');
    expect(after).toMatchObject({ number: before.number + 3, timestamp: start + 3 });
    await world.stop();
  });

  it('refuses a saved world of another seed, and a second world on the same directory', async () => {
    const dataDir = tempDir('world-');
    const clock = testClock(T0);
    const world = await open({ dataDir, clock, driver: fakeDriver, days: 1 });
    await expect(open({ dataDir, clock, driver: fakeDriver })).rejects.toThrow(/already/);
    await world.caughtUp;
    await world.stop();
    const mismatch = open({ dataDir, clock, driver: fakeDriver, seed: 2 });
    await expect(mismatch).rejects.toThrow(/SANDBOX_SEED=1/);
    // Recognised by name across the worker thread boundary, for the operator's message without a stack trace.
    await expect(mismatch).rejects.toMatchObject({ name: 'WorldMismatchError' });
  });

  it("tells a world's genesis before it opens: a new one's planned instant, then the save's", async () => {
    const dataDir = tempDir('world-');
    const clock = testClock(T0);
    const plan = (seed = 1) => plannedGenesisTimestamp({ dataDir, seed, scale: 1, days: 1, clock });
    // A new world: a day before the current hour.
    const planned = await plan();
    expect(planned).toBe(Math.floor(T0 / HOUR) * HOUR - 86_400);
    // Opened on a planned instant (here an hour earlier than it would take itself), the world takes it.
    const world = await open({ dataDir, clock, driver: fakeDriver, genesisTimestamp: planned - HOUR });
    expect(world.manifest.genesisTimestamp).toBe(planned - HOUR);
    await world.caughtUp;
    await world.stop();
    // Later, the save's instant, whatever the clock says; and another seed is refused as openWorld refuses it.
    clock.advance(5 * HOUR);
    expect(await plan()).toBe(planned - HOUR);
    await expect(plan(2)).rejects.toMatchObject({ name: 'WorldMismatchError' });
    // A saved world ignores a planned instant.
    const reopened = await open({ dataDir, clock, driver: fakeDriver, genesisTimestamp: planned + HOUR });
    expect(reopened.manifest.genesisTimestamp).toBe(planned - HOUR);
    await reopened.stop();
  });

  it('ignores what a crash mid-save leaves, and starts anew from a damaged save', async () => {
    const dataDir = tempDir('world-');
    const clock = testClock(T0);
    const world = await open({ dataDir, clock, driver: fakeDriver });
    await world.caughtUp;
    const head = await block(world, 'latest');
    await world.stop();
    // A newer dump whose world.json never got written, and half-written temp files.
    writeFileSync(path.join(world.dir, 'chain-999-deadbeef.json.gz'), 'partial');
    writeFileSync(path.join(world.dir, `world.json.tmp-12345`), '{');
    const reopened = await open({ dataDir, clock, driver: fakeDriver });
    await reopened.caughtUp;
    expect(await block(reopened, 'latest')).toEqual(head);
    expect(readdirSync(world.dir).filter((f) => f.includes('tmp-') || f.startsWith('chain-999'))).toEqual([]);
    await reopened.stop();

    // A dump that does not match world.json: kept aside, and a new world starts.
    const chainFile = readdirSync(world.dir).find((f) => f.startsWith('chain-'))!;
    writeFileSync(path.join(world.dir, chainFile), readFileSync(path.join(world.dir, chainFile)).subarray(0, 100));
    const fresh = await open({ dataDir, clock, driver: fakeDriver });
    await fresh.caughtUp;
    expect(readdirSync(world.dir).some((f) => f.startsWith('world.json.invalid-'))).toBe(true);
    expect((await block(fresh, 'latest')).timestamp).toBe(head.timestamp);
    await fresh.stop();
  });

  it('a world killed mid-catch-up resumes from a consistent save to the same chain', async () => {
    // The same light driver in a child process that saves after every simulated day; it is killed by SIGKILL
    // right after its first save, i.e. while it simulates the next day or writes the next save.
    const dataDir = tempDir('world-');
    const code = `
      import pino from 'pino';
      import { openWorld } from ${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, 'world.ts')).href)};
      const driver = await import(${JSON.stringify(pathToFileURL(fakeDriverFile).href)});
      await openWorld({ dataDir: ${JSON.stringify(dataDir)}, seed: 1, days: 3, blockSeconds: 5, scale: 1,
        log: pino(), clock: { nowMs: () => ${T0 * 1000} }, live: false, saveEveryMs: 0, driver });
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: path.join(import.meta.dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('sandbox: world saved')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () => reject(new Error(`child ended before saving: ${out}`)));
    });
    await new Promise((r) => child.once('exit', r));

    const clock = testClock(T0);
    const resumed = await open({ dataDir, clock, driver: fakeDriver, days: 3 });
    expect(await resumed.head()).toBeGreaterThanOrEqual(1 + 24);
    await resumed.caughtUp;
    expect(readdirSync(resumed.dir).filter((f) => f.includes('invalid'))).toEqual([]);
    const reference = await open({
      dataDir: tempDir('world-'),
      clock,
      driver: fakeDriver,
      days: 3,
    });
    await reference.caughtUp;
    expect(await block(resumed, 'latest')).toEqual(await block(reference, 'latest'));
  });
});

describe('sandbox world (the real deployment and scenario)', () => {
  it('starts, catches up, moves with the clock, reloads faster than it started, fills a pause; same seed, same chain', async () => {
    const [dirA, dirB] = [tempDir('world-'), tempDir('world-')];
    // 67 s into the hour: one one-minute block, then one 5-second block after the hourly ones.
    const start = Math.floor(T0 / HOUR) * HOUR + 67;
    const clockA = testClock(start);
    const options = { seed: 3, days: 1, blockSeconds: 5, scale: 0.05 };

    const timed = async (dataDir: string, clock: { nowMs(): number }) => {
      const t = Date.now();
      const world = await open({ ...options, dataDir, clock });
      await world.caughtUp;
      return { world, ms: Date.now() - t };
    };
    // Two worlds of the same seed on the same clock, side by side.
    const [a, b] = await Promise.all([timed(dirA, clockA), timed(dirB, testClock(start))]);
    const headA = await block(a.world, 'latest');
    expect(headA.timestamp).toBe(start - 2);
    expect(await block(b.world, 'latest')).toEqual(headA);
    expect(await block(b.world, 24)).toEqual(await block(a.world, 24));
    await b.world.stop();

    const swaps = await jsonRpc<unknown[]>(a.world.rpcUrl, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    expect(swaps.length).toBeGreaterThan(100);
    expect(a.world.manifest.pools.length).toBeGreaterThan(0);

    // The clock moves: the world follows.
    clockA.advance(10);
    await a.world.sync();
    expect(await block(a.world, 'latest')).toMatchObject({ number: headA.number + 2, timestamp: start + 8 });
    const logsA = await jsonRpc<unknown[]>(a.world.rpcUrl, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]);
    const lastA = await block(a.world, 'latest');
    await a.world.stop();

    // Two hours later: loads the saved chain (history intact) and fills the pause.
    clockA.advance(2 * HOUR + 30);
    const again = await timed(dirA, clockA);
    // Loaded, not rebuilt: a world rebuilt two hours later would start two hours later, so the logs up to the old
    // head (block hashes) below would differ. The timings are printed, not compared (wall-clock comparisons on a
    // loaded 2-core machine fail by chance).
    const to = `0x${lastA.number.toString(16)}`;
    expect(await jsonRpc(again.world.rpcUrl, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: to }])).toEqual(logsA);
    expect(await block(again.world, lastA.number + 2)).toMatchObject({ timestamp: lastA.timestamp + 2 * HOUR });
    expect((await block(again.world, 'latest')).timestamp).toBe(start + 10 + 2 * HOUR + 30 - 2);
    console.log({ first: a.ms, second: again.ms });
    await again.world.stop();
  }, 300_000); // a hang guard, not a speed bound: three worlds deployed and simulated took past 90 s on a loaded machine
});
