import type BetterSqlite3 from 'better-sqlite3';
import type { Storage } from '@gatehouse/storage-kysely';
import { openSqlite } from '../sqlite-storage.js';

/**
 * Records the first three words of the SQL of every statement the connection runs (prepared
 * statements are reused, so runs are counted). Call it before any statement is prepared (and kept
 * by the statement cache).
 */
export function recordStatements(database: BetterSqlite3.Database): string[] {
  const executed: string[] = [];
  const prepare = database.prepare.bind(database);
  database.prepare = ((sql: string) => {
    const statement = prepare(sql);
    return new Proxy(statement, {
      get(target, property) {
        // The native getters (reader, busy) need the statement itself as `this`.
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function' || !['run', 'all', 'get', 'iterate'].includes(String(property))) return value;
        return (...args: unknown[]) => {
          executed.push(sql.split(' ').slice(0, 3).join(' '));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }) as typeof database.prepare;
  return executed;
}

/** A migrated in-memory storage whose statements are all recorded (empty `executed` before the part under test). */
export async function openRecordedStorage(): Promise<{ storage: Storage; executed: string[] }> {
  const { storage, database } = await openSqlite({ filename: ':memory:' });
  const executed = recordStatements(database);
  await storage.migrate();
  return { storage, executed };
}
