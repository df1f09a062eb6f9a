import { isRetryable, ServiceError } from '../../core/errors.js';

/**
 * A run that reads several chains or targets, the one behaviour of every area: every target is tried (one failing
 * does not keep the others from their turn), what succeeded is kept (its facts written, its summary returned), and
 * the run then fails naming every failure, with what was done. A stop (the signal) ends it at once. The error is
 * retryable when one of the failures is.
 */
export async function eachTarget<T>(
  ctx: { readonly signal: AbortSignal },
  targets: readonly T[],
  name: (target: T) => string,
  run: (target: T) => Promise<string | readonly string[]>,
  options: {
    /** Run the targets at once (each reads its own chain) rather than one after another. */
    readonly concurrent?: boolean;
  } = {},
): Promise<string[]> {
  const done: string[] = [];
  const failed: { target: string; error: unknown }[] = [];
  const one = async (target: T) => {
    try {
      const summary = await run(target);
      return { ok: true as const, summary };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      return { ok: false as const, error };
    }
  };
  const settle = (target: T, result: Awaited<ReturnType<typeof one>>) => {
    if (result.ok) done.push(...(typeof result.summary === 'string' ? [result.summary] : result.summary));
    else failed.push({ target: name(target), error: result.error });
  };
  if (options.concurrent) {
    const results = await Promise.all(targets.map(one));
    for (const [i, r] of results.entries()) settle(targets[i]!, r);
  } else {
    for (const target of targets) {
      if (ctx.signal.aborted) break;
      settle(target, await one(target));
    }
  }
  if (failed.length) {
    const reasons = failed.map((f) => `${f.target}: ${f.error instanceof Error ? f.error.message : String(f.error)}`);
    throw new ServiceError(
      `${failed.length} of ${targets.length} failed (${reasons.join('; ')})${done.length ? `; done: ${done.join('; ')}` : ''}`,
      failed.some((f) => isRetryable(f.error)),
      { cause: failed[0]!.error },
    );
  }
  return done;
}
