import { aCode, aGrant, anInteraction, aRefreshToken, aSession, at, exchangeACode, seedBasics, sorted, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

/**
 * Forgetting a user (`forgetUser`, docs/decisions/0140-forgetting-a-user.md): each repository
 * deletes the user's records, live or not, and nobody else's.
 */
export function describeForgetUserContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  beforeEach(async () => {
    await seedBasics(repos());
  });

  describe('forgetting a user', () => {
    it("deletes every grant of the user, live or revoked, with its refresh tokens and consumed codes, and no one else's", async () => {
      await exchangeACode(repos(), 'c-live', aGrant('g-live'));
      await exchangeACode(repos(), 'c-revoked', aGrant('g-revoked', { clientId: 'clientB' }));
      await repos().grants.revoke('g-revoked', at(40));
      await exchangeACode(repos(), 'c-other', aGrant('g-other', { userKey: 'user2' }));
      await repos().grants.create(aGrant('g-machine', { userKey: null }));

      expect(sorted(await repos().grants.deleteByUser('user1'))).toEqual(['g-live', 'g-revoked']);

      for (const gone of ['g-live', 'g-revoked']) {
        expect(await repos().grants.findById(gone)).toBeUndefined();
        expect(await repos().refreshTokens.findByHash(`r-${gone}`)).toBeUndefined();
        expect(await repos().refreshTokens.findWithGrant(`r-${gone}`)).toBeUndefined();
      }
      expect(await repos().codes.findByHash('c-live')).toBeUndefined();
      expect(await repos().codes.findByHash('c-revoked')).toBeUndefined();
      expect((await repos().grants.findById('g-other'))?.userKey).toBe('user2');
      expect((await repos().refreshTokens.findByHash('r-g-other'))?.grantId).toBe('g-other');
      expect((await repos().codes.findByHash('c-other'))?.grantId).toBe('g-other');
      expect((await repos().grants.findById('g-machine'))?.userKey).toBe(null);
      expect(await repos().grants.deleteByUser('user1')).toEqual([]);
      // The key of no user (the client-credentials grants' mark in some stores) deletes nothing.
      expect(await repos().grants.deleteByUser('')).toEqual([]);
      expect((await repos().grants.findById('g-machine'))?.grantId).toBe('g-machine');
    });

    it('a code of the forgotten user whose grant was deleted is not exchanged again', async () => {
      await exchangeACode(repos(), 'c1', aGrant('g1'));
      await repos().grants.deleteByUser('user1');
      expect(await repos().grants.createFromCode({ grant: aGrant('g2'), codeHash: 'c1', refreshToken: aRefreshToken('r2', 'g2') })).toBe(false);
      expect(await repos().grants.findById('g2')).toBeUndefined();
    });

    it("deletes every session of the user, live or ended, and no one else's; a code of a deleted session is not exchanged", async () => {
      await repos().sessions.create(aSession('s-live'));
      await repos().sessions.create(aSession('s-ended'));
      await repos().sessions.end('s-ended', at(10));
      await repos().sessions.create(aSession('s-other', { userKey: 'user2' }));
      await repos().codes.save(aCode('c-of-live', { sessionId: 's-live' }));

      expect(await repos().sessions.deleteByUser('user1')).toBe(2);

      expect(await repos().sessions.findById('s-live')).toBeUndefined();
      expect(await repos().sessions.findById('s-ended')).toBeUndefined();
      expect((await repos().sessions.findById('s-other'))?.userKey).toBe('user2');
      expect(await repos().grants.createFromCode({ grant: aGrant('g1', { sessionId: 's-live' }), codeHash: 'c-of-live', refreshToken: aRefreshToken('r1', 'g1') })).toBe(false);
      expect(await repos().sessions.deleteByUser('user1')).toBe(0);
    });

    it("forgets every consent the user gave, counting the clients, and no one else's", async () => {
      await repos().consents.remember({ userKey: 'user1', clientId: 'clientA', scopes: ['messaging.v1.read', 'messaging.v1.send'], grantedAt: at(20) });
      await repos().consents.remember({ userKey: 'user1', clientId: 'clientB', scopes: ['messaging.v1.read'], grantedAt: at(21) });
      await repos().consents.remember({ userKey: 'user2', clientId: 'clientA', scopes: ['messaging.v1.read'], grantedAt: at(22) });

      expect(await repos().consents.forgetByUser('user1')).toBe(2);

      expect(await repos().consents.listByUser('user1')).toEqual([]);
      expect((await repos().consents.find('user2', 'clientA'))?.scopes).toEqual(['messaging.v1.read']);
      expect(await repos().consents.forgetByUser('user1')).toBe(0);
    });

    it("deletes the user's login and consent requests, used or not, and keeps anonymous ones and other users'", async () => {
      await repos().interactions.create(anInteraction('i-consent', { kind: 'consent', userKey: 'user1', sessionId: 's1' }));
      await repos().interactions.create(anInteraction('i-used', { kind: 'consent', userKey: 'user1', consumedAt: at(8) }));
      await repos().interactions.create(anInteraction('i-other', { kind: 'consent', userKey: 'user2' }));
      await repos().interactions.create(anInteraction('i-anonymous'));

      expect(await repos().interactions.deleteByUser('user1')).toBe(2);

      expect(await repos().interactions.findByHash('i-consent')).toBeUndefined();
      expect(await repos().interactions.findByHash('i-used')).toBeUndefined();
      expect(await repos().interactions.consume('i-consent', 'consent', at(9))).toBeUndefined();
      expect((await repos().interactions.findByHash('i-other'))?.userKey).toBe('user2');
      expect((await repos().interactions.findByHash('i-anonymous'))?.userKey).toBe(null);
      expect(await repos().interactions.deleteByUser('user1')).toBe(0);
    });
  });
}
