import { describeRepositoryContract } from '@gatehouse/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const runner = { describe, it, expect, beforeEach, afterEach };

describeRepositoryContract(
  'SQLite file',
  async () => {
    const file = tempDatabaseFile();
    const storage = await openSqliteStorage({ filename: file.filename });
    await storage.migrate();
    return {
      repositories: storage.repositories,
      close: async () => {
        await storage.close();
        file.remove();
      },
    };
  },
  runner,
);

// The exchange's statements on the write thread carry the prefix too (decision 0075).
describeRepositoryContract(
  'SQLite file with a table prefix',
  async () => {
    const file = tempDatabaseFile();
    const storage = await openSqliteStorage({ filename: file.filename, tablePrefix: 'gh_' });
    await storage.migrate();
    return {
      repositories: storage.repositories,
      close: async () => {
        await storage.close();
        file.remove();
      },
    };
  },
  runner,
);

describeRepositoryContract(
  'SQLite :memory:',
  async () => {
    const storage = await openSqliteStorage({ filename: ':memory:' });
    await storage.migrate();
    return { repositories: storage.repositories, close: () => storage.close() };
  },
  runner,
);
