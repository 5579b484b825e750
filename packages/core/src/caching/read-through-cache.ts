import type { Clock } from '../ports/clock.js';

/** The bounds of a read-through cache. */
export interface ReadThroughCacheOptions {
  /** How long a value read from the repository is served from memory, in milliseconds. */
  ttlMs: number;
  /** At most this many values are kept; the least recently used leaves first. */
  maxEntries: number;
}

/**
 * The memory behind the client and user caches (decisions 0069 and 0079): values read through
 * `read` are kept for `ttlMs`, at most `maxEntries` (least recently used first out). A write made
 * through `change` drops its key before and after, and a read that was under way while any change
 * was made is not kept, so the instance that made a change sees it at once. Nothing is kept for a
 * key the repository does not know. Every value handed out has gone through `freeze`, cached or not.
 */
export function createReadThroughCache<V>(clock: Clock, options: ReadThroughCacheOptions, freeze: (value: V) => V) {
  const maxEntries = Math.max(0, Math.floor(options.maxEntries));
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { value: V; expiresAt: number }>();
  // Counts changes begun or ended: a read that saw this number move may hold an old value.
  let changes = 0;

  return {
    async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
      const now = clock.now().getTime();
      const cached = entries.get(key);
      if (cached !== undefined) {
        entries.delete(key);
        if (cached.expiresAt > now) {
          entries.set(key, cached);
          return cached.value;
        }
      }
      const changesBefore = changes;
      const loaded = await load();
      if (loaded === undefined) return undefined;
      const value = freeze(loaded);
      if (changes === changesBefore && maxEntries > 0 && options.ttlMs > 0) {
        entries.set(key, { value, expiresAt: now + options.ttlMs });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return value;
    },

    async change<T>(key: string, write: () => Promise<T>): Promise<T> {
      changes += 1;
      entries.delete(key);
      try {
        return await write();
      } finally {
        changes += 1;
        entries.delete(key);
      }
    },
  };
}
