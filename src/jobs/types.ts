import type { Logger } from 'pino';
import type { AreaId } from '../core/areas.js';
import type { Clock } from '../core/time.js';
import type { Store } from '../store/db.js';

export interface JobContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly log: Logger;
  /** Aborted when the job's lease is lost or the process stops: stop at the next safe point. */
  readonly signal: AbortSignal;
  /** 1 for the first attempt of a run. */
  readonly attempt: number;
  /** Tells API processes that datasets changed (publishers call it after a publication). */
  notifyPublished(): Promise<void>;
  /**
   * The run stopped with work left (a budget of blocks or time, not an error): the next run starts at once instead
   * of `everySeconds` later. Absent where a caller runs a job by hand.
   */
  moreToDo?(): void;
}

export interface JobDef {
  /** `<area>.<what>`, e.g. `dex.ingest`. */
  readonly name: string;
  readonly area?: AreaId;
  readonly description: string;
  /** Seconds between the end of one run and the start of the next. */
  readonly everySeconds: number;
  /** Attempts per run before the run is recorded as failed (retryable errors only). */
  readonly maxAttempts?: number;
  /** Base of the exponential backoff between attempts, in milliseconds. */
  readonly backoffMs?: number;
  /**
   * Jobs whose successful runs make this one due at once (a computation after the ingest it reads), besides its
   * own schedule: what they stored is computed at the runner's next tick instead of up to `everySeconds` later.
   */
  readonly runAfter?: readonly string[];
  /** Returns a one-line summary of what it did, shown in `/status`. */
  run(ctx: JobContext): Promise<string | undefined>;
}

/** What is known of a job where it does not run (the API half of `start` shows the job side's jobs in `/status`). */
export type JobInfo = Pick<JobDef, 'name' | 'area' | 'description' | 'everySeconds'>;
