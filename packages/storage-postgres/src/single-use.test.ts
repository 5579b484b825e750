import { OAuthError, storedSecretHash, type Repositories, type TokenResponse } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dropSchema, freshSchemaName, openTestStorage, POSTGRES_URL, warnIfSkipped, saveUnusedCode, seedUserAndClient } from './test-support/postgres.js';

warnIfSkipped('single use');

const CONCURRENT = 50;

/** Waits until `condition` holds (checked every 10 ms), failing after 30 s. */
async function until(condition: () => boolean): Promise<void> {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > 30_000) throw new Error('the condition did not hold within 30 s');
  }
}
const at = new Date(1_700_000_000_000);

async function seedCodeAndGrants(repos: Repositories, codeHash: string, grantIds: string[]): Promise<void> {
  await seedUserAndClient(repos, at);
  for (const grantId of grantIds) {
    await repos.grants.create({ grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.send'], sessionId: null, createdAt: at, revokedAt: null });
  }
  await saveUnusedCode(repos, codeHash, at);
}

describe.skipIf(!POSTGRES_URL)('single use on PostgreSQL', () => {
  const schema = freshSchemaName();
  let first: Awaited<ReturnType<typeof openTestStorage>>;
  let second: Awaited<ReturnType<typeof openTestStorage>>;

  beforeAll(async () => {
    first = await openTestStorage(schema, 10);
    // A second pool on the same schema: another server instance.
    second = await openTestStorage(schema, 10);
  });

  afterAll(async () => {
    await first?.storage.close();
    await second?.storage.close();
    await dropSchema(schema);
  });

  beforeEach(async () => {
    await first.empty();
  });

  it(`lets exactly one of ${CONCURRENT} concurrent grants from one code, spread over two instances' pools, win`, async () => {
    const grantIds = Array.from({ length: CONCURRENT }, (_, index) => `g${index}`);
    await seedCodeAndGrants(first.storage.repositories, 'the-code', []);

    // Another session holds the code's row until every instance has several exchange statements
    // waiting for it: five exchanges per turn of the event loop on each instance, each turn's as one
    // statement (docs/decisions/0175), each statement on its own connection while the earlier ones wait.
    const blocker = new pg.Client({ connectionString: POSTGRES_URL });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(`select 1 from "${schema}".authorization_codes where code_hash = 'the-code' for update`);
    const racing = Promise.all(
      grantIds.map(async (grantId, index) => {
        for (let turn = 0; turn < Math.floor(index / 10); turn += 1) await new Promise((resolve) => setImmediate(resolve));
        return (index % 2 === 0 ? first : second).storage.repositories.grants.createFromCode({
          grant: { grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.send'], sessionId: null, createdAt: at, revokedAt: null },
          codeHash: 'the-code',
          refreshToken: { tokenHash: `r-${grantId}`, grantId, createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
        });
      }),
    );
    // The calls really run side by side, on several connections of each instance.
    await until(() => first.pool.totalCount - first.pool.idleCount > 1 && second.pool.totalCount - second.pool.idleCount > 1);
    await blocker.query('commit');
    await blocker.end();
    const results = await racing;

    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = grantIds[results.indexOf(true)];
    expect((await second.storage.repositories.codes.findByHash('the-code'))?.grantId).toBe(winner);
    // The losers' transactions rolled back: only the winner's grant exists.
    expect((await first.storage.repositories.grants.listActiveByUser('u1')).map((grant) => grant.grantId)).toEqual([winner]);
  }, 60_000);

  it(`lets exactly one of ${CONCURRENT} concurrent rotations of one refresh token win, and leaves its grant one live token`, async () => {
    await seedCodeAndGrants(first.storage.repositories, 'unused', ['g1']);
    await first.storage.repositories.refreshTokens.save({ tokenHash: 'rt', grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null });

    // Within the grace, every loser is a retry that replaces the live token: on two instances at
    // once, the grant's row lock must still leave exactly one live token (docs/decisions/0106).
    const next = (index: number) => ({ tokenHash: `rt-${index}`, grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null });
    const results = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, index) =>
        (index % 2 === 0 ? first : second).storage.repositories.refreshTokens.rotate({ tokenHash: 'rt', next: next(index), at, graceSince: new Date(at.getTime() - 10_000) }),
      ),
    );

    expect(results.filter((result) => result === 'rotated')).toHaveLength(1);
    const tokens = await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => first.storage.repositories.refreshTokens.findByHash(`rt-${index}`)));
    expect(tokens.filter((token) => token && token.rotatedAt === null && token.supersededAt === null)).toHaveLength(1);
  }, 60_000);

  it(`gives exactly one token response for ${CONCURRENT} concurrent exchanges of one code`, async () => {
    const t = await createTestGatehouse({ repositories: first.storage.repositories });
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const redirectUri = client.redirectUris[0] as string;
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri });
    if (check.kind !== 'valid') throw new Error('the authorization request should be valid');
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;

    const outcomes = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, () => t.gatehouse.exchangeCode({ client, code, redirectUri, codeVerifier: undefined })),
    );

    const succeeded = outcomes.filter((outcome): outcome is PromiseFulfilledResult<TokenResponse> => outcome.status === 'fulfilled');
    const failed = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(succeeded).toHaveLength(1);
    for (const { reason } of failed) {
      expect(reason).toBeInstanceOf(OAuthError);
      expect((reason as OAuthError).code).toBe('invalid_grant');
    }
    const repos = first.storage.repositories;
    const refresh = await repos.refreshTokens.findByHash(storedSecretHash((succeeded[0] as PromiseFulfilledResult<{ refresh_token: string }>).value.refresh_token));
    expect((await repos.codes.findByHash(storedSecretHash(code)))?.grantId).toBe(refresh?.grantId);
    // RFC 6749 §4.1.2 (decision 0004): the replays revoked the grant of the first use.
    expect((await repos.grants.findById(refresh?.grantId as string))?.revokedAt).toBeInstanceOf(Date);
  }, 60_000);

  it(`leaves no usable refresh token under an ended session when ${CONCURRENT} logouts race the exchanges of their codes on two instances`, async () => {
    const t = await createTestGatehouse({ repositories: first.storage.repositories });
    // Another instance: logout only reads and ends, so its own ids and clock cannot collide.
    const other = await createTestGatehouse({ repositories: second.storage.repositories });
    const user = await t.seedUser({ password: 'password123' });
    const { client } = await t.seedClient();
    const redirectUri = client.redirectUris[0] as string;
    const rounds = await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        const { sessionToken, session } = await t.gatehouse.signIn({ email: user.email, password: 'password123' });
        const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri });
        if (check.kind !== 'valid') throw new Error('the authorization request should be valid');
        const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: session.sessionId });
        return { sessionToken, code: new URL(redirectTo).searchParams.get('code') as string };
      }),
    );

    const outcomes = await Promise.all(
      rounds.map(async ({ sessionToken, code }, index) => {
        const exchange = () => t.gatehouse.exchangeCode({ client, code, redirectUri, codeVerifier: undefined });
        const logout = () => other.gatehouse.logout(sessionToken);
        // Half start with the logout, half with the exchange.
        if (index % 2 === 0) return (await Promise.allSettled([exchange(), logout()]))[0];
        const [, tokens] = await Promise.allSettled([logout(), exchange()]);
        return tokens;
      }),
    );

    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') {
        expect((outcome.reason as OAuthError).code).toBe('invalid_grant');
        continue;
      }
      const refresh = await t.gatehouse.refresh({ client, refreshToken: outcome.value.refresh_token as string, scope: undefined }).catch((caught: unknown) => caught);
      expect(refresh).toBeInstanceOf(OAuthError);
      expect((refresh as OAuthError).code).toBe('invalid_grant');
    }
    expect(await first.storage.repositories.grants.listActiveByUser(user.userKey)).toEqual([]);
  }, 60_000);
});
