import { describeRepositoryContract } from '@gatehouse/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type SqliteFileOptions } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const runner = { describe, it, expect, beforeEach, afterEach };

/** A migrated storage on a fresh file, removed on close. */
const onFile = (options: Omit<SqliteFileOptions, 'filename'> = {}) => async () => {
  const file = tempDatabaseFile();
  const storage = await openSqliteStorage({ filename: file.filename, ...options });
  await storage.migrate();
  return {
    repositories: storage.repositories,
    close: async () => {
      await storage.close();
      file.remove();
    },
  };
};

describeRepositoryContract('SQLite file', onFile(), runner);

// The exchange's statements on the write thread carry the prefix too (decision 0075).
describeRepositoryContract('SQLite file with a table prefix', onFile({ tablePrefix: 'gh_' }), runner);

describeRepositoryContract(
  'SQLite :memory:',
  async () => {
    const storage = await openSqliteStorage({ filename: ':memory:' });
    await storage.migrate();
    return { repositories: storage.repositories, close: () => storage.close() };
  },
  runner,
);
