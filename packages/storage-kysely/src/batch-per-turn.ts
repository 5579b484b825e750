/**
 * Runs one batch of items and answers each, in the order given: an answer may be a promise of its
 * own (an item run apart, whose failure is that item's alone).
 */
export type BatchRunner<I, R> = (items: readonly I[]) => Promise<ReadonlyArray<R | PromiseLike<R>>>;

/** Options of `batchPerTurn`. */
export interface BatchPerTurnOptions {
  /** The most items in one batch; a full batch goes out at once and the next one starts (default 200). */
  maxItems?: number;
}

/**
 * Gathers the calls made in one turn of the event loop into one call of `run`
 * (docs/decisions/0175-one-statement-per-turn-on-postgresql.md). The first call of a batch
 * schedules it with `setImmediate`: it goes out once the event loop has run every callback that
 * was ready, so the requests whose data arrived together share it, and a lone call waits for
 * nothing but the rest of its own turn. When `run` fails, every call of its batch fails with
 * the same error.
 *
 * @example
 * const findGrant = batchPerTurn(async (grantIds: readonly string[]) => {
 *   const rows = await readGrants([...new Set(grantIds)]);
 *   return grantIds.map((id) => rows.find((row) => row.grant_id === id));
 * });
 * const [a, b] = await Promise.all([findGrant('g1'), findGrant('g2')]); // one statement
 */
export function batchPerTurn<I, R>(run: BatchRunner<I, R>, options: BatchPerTurnOptions = {}): (item: I) => Promise<R> {
  const maxItems = options.maxItems ?? 200;
  if (!Number.isInteger(maxItems) || maxItems < 1) throw new Error('batchPerTurn: maxItems must be a whole number, 1 or more.');
  let pending: Array<Waiting<I, R>> = [];

  const flush = (): void => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    void runBatch(run, batch);
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ item, resolve, reject });
      if (pending.length >= maxItems) flush();
    });
}

interface Waiting<I, R> {
  item: I;
  resolve: (result: R | PromiseLike<R>) => void;
  reject: (error: unknown) => void;
}

async function runBatch<I, R>(run: BatchRunner<I, R>, batch: Array<Waiting<I, R>>): Promise<void> {
  let results: ReadonlyArray<R | PromiseLike<R>>;
  try {
    results = await run(batch.map(({ item }) => item));
    if (results.length !== batch.length) {
      // The answers that are promises of their own are dropped: their failures must not go unhandled.
      for (const result of results) void Promise.resolve(result).catch(() => undefined);
      throw new Error(`batchPerTurn: ${results.length} answers for ${batch.length} items`);
    }
  } catch (error) {
    for (const waiting of batch) waiting.reject(error);
    return;
  }
  // A promise among the answers settles its own call (resolve adopts it).
  batch.forEach((waiting, index) => waiting.resolve(results[index] as R | PromiseLike<R>));
}
