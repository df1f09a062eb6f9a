import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type CounterName, readCounters } from './counters.js';
import type { Store } from './db.js';

const CHANNEL = 'protoscore:changes';

export type ChangeListener = (what: CounterName) => Promise<void> | void;

/**
 * Follows the store's change counters so that every API process serves the newest published datasets and
 * token table: it polls the counters every `intervalMs` (works across replicas with the database alone) and,
 * when Redis is configured, also reacts at once to change notices published there.
 */
export class ChangeFollower {
  private seen: Record<CounterName, number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private subscriber: Redis | undefined;
  private publisher: Redis | undefined;

  constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
    private readonly log: Logger,
    private readonly listener: ChangeListener,
    private readonly redisUrl?: string,
  ) {}

  async start(): Promise<void> {
    this.seen = await readCounters(this.store.db);
    if (this.redisUrl) {
      // Redis only makes changes visible sooner; polling works without it. So a Redis that is down at start does
      // not stop the process: the subscription waits in the client's queue (no retry limit) until Redis is back.
      this.subscriber = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
      this.subscriber.on('error', (err) => this.log.warn({ err: err.message }, 'redis change subscriber error'));
      this.subscriber.on('message', () => void this.check());
      this.subscriber.subscribe(CHANNEL).catch((err: Error) => {
        this.log.warn({ err: err.message }, 'redis change subscription failed; changes are seen by polling');
      });
    }
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  /** Checks the counters now; concurrent calls collapse into one extra pass. */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          const now = await readCounters(this.store.db);
          const before = this.seen;
          this.seen = now;
          for (const name of Object.keys(now) as CounterName[]) {
            if (!before || before[name] !== now[name]) await this.listener(name);
          }
        } catch (err) {
          this.log.warn({ err: (err as Error).message }, 'change check failed; serving the previous version');
        }
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
    this.subscriber?.disconnect();
    this.publisher?.disconnect();
  }
}

/** Tells other processes (through Redis, when configured) that the store changed. */
export class ChangeNotifier {
  private publisher: Redis | undefined;

  constructor(
    private readonly log: Logger,
    redisUrl?: string,
  ) {
    if (redisUrl) {
      this.publisher = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
      this.publisher.on('error', (err) => this.log.warn({ err: err.message }, 'redis change publisher error'));
    }
  }

  async notify(what: CounterName): Promise<void> {
    if (!this.publisher) return;
    try {
      if (this.publisher.status === 'wait') await this.publisher.connect();
      await this.publisher.publish(CHANNEL, what);
    } catch (err) {
      // Polling still delivers the change within one sync interval.
      this.log.warn({ err: (err as Error).message }, 'could not publish change notice');
    }
  }

  close(): void {
    this.publisher?.disconnect();
  }
}
