import { OAuthError, storedSecretHash } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStorage } from './sqlite-storage.js';
import type { Storage } from '@gatehouse/storage-kysely';
import { tempDatabaseFile } from './test-support/temp-file.js';

const EXCHANGES = 50;

describe('single use on a SQLite file', () => {
  let storage: Storage;
  let remove: () => void;

  beforeEach(async () => {
    const file = tempDatabaseFile();
    remove = file.remove;
    storage = await openSqliteStorage({ filename: file.filename });
    await storage.migrate();
  });

  afterEach(async () => {
    await storage.close();
    remove();
  });

  it(`gives exactly one token response for ${EXCHANGES} concurrent exchanges of one code`, async () => {
    const t = await createTestGatehouse({ repositories: storage.repositories });
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] });
    if (check.kind !== 'valid') throw new Error('the authorization request should be valid');
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;

    const outcomes = await Promise.allSettled(
      Array.from({ length: EXCHANGES }, () => t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0] as string, codeVerifier: undefined })),
    );

    const succeeded = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const failed = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(succeeded).toHaveLength(1);
    expect(failed).toHaveLength(EXCHANGES - 1);
    for (const { reason } of failed) {
      expect(reason).toBeInstanceOf(OAuthError);
      expect((reason as OAuthError).code).toBe('invalid_grant');
    }
    // The code records the winner's grant; the losers deleted theirs, and their replays revoked
    // the winner's grant (RFC 6749 §4.1.2: a second use of a code revokes the grant of the first; decision 0004).
    const winner = (succeeded[0] as PromiseFulfilledResult<{ refresh_token: string }>).value;
    const stored = await storage.repositories.codes.findByHash(storedSecretHash(code));
    const refresh = await storage.repositories.refreshTokens.findByHash(storedSecretHash(winner.refresh_token));
    expect(stored?.grantId).toBe(refresh?.grantId);
    expect((await storage.repositories.grants.findById(refresh?.grantId as string))?.revokedAt).toBeInstanceOf(Date);
    expect(await storage.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
  }, 60_000);

  it(`lets exactly one of ${EXCHANGES} concurrent grants from one code win, the losers leaving nothing`, async () => {
    const repos = storage.repositories;
    const t = await createTestGatehouse({ repositories: repos });
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const at = new Date(1_700_000_000_000);
    const grantIds = Array.from({ length: EXCHANGES }, (_, index) => `grant${index}`);
    await repos.codes.save({
      codeHash: 'the-code',
      clientId: client.clientId,
      userKey: user.userKey,
      redirectUri: client.redirectUris[0] as string,
      scopes: client.scopes,
      codeChallenge: null,
      sessionId: null,
      createdAt: at,
      expiresAt: new Date(at.getTime() + 60_000),
      consumedAt: null,
      grantId: null,
    });

    const results = await Promise.all(
      grantIds.map((grantId) =>
        repos.grants.createFromCode({
          grant: { grantId, clientId: client.clientId, userKey: user.userKey, scopes: client.scopes, sessionId: null, createdAt: at, revokedAt: null },
          codeHash: 'the-code',
          refreshToken: { tokenHash: `refresh-${grantId}`, grantId, createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
        }),
      ),
    );

    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = grantIds[results.indexOf(true)];
    expect((await repos.codes.findByHash('the-code'))?.grantId).toBe(winner);
    expect((await repos.grants.listActiveByUser(user.userKey)).map((grant) => grant.grantId)).toEqual([winner]);
  }, 60_000);
});
