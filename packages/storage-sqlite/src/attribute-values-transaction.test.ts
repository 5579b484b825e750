import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '@gatehouse/storage-kysely';
import { openRecordedStorage } from './test-support/record-statements.js';

describe("the writes of a user's attribute values on SQLite", () => {
  let storage: Storage;
  let executed: string[];

  beforeEach(async () => {
    ({ storage, executed } = await openRecordedStorage());
    const { accounts, attributes } = storage.repositories;
    await accounts.create({ accountKey: 'a1', name: 'Acme' });
    await attributes.create('a1', { key: 'k1', name: 'department' }, 500);
    await attributes.create('a1', { key: 'k2', name: 'division' }, 500);
    await attributes.setUserValues('a1', 'u1', [{ key: 'k2', value: 'North' }]);
  });

  afterEach(async () => {
    await storage.close();
  });

  it('are one synchronous transaction: each key checked, then the upserts and removals, one commit', async () => {
    executed.length = 0;
    expect(await storage.repositories.attributes.setUserValues('a1', 'u1', [{ key: 'k1', value: 'Sales' }, { key: 'k2', value: null }])).toEqual({ unknownKeys: [] });
    expect(executed).toEqual([
      'begin immediate',
      'select "attribute_key" from',
      'select "attribute_key" from',
      'insert into "user_attribute_values"',
      'delete from "user_attribute_values"',
      'commit',
    ]);
    expect(await storage.repositories.attributes.listUserValues('a1', 'u1')).toEqual([{ key: 'k1', name: 'department', value: 'Sales' }]);
  });

  it('write nothing when a key is not an attribute of the account, and name every unknown key', async () => {
    executed.length = 0;
    const result = await storage.repositories.attributes.setUserValues('a1', 'u1', [
      { key: 'k1', value: 'Sales' },
      { key: 'nope', value: 'x' },
      { key: 'k2', value: null },
      { key: 'nope', value: 'y' },
    ]);
    expect(result).toEqual({ unknownKeys: ['nope', 'nope'] });
    expect(executed.filter((statement) => !statement.startsWith('select'))).toEqual(['begin immediate', 'commit']);
    expect(await storage.repositories.attributes.listUserValues('a1', 'u1')).toEqual([{ key: 'k2', name: 'division', value: 'North' }]);
  });
});
