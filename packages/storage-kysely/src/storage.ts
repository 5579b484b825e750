import type { Repositories } from '@gatehouse/core';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A database with the core's repositories: what the server composes. */
export interface Storage {
  repositories: Repositories;
  /** Applies pending migrations; harmless to run again or from several processes. */
  migrate(): Promise<void>;
  /** True when the database answers (readiness). */
  ping(): Promise<boolean>;
  /** Finishes and closes the connection(s); the storage is unusable afterwards. */
  close(): Promise<void>;
}

/** `Storage.ping` for any kysely database: true when `select 1` answers. */
export async function pingDatabase(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
