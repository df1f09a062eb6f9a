import { Rng } from '../../world/random.js';

/**
 * Fault injection for stand-ins: what real services do now and then, so that connectors meet it in the sandbox
 * before they meet it in production. Two sources, checked in this order for every counted request:
 * - scripted faults (`inject`), consumed in order by the next requests they match (tests);
 * - seeded random faults at the configured rates, drawn from the stand-in's seed in request order.
 */

export type Fault =
  /** A 5xx answer (GitHub sends 500, 502 and 503 under load). */
  | { readonly kind: 'server-error'; readonly status: number }
  /** A secondary rate limit: 403/429 with `retry-after`, and the client is blocked for that long. */
  | { readonly kind: 'secondary-limit'; readonly retryAfterSeconds: number };

export interface FaultRates {
  /** Probability of a 5xx per request (default 0). */
  readonly serverError?: number;
  /** Probability of a secondary rate limit per request (default 0). */
  readonly secondaryLimit?: number;
  /** `retry-after` of random secondary limits (default 60, GitHub's usual answer). */
  readonly secondaryRetryAfterSeconds?: number;
}

export interface ScriptedFault {
  readonly fault: Fault;
  /** Only requests whose path (without query) contains this (default: any). */
  readonly pathIncludes?: string;
  /** How many matching requests get it (default 1). */
  readonly times?: number;
}

const SERVER_ERROR_STATUSES = [500, 502, 503] as const;

export class FaultInjector {
  private readonly rng: Rng;
  private rates: FaultRates;
  private readonly script: { fault: Fault; pathIncludes: string | undefined; left: number }[] = [];

  constructor(seed: number, stream: string, rates: FaultRates = {}) {
    this.rng = Rng.fromSeed(seed, `${stream}/faults`);
    this.rates = rates;
  }

  setRates(rates: FaultRates): void {
    this.rates = rates;
  }

  /** Queues faults for the next matching requests. */
  inject(...faults: readonly ScriptedFault[]): void {
    for (const f of faults) this.script.push({ fault: f.fault, pathIncludes: f.pathIncludes, left: f.times ?? 1 });
  }

  /** Scripted faults not yet delivered. */
  pending(): number {
    return this.script.reduce((n, s) => n + s.left, 0);
  }

  /** The fault for this request, if any. */
  draw(path: string): Fault | undefined {
    const index = this.script.findIndex((s) => s.pathIncludes === undefined || path.includes(s.pathIncludes));
    if (index >= 0) {
      const entry = this.script[index]!;
      if (--entry.left <= 0) this.script.splice(index, 1);
      return entry.fault;
    }
    const { serverError = 0, secondaryLimit = 0 } = this.rates;
    if (serverError <= 0 && secondaryLimit <= 0) return undefined;
    // Always two draws per request, so that changing one rate does not shift the other's sequence.
    const a = this.rng.next();
    const b = this.rng.next();
    if (a < serverError) return { kind: 'server-error', status: SERVER_ERROR_STATUSES[Math.floor(b * 3)]! };
    if (b < secondaryLimit) {
      return { kind: 'secondary-limit', retryAfterSeconds: this.rates.secondaryRetryAfterSeconds ?? 60 };
    }
    return undefined;
  }
}
