import { parentPort, workerData } from 'node:worker_threads';
import { BitcoinWorld, type BitcoinWorldOptions } from './world.js';

/**
 * A thread that makes (or brings up to date) the stand-in's chain on disk, so that the signing of a first start's
 * history does not hold the thread that serves: `server.ts` starts it and answers "warming up" meanwhile.
 */
const options = workerData as BitcoinWorldOptions;
BitcoinWorld.open(options);
parentPort?.postMessage('done');
