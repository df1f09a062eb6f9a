/**
 * What every area's computation job does around its pure compute: skip a run whose inputs did not move since the
 * last publication, publish the documents as one version, remember the inputs it published from, and wake the API
 * so it serves the new version.
 */
import type { Kysely } from 'kysely';
import { nowSeconds } from '../core/time.js';
import type { JobContext } from '../jobs/types.js';
import { readCheckpoint, writeCheckpoint } from '../store/checkpoints.js';
import { type DatasetDocument, DatasetRepository } from '../store/datasets.js';
import type { Database } from '../store/schema.js';

/**
 * The inputs a computation last published from, as a checkpoint under `key`. Inputs are plain JSON (block
 * numbers, versions, timestamps), compared by their JSON text, so keep their keys in a fixed order.
 */
export class ComputedInputs {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly key: string,
  ) {}

  /** True when `inputs` are those of the last publication (or of the last run that found nothing to change). */
  async unchanged(inputs: unknown): Promise<boolean> {
    return JSON.stringify(await readCheckpoint(this.db, this.key)) === JSON.stringify(inputs);
  }

  async record(inputs: unknown, at: number): Promise<void> {
    await writeCheckpoint(this.db, this.key, inputs, at);
  }
}

/**
 * Publishes `documents` as the computation's next version, records the inputs they were computed from (when the
 * job keeps them) and notifies the API. Returns the version.
 */
export async function publishComputation(
  ctx: JobContext,
  publication: {
    computation: string;
    area: string;
    documents: DatasetDocument[];
    inputs?: { gate: ComputedInputs; value: unknown };
  },
): Promise<number> {
  const at = nowSeconds(ctx.clock);
  const version = await new DatasetRepository(ctx.store.db).publish({
    computation: publication.computation,
    area: publication.area,
    computedAt: at,
    documents: publication.documents,
  });
  if (publication.inputs) await publication.inputs.gate.record(publication.inputs.value, at);
  await ctx.notifyPublished();
  return version;
}
