/**
 * What a failure is counted against. Each scope has its own store capacity, so a flood of keys
 * in one scope (per-IP keys are the cheapest to make) never evicts the counters of another.
 */
export type LimitScope = 'ip' | 'email' | 'client';

/** One key to count failures under, with its own ceiling. */
export interface LimitKey {
  scope: LimitScope;
  key: string;
  /** Failures allowed in the window; the store never needs to keep more than this many per key. */
  max: number;
}

/**
 * Where failure times are kept: in memory for one process (`createMemoryFailureStore`, the
 * default), or in a database shared by every instance (apps/server builds one on PostgreSQL).
 * Times are epoch milliseconds from the caller's clock.
 */
export interface FailureStore {
  /** For each key, in the order given, its failure times later than `since`, oldest first. */
  recentFailures(keys: readonly LimitKey[], since: number): Promise<number[][]>;
  /** Adds one failure at `at` to each key, keeping only the newest `max` within `windowMs` of `at`. */
  recordFailure(keys: readonly LimitKey[], at: number, windowMs: number): Promise<void>;
  /**
   * Adds a failure at `at` to `key` only while it has fewer than `key.max` failures later than
   * `at - windowMs`, in one atomic step, so that attempts running at the same time on any number
   * of instances never get past `max` (docs/decisions/0181-sign-in-attempts-admitted-atomically.md).
   * Undefined when it added one; else the key's failure times in the window, oldest first.
   */
  admitFailure(key: LimitKey, at: number, windowMs: number): Promise<number[] | undefined>;
  /** Removes one failure at `at` from each key (if it is there): an admitted attempt that did not fail. */
  withdrawFailure(keys: readonly LimitKey[], at: number): Promise<void>;
}

export const DEFAULT_MAX_KEYS_PER_SCOPE = 100_000;

/**
 * An in-memory `FailureStore` holding at most `maxKeysPerScope` keys per scope, evicting the key
 * that failed least recently. A Map keeps insertion order, so moving a key to the end on each
 * failure and dropping the first key when full are both O(1): no operation walks the map.
 *
 * @example
 * const store = createMemoryFailureStore({ maxKeysPerScope: 10_000 });
 * await store.recordFailure([{ scope: 'email', key: 'ada@example.com', max: 5 }], Date.now(), 300_000);
 */
export function createMemoryFailureStore(options: { maxKeysPerScope?: number } = {}): FailureStore {
  const capacity = options.maxKeysPerScope ?? DEFAULT_MAX_KEYS_PER_SCOPE;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('maxKeysPerScope must be a whole number, 1 or more.');
  /** Per scope: failure times per key, oldest first, least recently failed key first. */
  const scopes = new Map<LimitScope, Map<string, number[]>>();
  const mapOf = (scope: LimitScope): Map<string, number[]> => {
    let map = scopes.get(scope);
    if (!map) scopes.set(scope, (map = new Map()));
    return map;
  };

  return {
    async recentFailures(keys, since) {
      return keys.map(({ scope, key }) => {
        const map = mapOf(scope);
        const times = map.get(key);
        if (!times) return [];
        const live = times.filter((time) => time > since);
        if (live.length === 0) map.delete(key);
        return live;
      });
    },

    async recordFailure(keys, at, windowMs) {
      for (const { scope, key, max } of keys) record(mapOf(scope), key, max, at, windowMs);
    },

    // Synchronous between the read and the write: one event loop admits one attempt at a time.
    async admitFailure({ scope, key, max }, at, windowMs) {
      const map = mapOf(scope);
      const live = (map.get(key) ?? []).filter((time) => time > at - windowMs);
      if (live.length >= max) return live;
      record(map, key, max, at, windowMs);
      return undefined;
    },

    async withdrawFailure(keys, at) {
      for (const { scope, key } of keys) {
        const times = mapOf(scope).get(key);
        const index = times?.indexOf(at) ?? -1;
        if (index >= 0) times?.splice(index, 1);
      }
    },
  };

  function record(map: Map<string, number[]>, key: string, max: number, at: number, windowMs: number): void {
    const live = (map.get(key) ?? []).filter((time) => time > at - windowMs);
    live.push(at);
    // Delete then set: the key moves to the end, as the most recently failed.
    map.delete(key);
    map.set(key, live.slice(-max));
    if (map.size > capacity) map.delete(map.keys().next().value as string);
  }
}
