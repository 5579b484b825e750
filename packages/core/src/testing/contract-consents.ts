import type { Consent } from '../domain/model.js';
import { at, seedBasics, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

function aConsent(overrides: Partial<Consent> = {}): Consent {
  return { userKey: 'user1', clientId: 'clientA', scopes: ['messaging.v1.read'], grantedAt: at(20), ...overrides };
}

/** Remembered consent (docs/decisions/0095-remembered-consent.md). */
export function describeConsentContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  beforeEach(async () => {
    await seedBasics(repos());
  });

  describe('consents', () => {
    it('round-trips a consent and finds nothing for another user or client', async () => {
      await repos().consents.remember(aConsent({ scopes: ['messaging.v1.send', 'messaging.v1.read'], grantedAt: at(20, 7) }));
      expect(await repos().consents.find('user1', 'clientA')).toEqual(aConsent({ scopes: ['messaging.v1.read', 'messaging.v1.send'], grantedAt: at(20, 7) }));
      expect(await repos().consents.find('user2', 'clientA')).toBeUndefined();
      expect(await repos().consents.find('user1', 'clientB')).toBeUndefined();
    });

    it('adds the scopes of a later consent to those remembered, keeping the latest time', async () => {
      await repos().consents.remember(aConsent({ scopes: ['messaging.v1.read'], grantedAt: at(20) }));
      await repos().consents.remember(aConsent({ scopes: ['messaging.v1.send', 'messaging.v1.read'], grantedAt: at(30) }));
      await repos().consents.remember(aConsent({ scopes: ['identity.v1.read'], grantedAt: at(40) }));
      expect(await repos().consents.find('user1', 'clientA')).toEqual(
        aConsent({ scopes: ['identity.v1.read', 'messaging.v1.read', 'messaging.v1.send'], grantedAt: at(40) }),
      );
    });

    it('remembers scopes per resource apart from those of the default audience, adding later ones, and lists them (RFC 8707; docs/decisions/0200)', async () => {
      const orders = 'https://orders.example.com/mcp';
      const local = 'http://127.0.0.1:4799/mcp';
      await repos().consents.remember(aConsent({ scopes: [], resourceScopes: { [orders]: ['messaging.v1.read'] }, grantedAt: at(20) }));
      expect(await repos().consents.find('user1', 'clientA')).toEqual(aConsent({ scopes: [], resourceScopes: { [orders]: ['messaging.v1.read'] }, grantedAt: at(20) }));
      await repos().consents.remember(aConsent({ scopes: [], resourceScopes: { [orders]: ['messaging.v1.send'], [local]: ['messaging.v1.read'] }, grantedAt: at(30) }));
      await repos().consents.remember(aConsent({ scopes: ['identity.v1.read'], grantedAt: at(25) }));
      const expected = aConsent({ scopes: ['identity.v1.read'], resourceScopes: { [orders]: ['messaging.v1.read', 'messaging.v1.send'], [local]: ['messaging.v1.read'] }, grantedAt: at(30) });
      expect(await repos().consents.find('user1', 'clientA')).toEqual(expected);
      expect(await repos().consents.listByUser('user1')).toEqual([expected]);
      expect(await repos().consents.forget('user1', 'clientA')).toBe(true);
      expect(await repos().consents.find('user1', 'clientA')).toBeUndefined();
    });

    it('counts both of two consents remembered at once', async () => {
      await Promise.all([
        repos().consents.remember(aConsent({ scopes: ['messaging.v1.read'], grantedAt: at(30) })),
        repos().consents.remember(aConsent({ scopes: ['messaging.v1.send'], grantedAt: at(30) })),
      ]);
      expect((await repos().consents.find('user1', 'clientA'))?.scopes).toEqual(['messaging.v1.read', 'messaging.v1.send']);
    });

    it('lists the consents of a user by client id', async () => {
      await repos().consents.remember(aConsent({ clientId: 'clientB', scopes: ['identity.v1.read'], grantedAt: at(50) }));
      await repos().consents.remember(aConsent({ clientId: 'clientA', grantedAt: at(60) }));
      await repos().consents.remember(aConsent({ userKey: 'user2', clientId: 'clientA' }));
      expect(await repos().consents.listByUser('user1')).toEqual([
        aConsent({ clientId: 'clientA', grantedAt: at(60) }),
        aConsent({ clientId: 'clientB', scopes: ['identity.v1.read'], grantedAt: at(50) }),
      ]);
      expect(await repos().consents.listByUser('user3')).toEqual([]);
    });

    it('forgets the consent of one user for one client', async () => {
      await repos().consents.remember(aConsent());
      await repos().consents.remember(aConsent({ clientId: 'clientB' }));
      await repos().consents.remember(aConsent({ userKey: 'user2' }));
      expect(await repos().consents.forget('user1', 'clientA')).toBe(true);
      expect(await repos().consents.forget('user1', 'clientA')).toBe(false);
      expect(await repos().consents.find('user1', 'clientA')).toBeUndefined();
      expect(await repos().consents.find('user1', 'clientB')).toEqual(aConsent({ clientId: 'clientB' }));
      expect(await repos().consents.find('user2', 'clientA')).toEqual(aConsent({ userKey: 'user2' }));
    });

    it('deletes the consents of a client with the client', async () => {
      await repos().consents.remember(aConsent());
      await repos().consents.remember(aConsent({ userKey: 'user2' }));
      await repos().consents.remember(aConsent({ clientId: 'clientB' }));
      expect(await repos().clients.delete('clientA')).toBe(true);
      expect(await repos().consents.find('user1', 'clientA')).toBeUndefined();
      expect(await repos().consents.listByUser('user2')).toEqual([]);
      expect(await repos().consents.find('user1', 'clientB')).toEqual(aConsent({ clientId: 'clientB' }));
    });
  });
}
