import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../../chain/priority.js';
import { BitcoinWorld, type BitcoinWorldOptions } from './world.js';

/**
 * A thread that makes (or brings up to date) the stand-in's chain on disk, so that the signing of a first start's
 * history does not hold the thread that serves: `server.ts` starts it and answers "warming up" meanwhile.
 */
const options = workerData as BitcoinWorldOptions;
// In the background of the Ethereum world's first start (chain/priority.ts).
lowerThreadPriority();
BitcoinWorld.open(options);
parentPort?.postMessage('done');
