import type { Interaction } from '../domain/model.js';
import { aCode, aGrant, anInteraction, aRefreshToken, aSession, at, exchangeACode, seedBasics, sorted, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

const CONCURRENT_CALLS = 50;

/** Authorization codes, grants, refresh tokens and sign-in sessions. */
export function describeTokenContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  beforeEach(async () => {
    await seedBasics(repos());
  });

  describe('authorization codes', () => {
    it('round-trips a code with and without its optional parts', async () => {
      const bare = aCode('hash-bare');
      const full = aCode('hash-full', { codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', sessionId: 'session1', scopes: ['messaging.v1.read'] });
      await repos().codes.save(bare);
      await repos().codes.save(full);
      expect(await repos().codes.findByHash('hash-bare')).toEqual(bare);
      expect(await repos().codes.findByHash('hash-full')).toEqual(full);
      expect(await repos().codes.findByHash('hash-none')).toBeUndefined();
    });

    it('keeps whether the authorization request included its redirect_uri, by every read (docs/decisions/0182)', async () => {
      const defaulted = aCode('defaulted', { redirectUriIncluded: false });
      await repos().codes.save(defaulted);
      await repos().codes.save(aCode('named', { redirectUriIncluded: true }));
      await repos().codes.save(aCode('unsaid'));
      // Read in one turn: where the storage batches its reads, in one statement (docs/decisions/0175).
      const [found, named, unsaid] = await Promise.all(['defaulted', 'named', 'unsaid'].map((hash) => repos().codes.findByHash(hash)));
      expect(found).toEqual(defaulted);
      // Absent means included (the stricter rule): a storage may read an included one back either way.
      expect(named?.redirectUriIncluded ?? true).toBe(true);
      expect(unsaid?.redirectUriIncluded ?? true).toBe(true);
      const codes = repos().codes;
      if (codes.findByHashWithOwnerEmail !== undefined) expect((await codes.findByHashWithOwnerEmail('defaulted'))?.code).toEqual(defaulted);
    });

    it("reads a code with its owner's e-mail in one read, when the repository can (docs/decisions/0172)", async () => {
      const codes = repos().codes;
      // Optional in the port: a repository without it leaves the exchange to read the owner apart.
      // Gatehouse's own users are the product part's: a storage without them has no owner's e-mail to join (docs/decisions/0161).
      const users = repos().users;
      if (codes.findByHashWithOwnerEmail === undefined || users === undefined) return;
      const code = aCode('of-user1', { sessionId: 'session1', scopes: ['messaging.v1.read'] });
      await codes.save(code);
      await codes.save(aCode('of-nobody', { userKey: 'gone' }));
      expect(await codes.findByHashWithOwnerEmail('of-user1')).toEqual({ code, ownerEmail: (await users.findByKey('user1'))?.email });
      // The owner is gone: the code, without an e-mail (the exchange then answers invalid_grant).
      expect(await codes.findByHashWithOwnerEmail('of-nobody')).toEqual({ code: aCode('of-nobody', { userKey: 'gone' }), ownerEmail: undefined });
      expect(await codes.findByHashWithOwnerEmail('hash-none')).toBeUndefined();
    });

    it('is consumed once: the first exchange wins and records its grant, later ones fail and leave the code as it was', async () => {
      await repos().codes.save(aCode('h'));
      const exchange = (grantId: string, codeHash = 'h') =>
        repos().grants.createFromCode({ grant: aGrant(grantId, { createdAt: at(30, 5) }), codeHash, refreshToken: aRefreshToken(`r-${grantId}`, grantId) });
      expect(await exchange('g1')).toBe(true);
      expect(await exchange('g2')).toBe(false);
      expect(await repos().codes.findByHash('h')).toEqual(aCode('h', { consumedAt: at(30, 5), grantId: 'g1' }));
      expect(await exchange('g3', 'unknown')).toBe(false);
    });

    it('creates a grant from a code in one step: the grant, the code consumed by it and the refresh token', async () => {
      await repos().codes.save(aCode('h'));
      const grant = aGrant('g1', { createdAt: at(30, 5) });
      expect(await repos().grants.createFromCode({ grant, codeHash: 'h', refreshToken: aRefreshToken('r1', 'g1') })).toBe(true);
      expect(await repos().grants.findById('g1')).toEqual(grant);
      expect(await repos().codes.findByHash('h')).toEqual(aCode('h', { consumedAt: at(30, 5), grantId: 'g1' }));
      expect(await repos().refreshTokens.findByHash('r1')).toEqual(aRefreshToken('r1', 'g1'));
    });

    it('creates a grant from a code without a refresh token (a client that may not refresh, docs/decisions/0188): the grant and the code consumed by it', async () => {
      await repos().codes.save(aCode('h'));
      const grant = aGrant('g1', { createdAt: at(30, 5) });
      expect(await repos().grants.createFromCode({ grant, codeHash: 'h' })).toBe(true);
      expect(await repos().grants.findById('g1')).toEqual(grant);
      expect(await repos().codes.findByHash('h')).toEqual(aCode('h', { consumedAt: at(30, 5), grantId: 'g1' }));
      expect(await repos().grants.createFromCode({ grant: aGrant('g2'), codeHash: 'h' })).toBe(false);
      expect(await repos().grants.findById('g2')).toBeUndefined();
    });

    it('writes what each of several concurrent exchanges was given, with a refresh token or without', async () => {
      const indexes = Array.from({ length: 8 }, (_, index) => index);
      for (const index of indexes) await repos().codes.save(aCode(`mixed${index}`));
      // Sent together (one turn): a repository that batches the exchanges of a turn gets both kinds in one batch.
      const results = await Promise.all(
        indexes.map((index) =>
          repos().grants.createFromCode({ grant: aGrant(`gm${index}`), codeHash: `mixed${index}`, ...(index % 2 === 0 ? { refreshToken: aRefreshToken(`rm${index}`, `gm${index}`) } : {}) }),
        ),
      );
      expect(results).toEqual(indexes.map(() => true));
      for (const index of indexes) {
        expect((await repos().grants.findById(`gm${index}`))?.grantId).toBe(`gm${index}`);
        expect((await repos().codes.findByHash(`mixed${index}`))?.grantId).toBe(`gm${index}`);
        expect(await repos().refreshTokens.findByHash(`rm${index}`)).toEqual(index % 2 === 0 ? aRefreshToken(`rm${index}`, `gm${index}`) : undefined);
      }
      // Each grant is written knowing which kind it is: past its access token's life, the purge takes
      // those made without a refresh token and keeps the others (docs/decisions/0193).
      expect(await repos().grants.purge(at(200))).toBe(4);
      for (const index of indexes) expect((await repos().grants.findById(`gm${index}`))?.grantId).toBe(index % 2 === 0 ? `gm${index}` : undefined);
    });

    it('creates nothing from a consumed or an unknown code', async () => {
      await repos().codes.save(aCode('h'));
      expect(await repos().grants.createFromCode({ grant: aGrant('g1'), codeHash: 'h', refreshToken: aRefreshToken('r1', 'g1') })).toBe(true);
      expect(await repos().grants.createFromCode({ grant: aGrant('g2'), codeHash: 'h', refreshToken: aRefreshToken('r2', 'g2') })).toBe(false);
      expect(await repos().grants.createFromCode({ grant: aGrant('g3'), codeHash: 'unknown', refreshToken: aRefreshToken('r3', 'g3') })).toBe(false);
      expect(await repos().grants.findById('g2')).toBeUndefined();
      expect(await repos().grants.findById('g3')).toBeUndefined();
      expect(await repos().refreshTokens.findByHash('r2')).toBeUndefined();
      expect(await repos().refreshTokens.findByHash('r3')).toBeUndefined();
      expect((await repos().codes.findByHash('h'))?.grantId).toBe('g1');
    });

    it('creates nothing from a code whose sign-in session has ended or is gone (product logout)', async () => {
      await repos().sessions.create(aSession('live'));
      await repos().sessions.create(aSession('ended'));
      await repos().sessions.end('ended', at(15));
      await repos().codes.save(aCode('of-live', { sessionId: 'live' }));
      await repos().codes.save(aCode('of-ended', { sessionId: 'ended' }));
      await repos().codes.save(aCode('of-gone', { sessionId: 'gone' }));

      const exchange = (codeHash: string, grantId: string) =>
        repos().grants.createFromCode({ grant: aGrant(grantId, { sessionId: aCode(codeHash).sessionId }), codeHash, refreshToken: aRefreshToken(`r-${grantId}`, grantId) });
      expect(await exchange('of-ended', 'g-ended')).toBe(false);
      expect(await exchange('of-gone', 'g-gone')).toBe(false);
      expect(await exchange('of-live', 'g-live')).toBe(true);

      for (const grantId of ['g-ended', 'g-gone']) {
        expect(await repos().grants.findById(grantId)).toBeUndefined();
        expect(await repos().refreshTokens.findByHash(`r-${grantId}`)).toBeUndefined();
      }
      expect(await repos().codes.findByHash('of-ended')).toEqual(aCode('of-ended', { sessionId: 'ended' }));
      expect(await repos().codes.findByHash('of-gone')).toEqual(aCode('of-gone', { sessionId: 'gone' }));
      expect((await repos().codes.findByHash('of-live'))?.grantId).toBe('g-live');
    });

    it(`never leaves a live grant under an ended session when ${CONCURRENT_CALLS / 2} logouts race the exchanges of their sessions' codes`, async () => {
      const pairs = Array.from({ length: CONCURRENT_CALLS / 2 }, (_, index) => index);
      for (const index of pairs) {
        await repos().sessions.create(aSession(`s${index}`));
        await repos().codes.save(aCode(`c${index}`, { sessionId: `s${index}` }));
      }
      const exchange = (index: number) =>
        repos().grants.createFromCode({ grant: aGrant(`g${index}`, { sessionId: `s${index}` }), codeHash: `c${index}`, refreshToken: aRefreshToken(`r${index}`, `g${index}`) });
      const logout = (index: number) => repos().sessions.endWithGrants(`s${index}`, at(40));
      // Half start with the logout, half with the exchange, all at once.
      await Promise.all(pairs.flatMap((index) => (index % 2 === 0 ? [logout(index), exchange(index)] : [exchange(index), logout(index)])));

      for (const index of pairs) {
        expect((await repos().sessions.findById(`s${index}`))?.endedAt).toEqual(at(40));
        const grant = await repos().grants.findById(`g${index}`);
        // Whichever won: no grant, or a grant the logout revoked.
        if (grant) expect(grant.revokedAt).toEqual(at(40));
        else expect(await repos().refreshTokens.findByHash(`r${index}`)).toBeUndefined();
      }
    }, 30_000);

    it('creates nothing when the refresh token cannot be saved (all or nothing)', async () => {
      await repos().grants.create(aGrant('g0'));
      await repos().refreshTokens.save(aRefreshToken('taken', 'g0'));
      await repos().codes.save(aCode('h'));
      const error = await repos()
        .grants.createFromCode({ grant: aGrant('g1'), codeHash: 'h', refreshToken: aRefreshToken('taken', 'g1') })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(Error);
      expect(await repos().grants.findById('g1')).toBeUndefined();
      expect(await repos().codes.findByHash('h')).toEqual(aCode('h'));
      expect((await repos().refreshTokens.findByHash('taken'))?.grantId).toBe('g0');
    });

    it(`gives exactly one winner among ${CONCURRENT_CALLS} concurrent grants from one code; the losers leave nothing`, async () => {
      await repos().codes.save(aCode('contested'));
      const grantIds = Array.from({ length: CONCURRENT_CALLS }, (_, index) => `race${index}`);
      const results = await Promise.all(
        grantIds.map((grantId) => repos().grants.createFromCode({ grant: aGrant(grantId), codeHash: 'contested', refreshToken: aRefreshToken(`r-${grantId}`, grantId) })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = grantIds[results.indexOf(true)];
      expect((await repos().codes.findByHash('contested'))?.grantId).toBe(winner);
      for (const grantId of grantIds) {
        expect((await repos().grants.findById(grantId))?.grantId).toBe(grantId === winner ? grantId : undefined);
        expect((await repos().refreshTokens.findByHash(`r-${grantId}`))?.grantId).toBe(grantId === winner ? grantId : undefined);
      }
    }, 30_000);

    it('deletes the unused codes of a user, of one client or of all, and keeps consumed ones and other users\' codes', async () => {
      await repos().codes.save(aCode('a-unused'));
      await repos().codes.save(aCode('b-unused', { clientId: 'clientB' }));
      await repos().codes.save(aCode('a-of-user2', { userKey: 'user2' }));
      await exchangeACode(repos(), 'a-consumed', aGrant('g1'));
      expect(await repos().codes.deleteUnused('user1', 'clientA')).toBe(1);
      expect(await repos().codes.findByHash('a-unused')).toBeUndefined();
      expect((await repos().codes.findByHash('b-unused'))?.codeHash).toBe('b-unused');
      expect((await repos().codes.findByHash('a-consumed'))?.grantId).toBe('g1');
      // A deleted code can no longer be exchanged.
      expect(await repos().grants.createFromCode({ grant: aGrant('g2'), codeHash: 'a-unused', refreshToken: aRefreshToken('r2', 'g2') })).toBe(false);
      expect(await repos().codes.deleteUnused('user1')).toBe(1);
      expect(await repos().codes.findByHash('b-unused')).toBeUndefined();
      expect((await repos().codes.findByHash('a-of-user2'))?.codeHash).toBe('a-of-user2');
      expect(await repos().codes.deleteUnused('nobody')).toBe(0);
    });

    it('purges unused codes that expired before the cutoff and keeps consumed codes while their grant lives', async () => {
      await repos().codes.save(aCode('expired', { expiresAt: at(60) }));
      await repos().codes.save(aCode('expiring-at-cutoff', { expiresAt: at(100) }));
      await repos().codes.save(aCode('fresh', { expiresAt: at(160) }));
      await exchangeACode(repos(), 'consumed', aGrant('g1'));

      expect(await repos().codes.purge(at(100))).toBe(1);

      expect(await repos().codes.findByHash('expired')).toBeUndefined();
      expect((await repos().codes.findByHash('expiring-at-cutoff'))?.codeHash).toBe('expiring-at-cutoff');
      expect((await repos().codes.findByHash('fresh'))?.codeHash).toBe('fresh');
      // docs/security.md "Secrets handling": a consumed code is kept as long as its grant lives, so a late replay is still detected.
      expect((await repos().codes.findByHash('consumed'))?.grantId).toBe('g1');
      expect(await repos().codes.purge(at(100))).toBe(0);
    });

    it('drops a consumed code once its grant is gone', async () => {
      await exchangeACode(repos(), 'consumed', aGrant('g1'));
      await repos().grants.revoke('g1', at(40));
      await repos().grants.purge(at(100));
      await repos().codes.purge(at(100));
      expect(await repos().codes.findByHash('consumed')).toBeUndefined();
    });
  });

  describe('grants', () => {
    it('round-trips a grant', async () => {
      const grant = aGrant('g1', { sessionId: 'session1', scopes: ['messaging.v1.read', 'messaging.v1.send'] });
      await repos().grants.create(grant);
      expect(await repos().grants.findById('g1')).toEqual(grant);
      expect(await repos().grants.findById('g9')).toBeUndefined();
    });

    it('is revoked once', async () => {
      await repos().grants.create(aGrant('g1'));
      expect(await repos().grants.revoke('g1', at(40, 4))).toBe(true);
      expect(await repos().grants.revoke('g1', at(41))).toBe(false);
      expect((await repos().grants.findById('g1'))?.revokedAt).toEqual(at(40, 4));
      expect(await repos().grants.revoke('g9', at(41))).toBe(false);
    });

    it('revokes the live grants of a session, returning their ids and skipping revoked ones', async () => {
      await repos().grants.create(aGrant('s1', { sessionId: 'sessionX' }));
      await repos().grants.create(aGrant('s2', { sessionId: 'sessionX', clientId: 'clientB' }));
      await repos().grants.create(aGrant('s3', { sessionId: 'sessionX' }));
      await repos().grants.create(aGrant('other', { sessionId: 'sessionY' }));
      await repos().grants.create(aGrant('none'));
      await repos().grants.revoke('s3', at(30));

      expect(sorted(await repos().grants.revokeBySession('sessionX', at(40)))).toEqual(['s1', 's2']);
      expect((await repos().grants.findById('s1'))?.revokedAt).toEqual(at(40));
      expect((await repos().grants.findById('s3'))?.revokedAt).toEqual(at(30));
      expect((await repos().grants.findById('other'))?.revokedAt).toBe(null);
      expect((await repos().grants.findById('none'))?.revokedAt).toBe(null);
      expect(await repos().grants.revokeBySession('sessionX', at(41))).toEqual([]);
    });

    it('revokes the live grants of a user, and of a user with one client', async () => {
      await repos().grants.create(aGrant('a1'));
      await repos().grants.create(aGrant('a2'));
      await repos().grants.create(aGrant('b1', { clientId: 'clientB' }));
      await repos().grants.create(aGrant('u2', { userKey: 'user2' }));
      await repos().grants.revoke('a2', at(30));

      expect(await repos().grants.revokeByUserAndClient('user1', 'clientA', at(40))).toEqual(['a1']);
      expect((await repos().grants.findById('b1'))?.revokedAt).toBe(null);
      expect((await repos().grants.findById('a2'))?.revokedAt).toEqual(at(30));
      expect(await repos().grants.revokeByUserAndClient('user1', 'clientA', at(41))).toEqual([]);

      expect(await repos().grants.revokeByUser('user1', at(50))).toEqual(['b1']);
      expect((await repos().grants.findById('b1'))?.revokedAt).toEqual(at(50));
      expect((await repos().grants.findById('u2'))?.revokedAt).toBe(null);
      expect(await repos().grants.revokeByUser('user1', at(51))).toEqual([]);
    });

    it('lists the live grants of a user, newest first', async () => {
      await repos().grants.create(aGrant('old', { createdAt: at(1) }));
      await repos().grants.create(aGrant('newest', { createdAt: at(3), clientId: 'clientB' }));
      await repos().grants.create(aGrant('middle', { createdAt: at(2) }));
      await repos().grants.create(aGrant('revoked', { createdAt: at(4) }));
      await repos().grants.create(aGrant('someone-else', { createdAt: at(5), userKey: 'user2' }));
      await repos().grants.revoke('revoked', at(6));
      const active = await repos().grants.listActiveByUser('user1');
      expect(active.map((grant) => grant.grantId)).toEqual(['newest', 'middle', 'old']);
      expect(active[0]).toEqual(aGrant('newest', { createdAt: at(3), clientId: 'clientB' }));
      expect(await repos().grants.listActiveByUser('user9')).toEqual([]);
    });

    it('lists the live grants of a client, its users\' and its client-credentials grants, newest first', async () => {
      await repos().grants.create(aGrant('old', { createdAt: at(1) }));
      await repos().grants.create(aGrant('machine', { createdAt: at(2), userKey: null }));
      await repos().grants.create(aGrant('other-user', { createdAt: at(3), userKey: 'user2' }));
      await repos().grants.create(aGrant('revoked', { createdAt: at(4) }));
      await repos().grants.create(aGrant('other-client', { createdAt: at(5), clientId: 'clientB' }));
      await repos().grants.revoke('revoked', at(6));
      expect((await repos().grants.listActiveByClient('clientA')).map((grant) => grant.grantId)).toEqual(['other-user', 'machine', 'old']);
      expect((await repos().grants.listActiveByClient('clientA'))[1]).toEqual(aGrant('machine', { createdAt: at(2), userKey: null }));
      expect(await repos().grants.listActiveByClient('nobody')).toEqual([]);
    });

    it('purges grants revoked before the cutoff with their refresh tokens and codes', async () => {
      for (const id of ['old-revoked', 'recent-revoked', 'live']) await exchangeACode(repos(), `c-${id}`, aGrant(id));
      await repos().grants.revoke('old-revoked', at(100));
      await repos().grants.revoke('recent-revoked', at(200));

      expect(await repos().grants.purge(at(200))).toBe(1);

      expect(await repos().grants.findById('old-revoked')).toBeUndefined();
      expect(await repos().refreshTokens.findByHash('r-old-revoked')).toBeUndefined();
      expect(await repos().codes.findByHash('c-old-revoked')).toBeUndefined();
      for (const id of ['recent-revoked', 'live']) {
        expect((await repos().grants.findById(id))?.grantId).toBe(id);
        expect((await repos().refreshTokens.findByHash(`r-${id}`))?.grantId).toBe(id);
        expect((await repos().codes.findByHash(`c-${id}`))?.grantId).toBe(id);
      }
      expect(await repos().grants.purge(at(200))).toBe(0);
    });
    it('stores a client-credentials grant (no user), never listed or revoked as a user\'s, and revokes it by id', async () => {
      const machine = aGrant('cc1', { userKey: null, scopes: ['messaging.v1.read'] });
      await repos().grants.create(machine);
      await repos().grants.create(aGrant('u1'));
      expect(await repos().grants.findById('cc1')).toEqual(machine);
      expect((await repos().grants.listActiveByUser('user1')).map((grant) => grant.grantId)).toEqual(['u1']);
      expect(await repos().grants.listActiveByUser('')).toEqual([]);
      expect(await repos().grants.revokeByUser('', at(30))).toEqual([]);
      expect(await repos().grants.revokeByUserAndClient('', 'clientA', at(30))).toEqual([]);
      expect(await repos().grants.revokeByUser('user1', at(30))).toEqual(['u1']);
      expect((await repos().grants.findById('cc1'))?.revokedAt).toBe(null);
      expect(await repos().grants.revoke('cc1', at(31))).toBe(true);
      expect((await repos().grants.findById('cc1'))?.revokedAt).toEqual(at(31));
    });

    it('purges the grants made from a code without a refresh token once created before the cutoff, with their codes, and keeps those with one (docs/decisions/0193)', async () => {
      for (const id of ['old-alone', 'new-alone', 'old-refreshable']) await repos().codes.save(aCode(`c-${id}`));
      const exchange = (id: string, seconds: number, refreshToken?: string) =>
        repos().grants.createFromCode({ grant: aGrant(id, { createdAt: at(seconds) }), codeHash: `c-${id}`, ...(refreshToken === undefined ? {} : { refreshToken: aRefreshToken(refreshToken, id) }) });
      expect(await exchange('old-alone', 10)).toBe(true);
      expect(await exchange('new-alone', 300)).toBe(true);
      expect(await exchange('old-refreshable', 10, 'r-old-refreshable')).toBe(true);

      expect(await repos().grants.purge(at(200))).toBe(1);

      expect(await repos().grants.findById('old-alone')).toBeUndefined();
      expect(await repos().codes.findByHash('c-old-alone')).toBeUndefined();
      expect((await repos().grants.findById('new-alone'))?.grantId).toBe('new-alone');
      expect((await repos().codes.findByHash('c-new-alone'))?.grantId).toBe('new-alone');
      expect((await repos().grants.findById('old-refreshable'))?.grantId).toBe('old-refreshable');
      expect((await repos().refreshTokens.findByHash('r-old-refreshable'))?.grantId).toBe('old-refreshable');
      expect(await repos().grants.purge(at(200))).toBe(0);
    });

    it('purges client-credentials grants created before the cutoff, revoked or not, and keeps users\' live grants', async () => {
      await repos().grants.create(aGrant('cc-old', { userKey: null, createdAt: at(10) }));
      await repos().grants.create(aGrant('cc-new', { userKey: null, createdAt: at(300) }));
      await repos().grants.create(aGrant('user-old', { createdAt: at(10) }));
      expect(await repos().grants.purge(at(200))).toBe(1);
      expect(await repos().grants.findById('cc-old')).toBeUndefined();
      expect((await repos().grants.findById('cc-new'))?.grantId).toBe('cc-new');
      expect((await repos().grants.findById('user-old'))?.grantId).toBe('user-old');
    });
  });

  describe('refresh tokens', () => {
    beforeEach(async () => {
      await repos().grants.create(aGrant('g1'));
    });

    it('round-trips a refresh token', async () => {
      const token = aRefreshToken('r1', 'g1', { lastUsedAt: at(25, 5) });
      await repos().refreshTokens.save(token);
      expect(await repos().refreshTokens.findByHash('r1')).toEqual(token);
      expect(await repos().refreshTokens.findByHash('r9')).toBeUndefined();
    });

    it('is found with its grant in one read, the grant as it is now', async () => {
      const token = aRefreshToken('r1', 'g1', { lastUsedAt: at(25, 5) });
      await repos().refreshTokens.save(token);
      expect(await repos().refreshTokens.findWithGrant('r1')).toEqual({ token, grant: aGrant('g1') });
      await repos().grants.revoke('g1', at(30));
      expect(await repos().refreshTokens.findWithGrant('r1')).toEqual({ token, grant: { ...aGrant('g1'), revokedAt: at(30) } });
      expect(await repos().refreshTokens.findWithGrant('r9')).toBeUndefined();
    });

    it("is found with its grant and its owner's e-mail in one read, when the repository can (docs/decisions/0168)", async () => {
      const refreshTokens = repos().refreshTokens;
      // Optional in the port, and only where Gatehouse's own users are (docs/decisions/0161).
      const users = repos().users;
      if (refreshTokens.findWithGrantAndOwnerEmail === undefined || users === undefined) return;
      const token = aRefreshToken('r1', 'g1', { lastUsedAt: at(25, 5) });
      await refreshTokens.save(token);
      const grant = aGrant('g1');
      expect(await refreshTokens.findWithGrantAndOwnerEmail('r1')).toEqual({ token, grant, ownerEmail: (await users.findByKey(grant.userKey as string))?.email });
      expect(typeof (await refreshTokens.findWithGrantAndOwnerEmail('r1'))?.ownerEmail).toBe('string');
      // The owner is gone: the token and grant, without an e-mail (the refresh then answers invalid_grant).
      await repos().grants.create(aGrant('g-gone', { userKey: 'gone' }));
      await refreshTokens.save(aRefreshToken('r-gone', 'g-gone'));
      expect(await refreshTokens.findWithGrantAndOwnerEmail('r-gone')).toEqual({ token: aRefreshToken('r-gone', 'g-gone'), grant: aGrant('g-gone', { userKey: 'gone' }), ownerEmail: undefined });
      expect(await refreshTokens.findWithGrantAndOwnerEmail('r9')).toBeUndefined();
    });

    const rotation = (tokenHash: string, next: string, seconds: number, graceSeconds = 10) =>
      repos().refreshTokens.rotate({ tokenHash, next: aRefreshToken(next, 'g1', { createdAt: at(seconds), lastUsedAt: at(seconds) }), at: at(seconds), graceSince: at(seconds - graceSeconds) });

    it('is rotated once: the token marked rotated and its successor saved, in one step', async () => {
      await repos().refreshTokens.save(aRefreshToken('r1', 'g1'));
      expect(await rotation('r1', 'r2', 50)).toBe('rotated');
      expect((await repos().refreshTokens.findByHash('r1'))?.rotatedAt).toEqual(at(50));
      expect(await repos().refreshTokens.findByHash('r2')).toEqual(aRefreshToken('r2', 'g1', { createdAt: at(50), lastUsedAt: at(50) }));
      expect(await rotation('r9', 'r10', 51)).toBe('reused');
      expect(await repos().refreshTokens.findByHash('r10')).toBeUndefined();
    });

    it('replaces the live token when a rotated one comes back within the grace, so the grant keeps one live token', async () => {
      await repos().refreshTokens.save(aRefreshToken('r1', 'g1'));
      expect(await rotation('r1', 'r2', 50)).toBe('rotated');
      expect(await rotation('r1', 'r3', 55)).toBe('replaced');
      expect((await repos().refreshTokens.findByHash('r2'))?.supersededAt).toEqual(at(55));
      expect(await repos().refreshTokens.findByHash('r3')).toEqual(aRefreshToken('r3', 'g1', { createdAt: at(55), lastUsedAt: at(55) }));
      // The replaced token is dead, within the grace or not; the rotated one is dead after it.
      expect(await rotation('r2', 'r4', 56)).toBe('reused');
      expect(await rotation('r1', 'r5', 61)).toBe('reused');
      expect(await repos().refreshTokens.findByHash('r4')).toBeUndefined();
      expect(await repos().refreshTokens.findByHash('r5')).toBeUndefined();
      expect((await repos().refreshTokens.findByHash('r3'))?.rotatedAt).toBe(null);
      expect(await rotation('r3', 'r6', 62)).toBe('rotated');
    });

    it('takes a rotated token back within the grace only while the token it was rotated to is unused: after, a replay (RFC 9700 §4.14.2)', async () => {
      await repos().refreshTokens.save(aRefreshToken('r1', 'g1'));
      expect(await rotation('r1', 'r2', 50)).toBe('rotated');
      // The client used r2, so it got r1's answer: r1 again is a replay, even in the same second.
      expect(await rotation('r2', 'r3', 50)).toBe('rotated');
      expect(await rotation('r1', 'r4', 52)).toBe('reused');
      expect(await repos().refreshTokens.findByHash('r4')).toBeUndefined();
      expect((await repos().refreshTokens.findByHash('r3'))?.supersededAt).toBe(null);
    });

    it(`gives exactly one winner among ${CONCURRENT_CALLS} concurrent rotations of one token, and leaves the grant one live token`, async () => {
      await repos().refreshTokens.save(aRefreshToken('contested', 'g1'));
      const results = await Promise.all(Array.from({ length: CONCURRENT_CALLS }, (_, index) => rotation('contested', `next-${index}`, 50)));
      expect(results.filter((result) => result === 'rotated')).toHaveLength(1);
      expect(results.filter((result) => result === 'replaced')).toHaveLength(CONCURRENT_CALLS - 1);
      const live = [];
      for (let index = 0; index < CONCURRENT_CALLS; index += 1) {
        const token = await repos().refreshTokens.findByHash(`next-${index}`);
        if (token && token.rotatedAt === null && token.supersededAt === null) live.push(token.tokenHash);
      }
      expect(live).toHaveLength(1);
    }, 30_000);

    it('is touched: only the last-use time changes', async () => {
      await repos().refreshTokens.save(aRefreshToken('r1', 'g1'));
      await repos().refreshTokens.touch('r1', at(90, 9));
      expect(await repos().refreshTokens.findByHash('r1')).toEqual(aRefreshToken('r1', 'g1', { lastUsedAt: at(90, 9) }));
      await repos().refreshTokens.touch('r9', at(91));
      expect(await repos().refreshTokens.findByHash('r9')).toBeUndefined();
    });
  });

  describe('sessions', () => {
    it('round-trips a session and ends it once', async () => {
      await repos().sessions.create(aSession('s1'));
      expect(await repos().sessions.findById('s1')).toEqual(aSession('s1'));
      expect(await repos().sessions.end('s1', at(60, 6))).toBe(true);
      expect(await repos().sessions.end('s1', at(61))).toBe(false);
      expect(await repos().sessions.findById('s1')).toEqual(aSession('s1', { endedAt: at(60, 6) }));
      expect(await repos().sessions.end('s9', at(61))).toBe(false);
      expect(await repos().sessions.findById('s9')).toBeUndefined();
    });

    it('keeps when the user authenticated, which may be before the session began (a host\'s sign-in)', async () => {
      const session = aSession('s-host', { authenticatedAt: at(1, 7) });
      await repos().sessions.create(session);
      expect(await repos().sessions.findById('s-host')).toEqual(session);
    });

    it('is ended with its grants in one step (product logout): the live grants made under it are revoked, once', async () => {
      await repos().sessions.create(aSession('s1'));
      await repos().sessions.create(aSession('s2'));
      await repos().grants.create(aGrant('a', { sessionId: 's1' }));
      await repos().grants.create(aGrant('b', { sessionId: 's1', clientId: 'clientB' }));
      await repos().grants.create(aGrant('already-revoked', { sessionId: 's1' }));
      await repos().grants.revoke('already-revoked', at(30));
      await repos().grants.create(aGrant('other-session', { sessionId: 's2' }));
      await repos().grants.create(aGrant('no-session'));

      const first = await repos().sessions.endWithGrants('s1', at(60, 6));
      expect({ ...first, revokedGrantIds: sorted(first.revokedGrantIds) }).toEqual({ ended: true, revokedGrantIds: ['a', 'b'] });
      expect((await repos().sessions.findById('s1'))?.endedAt).toEqual(at(60, 6));
      expect((await repos().grants.findById('a'))?.revokedAt).toEqual(at(60, 6));
      expect((await repos().grants.findById('already-revoked'))?.revokedAt).toEqual(at(30));
      expect((await repos().grants.findById('other-session'))?.revokedAt).toBe(null);
      expect((await repos().grants.findById('no-session'))?.revokedAt).toBe(null);
      expect((await repos().sessions.findById('s2'))?.endedAt).toBe(null);

      expect(await repos().sessions.endWithGrants('s1', at(61))).toEqual({ ended: false, revokedGrantIds: [] });
      expect((await repos().sessions.findById('s1'))?.endedAt).toEqual(at(60, 6));
      expect(await repos().sessions.endWithGrants('unknown', at(61))).toEqual({ ended: false, revokedGrantIds: [] });
    });

    it('is handed over to a new session of its user in one step (signing in again): ended, its live grants moved, once; its codes die with it (docs/decisions/0194)', async () => {
      const sessions = repos().sessions;
      // Optional in the port: a store without it keeps the previous session live until it expires.
      if (sessions.handOver === undefined) return;
      for (const id of ['old', 'new', 'other']) await sessions.create(aSession(id));
      await repos().grants.create(aGrant('a', { sessionId: 'old' }));
      await repos().grants.create(aGrant('b', { sessionId: 'old', clientId: 'clientB' }));
      await repos().grants.create(aGrant('revoked', { sessionId: 'old' }));
      await repos().grants.revoke('revoked', at(30));
      await repos().grants.create(aGrant('of-other', { sessionId: 'other' }));
      await repos().codes.save(aCode('unused', { sessionId: 'old' }));
      await repos().codes.save(aCode('of-other', { sessionId: 'other' }));

      const first = await sessions.handOver('old', 'new', at(60, 6));
      expect({ ...first, movedGrantIds: sorted(first.movedGrantIds) }).toEqual({ ended: true, movedGrantIds: ['a', 'b'] });
      expect((await sessions.findById('old'))?.endedAt).toEqual(at(60, 6));
      expect((await sessions.findById('new'))?.endedAt).toBe(null);
      for (const id of ['a', 'b']) expect(await repos().grants.findById(id)).toMatchObject({ sessionId: 'new', revokedAt: null });
      expect(await repos().grants.findById('revoked')).toMatchObject({ sessionId: 'old', revokedAt: at(30) });
      expect((await repos().grants.findById('of-other'))?.sessionId).toBe('other');
      // A code of the ended session is not exchanged (product logout's rule); the other session's is.
      expect(await repos().grants.createFromCode({ grant: aGrant('from-old', { sessionId: 'old' }), codeHash: 'unused', refreshToken: aRefreshToken('r-old', 'from-old') })).toBe(false);
      expect(await repos().codes.findByHash('unused')).toEqual(aCode('unused', { sessionId: 'old' }));
      expect(await repos().grants.createFromCode({ grant: aGrant('from-other', { sessionId: 'other' }), codeHash: 'of-other', refreshToken: aRefreshToken('r-other', 'from-other') })).toBe(true);
      // The new session's logout ends the moved grants.
      expect(sorted((await sessions.endWithGrants('new', at(70))).revokedGrantIds)).toEqual(['a', 'b']);

      expect(await sessions.handOver('old', 'other', at(80))).toEqual({ ended: false, movedGrantIds: [] });
      expect(await sessions.handOver('unknown', 'other', at(80))).toEqual({ ended: false, movedGrantIds: [] });
    });

    it(`never leaves a live grant under a handed-over session when ${CONCURRENT_CALLS / 2} hand-overs race the exchanges of their sessions' codes`, async () => {
      const sessions = repos().sessions;
      if (sessions.handOver === undefined) return;
      const pairs = Array.from({ length: CONCURRENT_CALLS / 2 }, (_, index) => index);
      for (const index of pairs) {
        await sessions.create(aSession(`s${index}`));
        await sessions.create(aSession(`next${index}`));
        await repos().codes.save(aCode(`c${index}`, { sessionId: `s${index}` }));
      }
      const exchange = (index: number) =>
        repos().grants.createFromCode({ grant: aGrant(`g${index}`, { sessionId: `s${index}` }), codeHash: `c${index}`, refreshToken: aRefreshToken(`r${index}`, `g${index}`) });
      const handOver = (index: number) => sessions.handOver?.(`s${index}`, `next${index}`, at(40));
      await Promise.all(pairs.flatMap((index) => (index % 2 === 0 ? [handOver(index), exchange(index)] : [exchange(index), handOver(index)])));

      for (const index of pairs) {
        expect((await sessions.findById(`s${index}`))?.endedAt).toEqual(at(40));
        const grant = await repos().grants.findById(`g${index}`);
        // Whichever won: no grant (the code died with its session), or a live grant under the new session.
        if (grant) expect(grant).toMatchObject({ sessionId: `next${index}`, revokedAt: null });
        else expect(await repos().refreshTokens.findByHash(`r${index}`)).toBeUndefined();
      }
    }, 30_000);

    it('purges sessions that expired or ended before the cutoff', async () => {
      await repos().sessions.create(aSession('expired', { expiresAt: at(100) }));
      await repos().sessions.create(aSession('ended', { expiresAt: at(900) }));
      await repos().sessions.end('ended', at(150));
      await repos().sessions.create(aSession('ended-later', { expiresAt: at(900) }));
      await repos().sessions.end('ended-later', at(250));
      await repos().sessions.create(aSession('live', { expiresAt: at(900) }));

      expect(await repos().sessions.purge(at(200))).toBe(2);

      expect(await repos().sessions.findById('expired')).toBeUndefined();
      expect(await repos().sessions.findById('ended')).toBeUndefined();
      expect((await repos().sessions.findById('ended-later'))?.endedAt).toEqual(at(250));
      expect((await repos().sessions.findById('live'))?.endedAt).toBe(null);
      expect(await repos().sessions.purge(at(200))).toBe(0);
    });

    it('lists the live sessions of one user at a time, newest first', async () => {
      await repos().sessions.create(aSession('old', { createdAt: at(1) }));
      await repos().sessions.create(aSession('new', { createdAt: at(2) }));
      await repos().sessions.create(aSession('expired', { createdAt: at(3), expiresAt: at(100) }));
      await repos().sessions.create(aSession('ended', { createdAt: at(4) }));
      await repos().sessions.end('ended', at(50));
      await repos().sessions.create(aSession('other', { userKey: 'user2' }));
      expect((await repos().sessions.listActiveByUser('user1', at(100))).map((session) => session.sessionId)).toEqual(['new', 'old']);
      expect((await repos().sessions.listActiveByUser('user1', at(99))).map((session) => session.sessionId)).toEqual(['expired', 'new', 'old']);
      expect((await repos().sessions.listActiveByUser('user1', at(100)))[0]).toEqual(aSession('new', { createdAt: at(2) }));
      expect(await repos().sessions.listActiveByUser('user9', at(1))).toEqual([]);
    });

    it('ends every live session of one user, once, and says which', async () => {
      await repos().sessions.create(aSession('a1'));
      await repos().sessions.create(aSession('a2', { expiresAt: at(10) }));
      await repos().sessions.create(aSession('a3'));
      await repos().sessions.end('a3', at(30));
      await repos().sessions.create(aSession('b1', { userKey: 'user2' }));

      expect(sorted(await repos().sessions.endByUser('user1', at(40, 4)))).toEqual(['a1', 'a2']);
      expect(await repos().sessions.endByUser('user1', at(41))).toEqual([]);
      expect((await repos().sessions.findById('a1'))?.endedAt).toEqual(at(40, 4));
      expect((await repos().sessions.findById('a2'))?.endedAt).toEqual(at(40, 4));
      expect((await repos().sessions.findById('a3'))?.endedAt).toEqual(at(30));
      expect((await repos().sessions.findById('b1'))?.endedAt).toBe(null);
    });
  });

  describe('interactions (login and consent requests)', () => {
    it('round-trips both kinds', async () => {
      const login = anInteraction('i-login');
      const consent = anInteraction('i-consent', { kind: 'consent', userKey: 'user1', sessionId: 's1' });
      await repos().interactions.create(login);
      await repos().interactions.create(consent);
      expect(await repos().interactions.findByHash('i-login')).toEqual(login);
      expect(await repos().interactions.findByHash('i-consent')).toEqual(consent);
      expect(await repos().interactions.findByHash('i-none')).toBeUndefined();
    });

    it('consumes once, only the named kind, only before it expires', async () => {
      await repos().interactions.create(anInteraction('i1', { expiresAt: at(600) }));
      expect(await repos().interactions.consume('i1', 'consent', at(10))).toBeUndefined();
      expect(await repos().interactions.consume('i1', 'login', at(600))).toBeUndefined();
      expect(await repos().interactions.consume('i1', 'login', at(599, 999))).toEqual(anInteraction('i1', { expiresAt: at(600), consumedAt: at(599, 999) }));
      expect(await repos().interactions.consume('i1', 'login', at(599, 999))).toBeUndefined();
      expect((await repos().interactions.findByHash('i1'))?.consumedAt).toEqual(at(599, 999));
      expect(await repos().interactions.consume('i-none', 'login', at(1))).toBeUndefined();
    });

    it(`gives exactly one winner among ${CONCURRENT_CALLS} concurrent consumes`, async () => {
      await repos().interactions.create(anInteraction('contested'));
      const results = await Promise.all(Array.from({ length: CONCURRENT_CALLS }, () => repos().interactions.consume('contested', 'login', at(30))));
      expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    }, 30_000);

    const anonymous = (hash: string, overrides: Partial<Interaction> = {}) => ({ ...anInteraction(hash, overrides), userKey: null });

    it('stores an interaction of nobody only while fewer than the cap are kept, used and expired ones included', async () => {
      await repos().interactions.create(anInteraction('of-ada', { kind: 'consent', userKey: 'user1', sessionId: 's1' }));
      expect(await repos().interactions.createAnonymous(anonymous('a1'), 2)).toBe(true);
      expect(await repos().interactions.createAnonymous(anonymous('a2', { kind: 'reauthentication', expiresAt: at(8) }), 2)).toBe(true);
      await repos().interactions.consume('a1', 'login', at(30));
      expect(await repos().interactions.createAnonymous(anonymous('a3'), 2)).toBe(false);
      expect(await repos().interactions.findByHash('a3')).toBeUndefined();
      expect(await repos().interactions.findByHash('a2')).toEqual(anInteraction('a2', { userKey: null, kind: 'reauthentication', expiresAt: at(8) }));
      await repos().interactions.purge(at(9));
      expect(await repos().interactions.createAnonymous(anonymous('a3'), 2)).toBe(true);
    });

    it(`keeps to the cap when ${CONCURRENT_CALLS} interactions of nobody are stored at once`, async () => {
      const stored = await Promise.all(Array.from({ length: CONCURRENT_CALLS }, (_, index) => repos().interactions.createAnonymous(anonymous(`c${index}`), 10)));
      expect(stored.filter(Boolean)).toHaveLength(10);
    }, 30_000);

    it('purges the interactions that expired before the cutoff', async () => {
      await repos().interactions.create(anInteraction('old', { expiresAt: at(100) }));
      await repos().interactions.create(anInteraction('new', { expiresAt: at(300) }));
      expect(await repos().interactions.purge(at(200))).toBe(1);
      expect(await repos().interactions.findByHash('old')).toBeUndefined();
      expect(await repos().interactions.findByHash('new')).toEqual(anInteraction('new', { expiresAt: at(300) }));
    });
  });
}
