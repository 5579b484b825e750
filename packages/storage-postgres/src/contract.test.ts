import { describeRepositoryContract } from '@gatehouse/core/testing';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropSchema, freshSchemaName, openTestStorage, POSTGRES_URL, warnIfSkipped } from './test-support/postgres.js';

warnIfSkipped('the repository contract');

describe.skipIf(!POSTGRES_URL)('PostgreSQL', () => {
  const schema = freshSchemaName();
  let opened: Promise<Awaited<ReturnType<typeof openTestStorage>>> | undefined;

  afterAll(async () => {
    if (opened) await (await opened).storage.close();
    await dropSchema(schema);
  });

  // One migrated schema for this file; every test starts from empty tables.
  describeRepositoryContract(
    `PostgreSQL (schema ${schema})`,
    async () => {
      opened ??= openTestStorage(schema);
      const storage = await opened;
      await storage.empty();
      return { repositories: storage.storage.repositories };
    },
    { describe, it, expect, beforeEach, afterEach },
  );
});
