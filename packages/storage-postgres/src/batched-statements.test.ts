import type { Repositories } from '@gatehouse/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dropSchema, freshSchemaName, openTestStorage, POSTGRES_URL, warnIfSkipped, saveUnusedCode, seedUserAndClient } from './test-support/postgres.js';

warnIfSkipped('one statement per turn');

const at = new Date(1_700_000_000_000);
const later = (ms: number) => new Date(at.getTime() + ms);

type Exchange = Parameters<Repositories['grants']['createFromCode']>[0];

/** The exchange of `codeHash` by a new grant `grantId` (refresh token `r-<grantId>`). */
function exchangeOf(codeHash: string, grantId: string, sessionId: string | null = null): Exchange {
  return {
    grant: { grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.send'], resources: ['https://api.example/'], sessionId, createdAt: at, revokedAt: null },
    codeHash,
    refreshToken: { tokenHash: `r-${grantId}`, grantId, createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
  };
}

describe.skipIf(!POSTGRES_URL)('one statement per turn of the event loop, and a rotation in one, on PostgreSQL (docs/decisions/0175)', () => {
  const schema = freshSchemaName();
  let opened: Awaited<ReturnType<typeof openTestStorage>>;
  let repos: Repositories;
  /** Connections taken from the pool: one per statement outside a transaction. */
  let checkouts = 0;

  beforeAll(async () => {
    opened = await openTestStorage(schema, 10);
    repos = opened.storage.repositories;
    opened.pool.on('acquire', () => (checkouts += 1));
  }, 60_000);

  afterAll(async () => {
    await opened?.storage.close();
    await dropSchema(schema);
  });

  beforeEach(async () => {
    await opened.empty();
    await seedUserAndClient(repos, at);
  });

  /** Saves an unused code of u1 for c1, under `sessionId` if given. */
  const saveCode = (codeHash: string, sessionId: string | null = null) => saveUnusedCode(repos, codeHash, at, sessionId);

  /** Runs `calls` in one turn and answers their results and the statements they took. */
  async function inOneTurn<T>(calls: () => Array<Promise<T>>): Promise<{ results: T[]; statements: number }> {
    const before = checkouts;
    const results = await Promise.all(calls());
    return { results, statements: checkouts - before };
  }

  it('reads the grants of one turn in one statement, each call answered with its own (or none)', async () => {
    for (const grantId of ['g1', 'g2', 'g3']) await repos.grants.create({ ...exchangeOf('-', grantId).grant, scopes: [grantId] });
    const { results, statements } = await inOneTurn(() => ['g1', 'gone', 'g3', 'g1', 'g2'].map((id) => repos.grants.findById(id)));
    expect(results.map((grant) => grant?.scopes)).toEqual([['g1'], undefined, ['g3'], ['g1'], ['g2']]);
    expect(results[0]?.resources).toEqual(['https://api.example/']);
    expect(statements).toBe(1);
    // A later turn: a statement of its own.
    expect((await inOneTurn(() => [repos.grants.findById('g2')])).statements).toBe(1);
  });

  it("reads the codes, and the refresh tokens with their grant and owner, of one turn in one statement each", async () => {
    await saveCode('code-a');
    await saveCode('code-b');
    await repos.grants.create(exchangeOf('-', 'g1').grant);
    await repos.refreshTokens.save({ tokenHash: 'rt-1', grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null });

    const codes = await inOneTurn(() => [
      repos.codes.findByHashWithOwnerEmail!('code-b'),
      repos.codes.findByHashWithOwnerEmail!('missing'),
      repos.codes.findByHashWithOwnerEmail!('code-a'),
    ]);
    expect(codes.results.map((found) => found && [found.code.codeHash, found.ownerEmail])).toEqual([['code-b', 'u1@example.com'], undefined, ['code-a', 'u1@example.com']]);
    expect(codes.statements).toBe(1);

    const tokens = await inOneTurn(() => [repos.refreshTokens.findWithGrantAndOwnerEmail!('rt-1'), repos.refreshTokens.findWithGrantAndOwnerEmail!('rt-none'), repos.refreshTokens.findWithGrant('rt-1')]);
    expect(tokens.results[0]).toMatchObject({ token: { tokenHash: 'rt-1', grantId: 'g1' }, grant: { grantId: 'g1', clientId: 'c1', createdAt: at }, ownerEmail: 'u1@example.com' });
    expect(tokens.results[1]).toBeUndefined();
    expect(tokens.results[2]).toMatchObject({ token: { tokenHash: 'rt-1' }, grant: { grantId: 'g1' } });
    // Two queries (with and without the owner), one statement each.
    expect(tokens.statements).toBe(2);
  });

  it('exchanges the codes of one turn in one statement: each its own grant and refresh token', async () => {
    for (const code of ['k1', 'k2', 'k3', 'k4']) await saveCode(code);
    const { results, statements } = await inOneTurn(() => ['k1', 'k2', 'k3', 'k4'].map((code, index) => repos.grants.createFromCode(exchangeOf(code, `g${index}`))));
    expect(results).toEqual([true, true, true, true]);
    expect(statements).toBe(1);
    for (const [index, code] of ['k1', 'k2', 'k3', 'k4'].entries()) {
      expect((await repos.codes.findByHash(code))?.grantId).toBe(`g${index}`);
      expect(await repos.grants.findById(`g${index}`)).toMatchObject({ clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.send'], resources: ['https://api.example/'], createdAt: at, revokedAt: null });
      expect(await repos.refreshTokens.findByHash(`r-g${index}`)).toMatchObject({ grantId: `g${index}`, createdAt: at, lastUsedAt: at, rotatedAt: null });
    }
  });

  it('lets one of two exchanges of one code in the same statement win (RFC 6749 §4.1.2), and refuses a consumed or unknown code', async () => {
    await saveCode('twice');
    await saveCode('used');
    expect(await repos.grants.createFromCode(exchangeOf('used', 'first'))).toBe(true);

    const { results, statements } = await inOneTurn(() => [
      repos.grants.createFromCode(exchangeOf('twice', 'a')),
      repos.grants.createFromCode(exchangeOf('twice', 'b')),
      repos.grants.createFromCode(exchangeOf('used', 'c')),
      repos.grants.createFromCode(exchangeOf('unknown', 'd')),
    ]);
    expect(statements).toBe(1);
    expect(results.slice(2)).toEqual([false, false]);
    expect(results.slice(0, 2).filter(Boolean)).toHaveLength(1);
    const winner = results[0] ? 'a' : 'b';
    expect((await repos.codes.findByHash('twice'))?.grantId).toBe(winner);
    const live = (await repos.grants.listActiveByUser('u1')).map((grant) => grant.grantId).sort();
    expect(live).toEqual(['first', winner].sort());
    // No refresh token for a grant that was not written.
    for (const loser of ['a', 'b', 'c', 'd'].filter((id) => id !== winner)) expect(await repos.refreshTokens.findByHash(`r-${loser}`)).toBeUndefined();
  });

  it('refuses, in the same statement, the code of a session that has ended (docs/decisions/0005)', async () => {
    for (const sessionId of ['live', 'ended']) {
      await repos.sessions.create({ sessionId, userKey: 'u1', createdAt: at, authenticatedAt: at, expiresAt: later(3_600_000), endedAt: null });
    }
    await repos.sessions.end('ended', at);
    await saveCode('of-live', 'live');
    await saveCode('of-ended', 'ended');
    const { results, statements } = await inOneTurn(() => [
      repos.grants.createFromCode(exchangeOf('of-ended', 'g-ended', 'ended')),
      repos.grants.createFromCode(exchangeOf('of-live', 'g-live', 'live')),
    ]);
    expect(results).toEqual([false, true]);
    expect(statements).toBe(1);
    expect(await repos.grants.findById('g-ended')).toBeUndefined();
  });

  it('answers each exchange alone when the one statement fails: one exchange whose write is refused does not fail the others', async () => {
    for (const code of ['x1', 'x2', 'x3']) await saveCode(code);
    // A grant id that exists already: its insert violates the primary key, which fails the whole statement.
    await repos.grants.create(exchangeOf('-', 'taken').grant);
    const outcomes = await Promise.allSettled([
      repos.grants.createFromCode(exchangeOf('x1', 'fresh-1')),
      repos.grants.createFromCode(exchangeOf('x2', 'taken')),
      repos.grants.createFromCode(exchangeOf('x3', 'fresh-3')),
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: true });
    expect(outcomes[1]?.status).toBe('rejected');
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: true });
    // The refused exchange wrote nothing: its code is still unused.
    expect(await repos.codes.findByHash('x2')).toMatchObject({ consumedAt: null, grantId: null });
    expect((await repos.codes.findByHash('x3'))?.grantId).toBe('fresh-3');
  });

  it('touches the refresh tokens of one turn in one statement, each at its own time (a token touched twice: its latest)', async () => {
    await repos.grants.create(exchangeOf('-', 'g1').grant);
    for (const tokenHash of ['t1', 't2', 't3']) await repos.refreshTokens.save({ tokenHash, grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null });
    const { statements } = await inOneTurn(() => [
      repos.refreshTokens.touch('t1', later(1000)),
      repos.refreshTokens.touch('t2', later(5000)),
      repos.refreshTokens.touch('t1', later(3000)),
      repos.refreshTokens.touch('unknown', later(1000)),
    ]);
    expect(statements).toBe(1);
    expect((await repos.refreshTokens.findByHash('t1'))?.lastUsedAt).toEqual(later(3000));
    expect((await repos.refreshTokens.findByHash('t2'))?.lastUsedAt).toEqual(later(5000));
    expect((await repos.refreshTokens.findByHash('t3'))?.lastUsedAt).toEqual(at);
  });

  it('rotates a refresh token in one statement: the grant locked, the token rotated, the next one saved', async () => {
    await repos.grants.create(exchangeOf('-', 'g1').grant);
    await repos.refreshTokens.save({ tokenHash: 'rt-1', grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null });
    const next = { tokenHash: 'rt-2', grantId: 'g1', createdAt: later(1000), lastUsedAt: later(1000), rotatedAt: null, supersededAt: null };
    const { results, statements } = await inOneTurn(() => [repos.refreshTokens.rotate({ tokenHash: 'rt-1', next, at: later(1000), graceSince: at })]);
    expect(results).toEqual(['rotated']);
    expect(statements).toBe(1);
    expect(await repos.refreshTokens.findByHash('rt-1')).toMatchObject({ rotatedAt: later(1000), supersededAt: null });
    expect(await repos.refreshTokens.findByHash('rt-2')).toEqual(next);
  });

  it('leaves a rotation that does not rotate to the transaction: a retry within the grace replaces, a replay after it or an unknown token is reused', async () => {
    await repos.grants.create(exchangeOf('-', 'g1').grant);
    await repos.refreshTokens.save({ tokenHash: 'rt-1', grantId: 'g1', createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null });
    const next = (tokenHash: string, ms: number) => ({ tokenHash, grantId: 'g1', createdAt: later(ms), lastUsedAt: later(ms), rotatedAt: null, supersededAt: null });
    expect(await repos.refreshTokens.rotate({ tokenHash: 'rt-1', next: next('rt-2', 1000), at: later(1000), graceSince: at })).toBe('rotated');

    // The same token again within the grace (a lost response): the live token rt-2 is superseded, rt-3 is the one live token.
    const retry = await inOneTurn(() => [repos.refreshTokens.rotate({ tokenHash: 'rt-1', next: next('rt-3', 2000), at: later(2000), graceSince: later(500) })]);
    expect(retry.results).toEqual(['replaced']);
    expect(retry.statements).toBeGreaterThan(1);
    expect(await repos.refreshTokens.findByHash('rt-2')).toMatchObject({ supersededAt: later(2000) });
    expect(await repos.refreshTokens.findByHash('rt-3')).toMatchObject({ rotatedAt: null, supersededAt: null });

    // After the grace, and a token that does not exist: reused, nothing written.
    expect(await repos.refreshTokens.rotate({ tokenHash: 'rt-1', next: next('rt-4', 9000), at: later(9000), graceSince: later(5000) })).toBe('reused');
    expect(await repos.refreshTokens.rotate({ tokenHash: 'gone', next: next('rt-5', 9000), at: later(9000), graceSince: later(5000) })).toBe('reused');
    for (const tokenHash of ['rt-4', 'rt-5']) expect(await repos.refreshTokens.findByHash(tokenHash)).toBeUndefined();
    expect(await repos.refreshTokens.findByHash('rt-3')).toMatchObject({ rotatedAt: null, supersededAt: null });
  });

  it('reads the failure counts asked in one turn in one statement, each caller answered for its own keys', async () => {
    const { failedAttempts } = opened.storage;
    const T0 = 1_700_000_000_000;
    await failedAttempts.recordFailure([{ key: 'client:a', max: 5 }], T0, 60_000);
    await failedAttempts.recordFailure([{ key: 'client:b', max: 5 }], T0 + 10, 60_000);
    const { results, statements } = await inOneTurn(() => [
      failedAttempts.recentFailures([{ key: 'client:a', max: 5 }, { key: 'ip:1', max: 5 }], T0 - 1),
      failedAttempts.recentFailures([{ key: 'client:b', max: 5 }], T0 + 5),
      failedAttempts.recentFailures([{ key: 'client:a', max: 5 }], T0),
    ]);
    expect(results).toEqual([[[T0], []], [[T0 + 10]], [[]]]);
    expect(statements).toBe(1);
  });
});
