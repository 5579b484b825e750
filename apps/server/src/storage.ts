import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openSqliteStorage, type Storage } from '@gatehouse/storage-sqlite';
import type { Config } from './config.js';

export type { Storage } from '@gatehouse/storage-sqlite';

/**
 * Opens the database the configuration names (PostgreSQL when GATEHOUSE_DATABASE_URL is set,
 * else the SQLite file, whose directory is created) and applies pending migrations.
 */
export async function openStorage(database: Config['database']): Promise<Storage> {
  let storage: Storage;
  if (database.kind === 'postgres') {
    // Loaded only when configured: a SQLite deployment never loads the pg driver.
    const { openPostgresStorage } = await import('@gatehouse/storage-postgres');
    storage = await openPostgresStorage({
      connectionString: database.connectionString,
      poolSize: database.poolSize,
      ...(database.schema === undefined ? {} : { schema: database.schema }),
    });
  } else {
    const filename = database.filename === ':memory:' ? database.filename : resolve(database.filename);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    storage = await openSqliteStorage({ filename, busyTimeoutMs: 5000, synchronous: database.synchronous });
  }
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw error;
  }
  return storage;
}
