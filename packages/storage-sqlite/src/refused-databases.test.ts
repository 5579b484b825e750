import { writeFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATION_TABLE } from '@gatehouse/storage-kysely';
import { openSqliteStorage } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

// Issue 9: the server refuses a corrupt or newer-schema database with a clear one-line message
// (the CLI prints the error's message as is).

describe('databases that cannot be used', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  beforeEach(() => {
    file = tempDatabaseFile();
  });
  afterEach(() => file.remove());

  it('a file that is not a SQLite database: the message names the file and says so, on one line', async () => {
    writeFileSync(file.filename, 'not a database, just text that happens to be long enough to look like a header'.repeat(20));
    const opening = (async () => {
      const storage = await openSqliteStorage({ filename: file.filename });
      await storage.migrate();
    })();
    await expect(opening).rejects.toThrow(new RegExp(`^${file.filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a SQLite database, or it is damaged`));
    await expect(opening).rejects.toThrow(/^[^\n]+$/);
  });

  it('a database migrated by a newer Gatehouse: the message says so and names the unknown migration', async () => {
    const storage = await openSqliteStorage({ filename: file.filename });
    await storage.migrate();
    await storage.close();
    const raw = new BetterSqlite3(file.filename);
    raw.prepare(`insert into ${MIGRATION_TABLE} (name, timestamp) values (?, ?)`).run('0099_from_the_future', new Date().toISOString());
    raw.close();

    const again = await openSqliteStorage({ filename: file.filename });
    try {
      await expect(again.migrate()).rejects.toThrow(
        'The database was migrated by a newer version of Gatehouse (it has migration 0099_from_the_future, unknown to this version): run that version, or restore a backup made for this one.',
      );
    } finally {
      await again.close();
    }
  });
});
