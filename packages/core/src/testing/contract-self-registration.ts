import type { Client, SelfRegistration } from '../domain/model.js';
import { aClient, at, seedBasics, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

const DOCUMENT_URL = 'https://agent.example/oauth/client.json';
const CONCURRENT_ROTATIONS = 20;

function aDynamicClient(id: string, overrides: Partial<Client> = {}, registration: Partial<Extract<SelfRegistration, { kind: 'dynamic' }>> = {}): Client {
  return aClient(id, {
    clientSecretHash: null,
    pkceRequired: true,
    createdAt: at(1, 3),
    registration: {
      kind: 'dynamic',
      registrationAccessTokenHash: `rat-hash-of-${id}`,
      anonymous: true,
      metadata: { applicationType: 'native', tokenEndpointAuthMethod: 'none', clientUri: 'https://agent.example', contacts: ['ops@agent.example'], softwareId: 'agent', softwareVersion: '1.2' },
      firstUsedAt: null,
      ...registration,
    },
    ...overrides,
  });
}

function aDocumentClient(documentHash: string, overrides: Partial<Client> = {}): Client {
  return aClient(DOCUMENT_URL, {
    clientSecretHash: null,
    name: `Agent ${documentHash}`,
    redirectUris: ['http://127.0.0.1/callback'],
    pkceRequired: true,
    createdAt: at(2, 5),
    registration: { kind: 'metadata-document', documentHash, documentExpiresAt: at(300, 9), metadata: { applicationType: 'native', tokenEndpointAuthMethod: 'none' }, firstUsedAt: null },
    ...overrides,
  });
}

/**
 * Clients that registered themselves: Dynamic Client Registration and Client ID Metadata
 * Documents (docs/decisions/0115, 0117, 0119).
 */
export function describeSelfRegistrationContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  beforeEach(async () => {
    await seedBasics(repos());
  });

  describe('self-registered clients', () => {
    it('round-trips a dynamic and a metadata-document client with their details; a static client has none', async () => {
      const dynamic = aDynamicClient('dyn1');
      const document = aDocumentClient('hash1');
      await repos().clients.create(dynamic);
      await repos().clients.create(document);
      expect(await repos().clients.findById('dyn1')).toEqual(dynamic);
      expect(await repos().clients.findById(DOCUMENT_URL)).toEqual(document);
      expect((await repos().clients.findById('clientA'))?.registration).toBeUndefined();
      const listed = await repos().clients.listAll();
      expect(listed.find((client) => client.clientId === 'dyn1')).toEqual(dynamic);
    });

    it('keeps a dynamic client’s registration, its first use included, on an update of its fields (its own changes go through rotateRegistrationAccessToken)', async () => {
      await repos().clients.create(aDynamicClient('dyn1'));
      await repos().clients.markUsed('dyn1', at(50, 1));
      const fields = { name: 'Renamed', redirectUris: ['https://agent.example/cb'], scopes: ['messaging.v1.read'], grantTypes: ['authorization_code' as const], pkceRequired: true };
      expect(await repos().clients.update('dyn1', fields)).toBe(true);
      const updated = await repos().clients.findById('dyn1');
      expect(updated).toMatchObject(fields);
      expect(updated?.registration).toEqual({ ...aDynamicClient('dyn1').registration, firstUsedAt: at(50, 1) });
    });

    it('replaces a dynamic client’s registration access token only while the hash read is still its own, an update’s changes in the same write', async () => {
      await repos().clients.create(aDynamicClient('dyn1'));
      await repos().clients.markUsed('dyn1', at(50, 1));
      const first = { hash: 'rat-hash-of-dyn1', replacedAt: at(60, 1) };
      expect(await repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'rat-hash-of-dyn1', nextHash: 'rat-2', previous: first })).toBe(true);
      expect((await repos().clients.findById('dyn1', { fresh: true }))?.registration).toEqual({ ...aDynamicClient('dyn1').registration, registrationAccessTokenHash: 'rat-2', previousRegistrationAccessToken: first, firstUsedAt: at(50, 1) });

      // The hash it replaced is no longer the one to compare with: nothing is written.
      const metadata = { applicationType: 'web' as const, tokenEndpointAuthMethod: 'none' as const };
      const fields = { name: 'Renamed', redirectUris: ['https://agent.example/cb'], scopes: ['messaging.v1.read'], grantTypes: ['authorization_code' as const], pkceRequired: true };
      expect(await repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'rat-hash-of-dyn1', nextHash: 'rat-x', previous: first, changes: { ...fields, metadata } })).toBe(false);
      const unchanged = await repos().clients.findById('dyn1');
      expect(unchanged).toMatchObject({ name: aDynamicClient('dyn1').name, redirectUris: aDynamicClient('dyn1').redirectUris });
      expect(unchanged?.registration).toMatchObject({ registrationAccessTokenHash: 'rat-2', metadata: aDynamicClient('dyn1').registration?.metadata });

      // An RFC 7592 update: the fields, the metadata and the token in one write; the other details kept.
      expect(await repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'rat-2', nextHash: 'rat-3', previous: first, changes: { ...fields, metadata, defaultMaxAge: 600 } })).toBe(true);
      const updated = await repos().clients.findById('dyn1');
      expect(updated).toMatchObject({ ...fields, defaultMaxAge: 600 });
      expect(updated?.registration).toEqual({ ...aDynamicClient('dyn1').registration, metadata, registrationAccessTokenHash: 'rat-3', previousRegistrationAccessToken: first, firstUsedAt: at(50, 1) });

      // Never another kind of client, nor one that does not exist.
      await repos().clients.create(aDocumentClient('hash1'));
      for (const clientId of ['clientA', DOCUMENT_URL, 'unknown']) {
        expect(await repos().clients.rotateRegistrationAccessToken({ clientId, currentHash: 'rat-3', nextHash: 'rat-4', previous: first })).toBe(false);
      }
      expect(await repos().clients.findById('clientA')).toEqual(aClient('clientA', { ownerUserKey: 'user1' }));
      expect(await repos().clients.findById(DOCUMENT_URL)).toEqual(aDocumentClient('hash1'));
    });

    it('forgets every user’s remembered consent to a dynamic client with an update that asks it to, in the same write, and nothing when the write does not happen', async () => {
      await repos().clients.create(aDynamicClient('dyn1'));
      await repos().clients.create(aDynamicClient('dyn2'));
      for (const [userKey, clientId] of [['user1', 'dyn1'], ['user2', 'dyn1'], ['user1', 'dyn2']] as const) {
        await repos().consents.remember({ userKey, clientId, scopes: ['messaging.v1.read'], grantedAt: at(6) });
      }
      const previous = { hash: 'rat-hash-of-dyn1', replacedAt: at(60) };
      const metadata = { applicationType: 'web' as const, tokenEndpointAuthMethod: 'none' as const };
      const fields = { name: 'Totally Different App', redirectUris: ['https://attacker.example/cb'], scopes: ['messaging.v1.read'], grantTypes: ['authorization_code' as const], pkceRequired: true };

      // A write that loses the compare-and-set forgets nothing.
      expect(await repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'stale', nextHash: 'rat-x', previous, changes: { ...fields, metadata }, forgetConsents: true })).toBe(false);
      expect((await repos().consents.find('user1', 'dyn1'))?.scopes).toEqual(['messaging.v1.read']);
      // An update without it keeps them (docs/decisions/0195: it changed nothing the users were shown).
      expect(await repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'rat-hash-of-dyn1', nextHash: 'rat-2', previous, changes: { ...fields, metadata } })).toBe(true);
      expect((await repos().consents.listByUser('user1')).map((consent) => consent.clientId)).toEqual(['dyn1', 'dyn2']);

      expect(await repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'rat-2', nextHash: 'rat-3', previous, changes: { ...fields, metadata }, forgetConsents: true })).toBe(true);
      expect(await repos().clients.findById('dyn1')).toMatchObject({ ...fields, registration: { registrationAccessTokenHash: 'rat-3', metadata } });
      expect(await repos().consents.find('user1', 'dyn1')).toBeUndefined();
      expect(await repos().consents.find('user2', 'dyn1')).toBeUndefined();
      // Another client's stay.
      expect((await repos().consents.listByUser('user1')).map((consent) => consent.clientId)).toEqual(['dyn2']);
    });

    it(`gives exactly one winner among ${CONCURRENT_ROTATIONS} concurrent rotations from one registration access token`, async () => {
      await repos().clients.create(aDynamicClient('dyn1'));
      const previous = { hash: 'rat-hash-of-dyn1', replacedAt: at(60) };
      const results = await Promise.all(
        Array.from({ length: CONCURRENT_ROTATIONS }, (_, index) =>
          repos().clients.rotateRegistrationAccessToken({ clientId: 'dyn1', currentHash: 'rat-hash-of-dyn1', nextHash: `rat-next-${index}`, previous }),
        ),
      );
      expect(results.filter((won) => won)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await repos().clients.findById('dyn1'))?.registration).toMatchObject({ registrationAccessTokenHash: `rat-next-${winner}`, previousRegistrationAccessToken: previous });
    }, 30_000);

    it('marks a self-registered client used once, and never a static one', async () => {
      await repos().clients.create(aDynamicClient('dyn1'));
      await repos().clients.markUsed('dyn1', at(10, 1));
      await repos().clients.markUsed('dyn1', at(20, 2));
      expect((await repos().clients.findById('dyn1'))?.registration?.firstUsedAt).toEqual(at(10, 1));
      await repos().clients.markUsed('clientA', at(10));
      await repos().clients.markUsed('unknown', at(10));
      expect(await repos().clients.findById('clientA')).toEqual(aClient('clientA', { ownerUserKey: 'user1' }));
    });

    it('stores a metadata-document client: created, then refreshed (consents kept), then changed (consents forgotten)', async () => {
      expect(await repos().clients.saveMetadataDocumentClient(aDocumentClient('hash1'))).toBe('created');
      await repos().clients.markUsed(DOCUMENT_URL, at(5, 5));
      await repos().consents.remember({ userKey: 'user1', clientId: DOCUMENT_URL, scopes: ['messaging.v1.read'], grantedAt: at(6) });

      const refreshed = aDocumentClient('hash1', { createdAt: at(400), registration: { ...(aDocumentClient('hash1').registration as Extract<SelfRegistration, { kind: 'metadata-document' }>), documentExpiresAt: at(700, 1) } });
      expect(await repos().clients.saveMetadataDocumentClient(refreshed)).toBe('refreshed');
      const afterRefresh = await repos().clients.findById(DOCUMENT_URL);
      expect(afterRefresh?.createdAt).toEqual(at(2, 5));
      expect(afterRefresh?.registration).toMatchObject({ documentHash: 'hash1', documentExpiresAt: at(700, 1), firstUsedAt: at(5, 5) });
      expect((await repos().consents.find('user1', DOCUMENT_URL))?.scopes).toEqual(['messaging.v1.read']);

      const changed = aDocumentClient('hash2', { redirectUris: ['http://127.0.0.1/other'], scopes: ['messaging.v1.send'], createdAt: at(800) });
      expect(await repos().clients.saveMetadataDocumentClient(changed)).toBe('changed');
      const afterChange = await repos().clients.findById(DOCUMENT_URL);
      expect(afterChange).toMatchObject({ name: 'Agent hash2', redirectUris: ['http://127.0.0.1/other'], scopes: ['messaging.v1.send'], createdAt: at(2, 5) });
      expect(afterChange?.registration).toMatchObject({ documentHash: 'hash2', firstUsedAt: at(5, 5) });
      expect(await repos().consents.find('user1', DOCUMENT_URL)).toBeUndefined();
    });

    it('never overwrites a client of another kind with a metadata-document client', async () => {
      await repos().clients.create(aClient(DOCUMENT_URL, { name: 'Static' }));
      expect(await repos().clients.saveMetadataDocumentClient(aDocumentClient('hash1'))).toBe('other-client');
      expect(await repos().clients.findById(DOCUMENT_URL)).toEqual(aClient(DOCUMENT_URL, { name: 'Static' }));
    });

    it('stores one client when two first fetches of a document save at once', async () => {
      const outcomes = await Promise.all([repos().clients.saveMetadataDocumentClient(aDocumentClient('hash1')), repos().clients.saveMetadataDocumentClient(aDocumentClient('hash1'))]);
      expect([...outcomes].sort()).toEqual(['created', 'refreshed']);
      expect((await repos().clients.listAll()).filter((client) => client.clientId === DOCUMENT_URL)).toHaveLength(1);
    }, 30_000);

    it('purges the self-registered clients never used and registered before the limit, with their consents', async () => {
      await repos().clients.create(aDynamicClient('old-unused', { createdAt: at(10) }));
      await repos().clients.create(aDynamicClient('old-used', { createdAt: at(10) }));
      await repos().clients.create(aDynamicClient('new-unused', { createdAt: at(100) }));
      await repos().clients.create(aDocumentClient('hash1', { createdAt: at(10) }));
      await repos().clients.create(aClient('static-old', { createdAt: at(10) }));
      await repos().clients.markUsed('old-used', at(20));
      await repos().consents.remember({ userKey: 'user1', clientId: 'old-unused', scopes: ['messaging.v1.read'], grantedAt: at(11) });

      expect(await repos().clients.purgeUnused(at(50))).toBe(2);
      const left = (await repos().clients.listAll()).map((client) => client.clientId).sort();
      expect(left).toEqual(['clientA', 'clientB', 'new-unused', 'old-used', 'static-old']);
      expect(await repos().consents.find('user1', 'old-unused')).toBeUndefined();
      expect(await repos().clients.purgeUnused(at(50))).toBe(0);
    });
  });
}
