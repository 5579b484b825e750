import type { Clock } from '@gatehouse/core';
import type { Storage } from '@gatehouse/storage-sqlite';
import { Gauge, type Registry } from 'prom-client';

/** What the gauges read: the storage's counts and connection state (both optional on a storage). */
export type ObservedStorage = Pick<Storage, 'countActive' | 'connectionStats'>;
type ActiveCounts = Awaited<ReturnType<NonNullable<Storage['countActive']>>>;

/** The counts are queried at most this often: a scrape in between gets the last ones (two counting queries each time). */
export const ACTIVE_COUNTS_MAX_AGE_MS = 15_000;

/**
 * Gauges read when Prometheus scrapes, never on a request's path: live sessions and grants (two
 * counting queries, at most every 15 s), and the connection's state from memory — on PostgreSQL
 * the pool (connections in use, idle, requests waiting for one, the maximum), on SQLite the
 * statements waiting for the one connection or the write gate and the writes in the write thread.
 * The database-wide counts aggregate across `--workers` as `max` (every worker sees the same
 * database), the per-process figures as `sum`.
 *
 * @example
 * observeStorage(metrics.registry, storage, systemClock);
 */
export function observeStorage(registry: Registry, storage: ObservedStorage, clock: Clock): void {
  const { countActive, connectionStats } = storage;
  // The connection's gauges first: prom-client collects in registration order, so they read the
  // state before the counting queries below take a connection.
  const kind = connectionStats?.call(storage).kind;
  if (kind === 'postgres') {
    new Gauge({
      name: 'gatehouse_database_pool_connections',
      help: "The PostgreSQL pool's connections by state: total (open), idle, waiting (requests waiting for a connection), max (the pool's size, GATEHOUSE_DATABASE_POOL_SIZE).",
      labelNames: ['state'] as const,
      registers: [registry],
      aggregator: 'sum',
      collect() {
        const stats = connectionStats?.call(storage);
        if (stats?.kind !== 'postgres') return;
        this.set({ state: 'total' }, stats.total);
        this.set({ state: 'idle' }, stats.idle);
        this.set({ state: 'waiting' }, stats.waiting);
        this.set({ state: 'max' }, stats.max);
      },
    });
  } else if (kind === 'sqlite') {
    new Gauge({
      name: 'gatehouse_sqlite_write_queue',
      help: 'SQLite: statements waiting for the connection or the write gate (waiting), and writes handed to the write thread and not answered yet (in_thread).',
      labelNames: ['state'] as const,
      registers: [registry],
      aggregator: 'sum',
      collect() {
        const stats = connectionStats?.call(storage);
        if (stats?.kind !== 'sqlite') return;
        this.set({ state: 'waiting' }, stats.waiting);
        this.set({ state: 'in_thread' }, stats.inThread);
      },
    });
  }
  if (countActive) {
    let last: { at: number; counts: Promise<ActiveCounts> } | undefined;
    const counts = (): Promise<ActiveCounts> => {
      const now = clock.now();
      if (last === undefined || now.getTime() - last.at >= ACTIVE_COUNTS_MAX_AGE_MS) {
        const counting = countActive.call(storage, now);
        // A failed count is not kept: the next scrape asks again.
        counting.catch(() => (last = undefined));
        last = { at: now.getTime(), counts: counting };
      }
      return last.counts;
    };
    new Gauge({
      name: 'gatehouse_sessions_active',
      help: 'Sign-in sessions neither ended nor expired (counted at most every 15 s, on scrape).',
      registers: [registry],
      aggregator: 'max',
      async collect() {
        // While the database is down the last count stays: a scrape still answers, and
        // gatehouse_storage_available says why (docs/decisions/0100).
        const counted = await counts().catch(() => undefined);
        if (counted !== undefined) this.set(counted.sessions);
      },
    });
    new Gauge({
      name: 'gatehouse_grants_active',
      help: 'Grants (a user\'s consent to a client, or a client-credentials grant) not revoked (counted at most every 15 s, on scrape).',
      registers: [registry],
      aggregator: 'max',
      async collect() {
        const counted = await counts().catch(() => undefined);
        if (counted !== undefined) this.set(counted.grants);
      },
    });
  }
}
