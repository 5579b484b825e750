import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Storage } from '@gatehouse/storage-kysely';
import { seedClientAndCodes } from './test-support/exchange-fixtures.js';
import { openRecordedStorage } from './test-support/record-statements.js';

describe('the writes of a code exchange on SQLite', () => {
  let storage: Storage;
  let executed: string[];

  beforeEach(async () => {
    ({ storage, executed } = await openRecordedStorage());
    await seedClientAndCodes(storage, ['code1']);
  });

  afterEach(async () => {
    await storage.close();
  });

  const exchange = (grantId: string, tokenHash: string) => {
    const at = new Date('2026-01-01T00:00:10Z');
    return storage.repositories.grants.createFromCode({
      grant: { grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.read'], sessionId: null, createdAt: at, revokedAt: null },
      codeHash: 'code1',
      refreshToken: { tokenHash, grantId, createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
    });
  };

  it('are one transaction: one commit (one fsync) for the grant, the consumed code and the refresh token', async () => {
    executed.length = 0;
    expect(await exchange('g1', 'r1')).toBe(true);
    expect(executed).toEqual(['begin immediate', 'insert into "grants"', 'update "authorization_codes" set', 'insert into "refresh_tokens"', 'commit']);
  });

  it('are rolled back when the code was already consumed', async () => {
    expect(await exchange('g1', 'r1')).toBe(true);
    executed.length = 0;
    expect(await exchange('g2', 'r2')).toBe(false);
    expect(executed).toEqual(['begin immediate', 'insert into "grants"', 'update "authorization_codes" set', 'rollback']);
    expect(await storage.repositories.grants.findById('g2')).toBeUndefined();
  });
});
