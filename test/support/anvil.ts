import { afterAll } from 'vitest';
import { type Anvil, type AnvilOptions, startAnvil } from '../../src/sandbox/chain/anvil.js';

/**
 * The one way tests start anvil: the sandbox's own starter (src/sandbox/chain/anvil.ts: the platform binary in its
 * own process group, a watchdog and exit hooks, so that no node outlives the test process however it ends), plus a
 * second check against a port race, and every node of a test file stopped after the file's tests.
 *
 * The starter already probes a free port and retries when anvil cannot bind it. A race remains: another process may
 * take the port after anvil's bind failed but before our node exits, and answer our first call itself. A node that
 * lost the race exits at once, so a node still running a moment after its first answer is ours.
 */

/** Starts, at most this many times, before giving up. */
const STARTS = 5;
/** How long a node must stay up after its first answer. */
const SETTLE_MS = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts anvil (the options of `startAnvil`); starts again on another port when the node dies right away. */
export async function launchAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  for (let attempt = 1; ; attempt++) {
    const anvil = await startAnvil(options);
    const died = await Promise.race([anvil.exited.then(() => true), sleep(SETTLE_MS).then(() => false)]);
    if (!died) return anvil;
    await anvil.stop();
    if (attempt >= STARTS) throw new Error(`anvil exited right after starting, ${attempt} times (ports taken?)`);
  }
}

/**
 * Anvils for one test file: call at the file's top level (it registers an `afterAll` hook); every node `start`
 * launches is stopped after the file's tests.
 */
export function useAnvils(): { start(options?: AnvilOptions): Promise<Anvil> } {
  const started: Anvil[] = [];
  afterAll(async () => {
    await Promise.all(started.map((a) => a.stop()));
  });
  return {
    async start(options) {
      const anvil = await launchAnvil(options);
      started.push(anvil);
      return anvil;
    },
  };
}
