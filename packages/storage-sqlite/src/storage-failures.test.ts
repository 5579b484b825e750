import { StorageUnavailableError } from '@gatehouse/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from './sqlite-storage.js';
import { asStorageFailure } from './storage-failures.js';
import { FIXTURE_NOW, seedClientAndCodes } from './test-support/exchange-fixtures.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

// Issue 35: a database that cannot be used now (full, read-only, failing, locked) is an outage,
// thrown as a StorageUnavailableError whatever path the statement took (docs/decisions/0100).

describe('asStorageFailure', () => {
  it("reads SQLite's codes for an outage, extended codes included, and leaves every other error as it is", () => {
    const cases: Array<[string, string]> = [
      ['SQLITE_BUSY', 'busy'],
      ['SQLITE_BUSY_SNAPSHOT', 'busy'],
      ['SQLITE_LOCKED', 'busy'],
      ['SQLITE_FULL', 'full'],
      ['SQLITE_READONLY', 'read_only'],
      ['SQLITE_READONLY_DBMOVED', 'read_only'],
      ['SQLITE_IOERR_WRITE', 'io'],
      ['SQLITE_CANTOPEN', 'io'],
    ];
    for (const [code, reason] of cases) {
      const driverError = Object.assign(new Error('x'), { code });
      const failure = asStorageFailure(driverError);
      expect(failure, code).toBeInstanceOf(StorageUnavailableError);
      expect(failure, code).toMatchObject({ reason, cause: driverError });
    }
    const unique = Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(asStorageFailure(unique)).toBe(unique);
    const plain = new Error('a bug');
    expect(asStorageFailure(plain)).toBe(plain);
  });
});

describe('a SQLite storage whose database cannot be written', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;
  const now = FIXTURE_NOW;
  const grant = (grantId: string) => ({ grantId, clientId: 'c1', userKey: null, scopes: [], sessionId: null, createdAt: now, revokedAt: null });

  beforeEach(async () => {
    file = tempDatabaseFile();
    // Without the write thread: every statement below runs on the serving connection.
    opened = await openSqlite({ filename: file.filename, writeThread: false });
    await opened.storage.migrate();
    await seedClientAndCodes(opened.storage, ['code0']);
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  const expectUnavailable = async (work: Promise<unknown>, reason: string) => {
    const failure = await work.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect(failure).toMatchObject({ reason });
  };

  it('throws full when the file cannot grow: one statement, a transaction and kysely’s path alike; nothing is half-written', async () => {
    const { database, storage } = opened;
    // The file may not grow by a single page (what a full disk does to SQLite).
    database.pragma(`max_page_count = ${database.pragma('page_count', { simple: true }) as number}`);
    const big = 'x'.repeat(3000);
    const writes = Array.from({ length: 20 }, (_, index) => storage.repositories.accounts.create({ accountKey: `a${index}`, name: big }));
    const outcomes = await Promise.allSettled(writes);
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')?.reason as unknown;
    expect(failure).toBeInstanceOf(StorageUnavailableError);
    expect(failure).toMatchObject({ reason: 'full' });
    await expectUnavailable(
      storage.repositories.grants.createFromCode({
        grant: { ...grant('g0'), userKey: 'u1', scopes: ['messaging.v1.read'] },
        codeHash: 'code0',
        refreshToken: { tokenHash: `r0${big}`, grantId: 'g0', createdAt: now, lastUsedAt: now, rotatedAt: null, supersededAt: null },
      }),
      'full',
    );
    expect(database.inTransaction).toBe(false);
    // The code's exchange rolled back: it is still unused, and can be exchanged once there is room.
    expect(await storage.repositories.codes.findByHash('code0')).toMatchObject({ consumedAt: null });
    database.pragma('max_page_count = 1073741823');
    expect(await storage.repositories.grants.createFromCode({ grant: { ...grant('g0'), userKey: 'u1' }, codeHash: 'code0', refreshToken: { tokenHash: 'r0', grantId: 'g0', createdAt: now, lastUsedAt: now, rotatedAt: null, supersededAt: null } })).toBe(true);
  });

  it('throws read_only when the connection may not write, and reads still work', async () => {
    const { database, storage } = opened;
    database.pragma('query_only = 1');
    await expectUnavailable(storage.repositories.grants.create(grant('cc1')), 'read_only');
    await expectUnavailable(storage.repositories.grants.revoke('none', now), 'read_only');
    expect(await storage.repositories.clients.findById('c1')).toMatchObject({ clientId: 'c1' });
    database.pragma('query_only = 0');
    await storage.repositories.grants.create(grant('cc1'));
    expect(await storage.repositories.grants.findById('cc1')).toBeDefined();
  });
});
