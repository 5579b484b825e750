import { describe, expect, it } from 'vitest';
import { createControllableClock, createMemoryRepositories, createTestGatehouse } from '@gatehouse/core/testing';
import { DEFAULT_SCOPES } from '../domain/scopes.js';
import { DomainError, OAuthError } from '../errors.js';
import { createGatehouse } from '../gatehouse.js';
import { defineSettings } from '../settings.js';
import { sha256 } from '../crypto.js';
import { validateRegistration } from './clients.js';
import { rejectionOf } from '../test-support/rejections.js';

const valid = { name: 'Demo', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] };

function invalid(run: () => unknown, field: string): DomainError {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).kind).toBe('invalid');
  expect((error as DomainError).field).toBe(field);
  return error as DomainError;
}

describe('validateRegistration', () => {
  it('accepts https URIs and http on loopback, trimming and deduplicating', () => {
    const result = validateRegistration({
      name: '  Demo app ',
      redirectUris: ['https://app.example/cb', ' http://localhost:8080/cb ', 'http://127.0.0.1/cb', 'http://[::1]:3000/cb', 'https://app.example/cb', ''],
      scopes: ['messaging.v1.send', 'messaging.v1.send', 'admin.v1.attributes.read'],
    }, DEFAULT_SCOPES);
    expect(result).toEqual({
      name: 'Demo app',
      redirectUris: ['https://app.example/cb', 'http://localhost:8080/cb', 'http://127.0.0.1/cb', 'http://[::1]:3000/cb'],
      scopes: ['messaging.v1.send', 'admin.v1.attributes.read'],
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });

  it('refuses redirect URIs that are not absolute https (or loopback http), or carry a fragment or user information', () => {
    for (const uri of [
      '/relative/cb',
      'app.example/cb',
      'http://app.example/cb',
      'http://localhost.evil.example/cb',
      'http://127.0.0.1.nip.io/cb',
      'ftp://app.example/cb',
      'javascript:alert(1)',
      'com.example.app:/cb',
      'https://app.example/cb#fragment',
      'https://app.example/cb#',
      'https://user:pass@app.example/cb',
      // Compared exactly: a wildcard host would never match (RFC 9700 §4.1.3).
      'https://*.app.example/cb',
      `https://app.example/${'x'.repeat(1000)}`,
    ]) {
      const error = invalid(() => validateRegistration({ ...valid, redirectUris: [uri] }, DEFAULT_SCOPES), 'redirectUris');
      expect(error.message).toContain(uri.length > 1000 ? 'at most 1000 characters' : uri);
    }
    expect(validateRegistration({ ...valid, redirectUris: [`https://app.example/${'x'.repeat(980)}`] }, DEFAULT_SCOPES).redirectUris).toHaveLength(1);
  });

  it('refuses a redirect URI not written as a URL parser writes it back, naming the form to write (docs/decisions/0197)', () => {
    const error = invalid(() => validateRegistration({ ...valid, redirectUris: ['https://app.example/cb', 'http://127.1/cb'] }, DEFAULT_SCOPES), 'redirectUris');
    expect(error.message).toBe('The redirect URI http://127.1/cb is not written as a URL parser writes it back: write it as http://127.0.0.1/cb.');
    invalid(() => validateRegistration({ ...valid, redirectUris: ['HTTPS://app.example/cb'] }, DEFAULT_SCOPES), 'redirectUris');
    expect(validateRegistration({ ...valid, redirectUris: [' http://127.0.0.1/cb ', 'http://localhost:3000'] }, DEFAULT_SCOPES).redirectUris).toEqual(['http://127.0.0.1/cb', 'http://localhost:3000']);
  });

  it('refuses no redirect URI and more than 20', () => {
    invalid(() => validateRegistration({ ...valid, redirectUris: [] }, DEFAULT_SCOPES), 'redirectUris');
    invalid(() => validateRegistration({ ...valid, redirectUris: ['  '] }, DEFAULT_SCOPES), 'redirectUris');
    const many = Array.from({ length: 21 }, (_, i) => `https://app.example/cb${i}`);
    invalid(() => validateRegistration({ ...valid, redirectUris: many }, DEFAULT_SCOPES), 'redirectUris');
    expect(validateRegistration({ ...valid, redirectUris: many.slice(0, 20) }, DEFAULT_SCOPES).redirectUris).toHaveLength(20);
  });

  it('takes scopes only from the catalogue, at least one', () => {
    invalid(() => validateRegistration({ ...valid, scopes: [] }, DEFAULT_SCOPES), 'scopes');
    expect(invalid(() => validateRegistration({ ...valid, scopes: ['messaging.v1.send', 'messaging.v2.send'] }, DEFAULT_SCOPES), 'scopes').message).toContain('messaging.v2.send');
  });

  it('takes the catalogue it is given, not the default one', () => {
    const orders = [{ scope: 'orders.v1.read', description: 'See your orders' }];
    expect(validateRegistration({ ...valid, scopes: ['orders.v1.read'] }, orders).scopes).toEqual(['orders.v1.read']);
    expect(invalid(() => validateRegistration({ ...valid, scopes: ['messaging.v1.send'] }, orders), 'scopes').message).toBe('The scope messaging.v1.send is not in the catalogue.');
  });

  it('wants a name of 1 to 100 characters without control characters', () => {
    invalid(() => validateRegistration({ ...valid, name: '   ' }, DEFAULT_SCOPES), 'name');
    invalid(() => validateRegistration({ ...valid, name: 'x'.repeat(101) }, DEFAULT_SCOPES), 'name');
    invalid(() => validateRegistration({ ...valid, name: 'bad\u0007name' }, DEFAULT_SCOPES), 'name');
    expect(validateRegistration({ ...valid, name: 'x'.repeat(100) }, DEFAULT_SCOPES).name).toHaveLength(100);
  });

  it('wants a name the consent page can show as it is: nothing invisible, no direction override, no line separator, something visible (docs/decisions/0190)', () => {
    expect(invalid(() => validateRegistration({ ...valid, name: '\u200b' }, DEFAULT_SCOPES), 'name').message).toBe('The name must not contain invisible formatting characters.');
    expect(invalid(() => validateRegistration({ ...valid, name: 'Gatehouse Admin\u202e' }, DEFAULT_SCOPES), 'name').message).toBe('The name must not contain invisible formatting characters.');
    expect(invalid(() => validateRegistration({ ...valid, name: 'a\u2028x' }, DEFAULT_SCOPES), 'name').message).toBe('The name must not contain control characters.');
    expect(invalid(() => validateRegistration({ ...valid, name: 'App\ud800' }, DEFAULT_SCOPES), 'name').message).toBe('The name must be well-formed Unicode (a lone surrogate is not).');
    expect(invalid(() => validateRegistration({ ...valid, name: '\u0301\u0301' }, DEFAULT_SCOPES), 'name').message).toBe('The name must contain a visible character.');
    expect(validateRegistration({ ...valid, name: 'Cafe\u0301 app 👩\u200d💻' }, DEFAULT_SCOPES).name).toBe('Caf\u00e9 app 👩\u200d💻');
    // Characters Unicode counts as letters, marks or symbols that draw nothing: a Hangul filler,
    // the combining grapheme joiner, a variation selector after a letter, the Braille blank.
    for (const name of ['Orders\u3164', 'Orders\u034f', 'Orders\ufe00', 'Orders\ufe0f', 'Orders\u2800', '\u3164', '\u115f', '\u2800', '\uffa0']) {
      expect(invalid(() => validateRegistration({ ...valid, name }, DEFAULT_SCOPES), 'name').message, JSON.stringify(name)).toBe('The name must not contain invisible formatting characters.');
    }
    expect(invalid(() => validateRegistration({ ...valid, name: 'x\ue000' }, DEFAULT_SCOPES), 'name').message).toBe('The name must not contain private-use characters.');
    // An emoji's presentation selector is part of how it is drawn.
    expect(validateRegistration({ ...valid, name: 'Orders \u2764\ufe0f' }, DEFAULT_SCOPES).name).toBe('Orders \u2764\ufe0f');
  });
});

describe('registerClient', () => {
  it('refuses a user a client beyond maxClientsPerUser, naming the field the portal shows it on; the operator\'s clients have no such bound (docs/decisions/0192)', async () => {
    const t = await createTestGatehouse({ settings: { maxClientsPerUser: 2 } });
    const owner = await t.seedUser();
    const other = await t.seedUser({ email: 'bob@example.com' });
    await t.gatehouse.registerClient({ ...valid, ownerUserKey: owner.userKey });
    await t.gatehouse.registerClient({ ...valid, ownerUserKey: owner.userKey });
    const refused = await t.gatehouse.registerClient({ ...valid, ownerUserKey: owner.userKey }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'invalid', field: 'name', message: 'You have 2 clients, the most one user may register: delete one first.' });
    expect(await t.gatehouse.listClients(owner.userKey)).toHaveLength(2);
    await t.gatehouse.registerClient({ ...valid, ownerUserKey: other.userKey });
    for (let index = 0; index < 3; index += 1) await t.gatehouse.registerClient({ ...valid, ownerUserKey: null });
  });

  it('returns the secret once and stores only its SHA-256', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client, clientSecret } = await t.gatehouse.registerClient({ ...valid, ownerUserKey: owner.userKey });
    if (clientSecret === null) throw new Error('a confidential client has a secret');
    expect(clientSecret).toMatch(/^[A-Za-z0-9]{43,}$/);
    const stored = await t.repositories.clients.findById(client.clientId);
    expect(stored).toEqual({
      clientId: client.clientId,
      clientSecretHash: sha256(clientSecret),
      name: 'Demo',
      redirectUris: ['https://app.example/cb'],
      scopes: ['messaging.v1.send'],
      grantTypes: ['authorization_code', 'refresh_token'],
      pkceRequired: false,
      ownerUserKey: owner.userKey,
      createdAt: t.clock.now(),
    });
    expect(JSON.stringify(stored)).not.toContain(clientSecret);
    expect(t.audit.ofType('client.created')).toEqual([{ type: 'client.created', at: t.clock.now(), clientId: client.clientId, userKey: owner.userKey }]);
  });

  it('generates alphanumeric ids and secrets by default (Basic credentials need no encoding)', async () => {
    const gatehouse = createGatehouse({
      repositories: createMemoryRepositories(),
      settings: defineSettings({ issuer: 'http://localhost:3000' }),
      clock: createControllableClock(),
    });
    const first = await gatehouse.registerClient(valid);
    const second = await gatehouse.registerClient(valid);
    expect(first.client.clientId).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(first.clientSecret).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(second.client.clientId).not.toBe(first.client.clientId);
    expect(second.clientSecret).not.toBe(first.clientSecret);
  });

  it('registers a client with a scope of the configured catalogue, and refuses one outside it', async () => {
    const t = await createTestGatehouse({ settings: { scopes: [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }] } });
    const { client } = await t.gatehouse.registerClient({ ...valid, scopes: ['orders.v1.read', 'messaging.v1.send'] });
    expect((await t.repositories.clients.findById(client.clientId))?.scopes).toEqual(['orders.v1.read', 'messaging.v1.send']);
    const unknown = await rejectionOf(t.gatehouse.registerClient({ ...valid, scopes: ['orders.v1.write'] }));
    expect(unknown).toBeInstanceOf(DomainError);
    expect(unknown).toMatchObject({ kind: 'invalid', field: 'scopes', message: 'The scope orders.v1.write is not in the catalogue.' });
    const edited = await rejectionOf(t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, ...valid, scopes: ['orders.v1.write'] }));
    expect(edited).toMatchObject({ kind: 'invalid', field: 'scopes' });
    expect(await t.gatehouse.listClients()).toHaveLength(1);
  });

  it('refuses the default scopes when the catalogue replaces them', async () => {
    const t = await createTestGatehouse({ settings: { scopes: [{ scope: 'orders.v1.read', description: 'See your orders' }] } });
    expect(await rejectionOf(t.gatehouse.registerClient(valid))).toMatchObject({ kind: 'invalid', field: 'scopes', message: 'The scope messaging.v1.send is not in the catalogue.' });
    expect((await t.seedClient()).client.scopes).toEqual(['orders.v1.read']);
  });

  it('does not store an invalid registration', async () => {
    const t = await createTestGatehouse();
    const error = await rejectionOf(t.gatehouse.registerClient({ ...valid, redirectUris: ['http://app.example/cb'] }));
    expect(error).toBeInstanceOf(DomainError);
    expect(await t.gatehouse.listClients()).toEqual([]);
  });
});

describe('authenticateClient', () => {
  it('returns the client for the right secret', async () => {
    const t = await createTestGatehouse();
    const { client, clientSecret } = await t.seedClient();
    expect(await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret })).toEqual(client);
  });

  it('fails the same way for a wrong secret, an unknown client and an empty secret', async () => {
    const t = await createTestGatehouse();
    const { client, clientSecret } = await t.seedClient();
    const attempts = [
      { clientId: client.clientId, clientSecret: `${clientSecret}x` },
      { clientId: client.clientId, clientSecret: clientSecret.slice(1) },
      { clientId: client.clientId, clientSecret: '' },
      { clientId: 'unknown-client', clientSecret },
    ];
    const errors = [];
    for (const attempt of attempts) errors.push(await rejectionOf(t.gatehouse.authenticateClient(attempt)));
    for (const error of errors) {
      expect(error).toBeInstanceOf(OAuthError);
      expect(error).toMatchObject({ code: 'invalid_client', description: 'Client authentication failed.' });
    }
    expect((errors[0] as OAuthError).detail).toBe('wrong secret');
    expect((errors[3] as OAuthError).detail).toBe('unknown client');
    const failures = t.audit.ofType('client.authentication_failed');
    expect(failures.map((event) => event.clientId)).toEqual([client.clientId, client.clientId, client.clientId, 'unknown-client']);
    expect(JSON.stringify(t.audit.events)).not.toContain(clientSecret);
  });

  it('cuts a long presented client id in the audit record', async () => {
    const t = await createTestGatehouse();
    await rejectionOf(t.gatehouse.authenticateClient({ clientId: 'x'.repeat(500), clientSecret: 's' }));
    expect(t.audit.ofType('client.authentication_failed')[0]?.clientId).toHaveLength(64);
  });
});

describe('rotateClientSecret', () => {
  it('makes the old secret fail and the new one work', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client, clientSecret: oldSecret } = await t.seedClient({ ownerUserKey: owner.userKey });
    const rotated = await t.gatehouse.rotateClientSecret({ ownerUserKey: owner.userKey, clientId: client.clientId });
    expect(rotated.clientSecret).not.toBe(oldSecret);
    expect(rotated.client.clientSecretHash).toBe(sha256(rotated.clientSecret));
    const error = await rejectionOf(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: oldSecret }));
    expect((error as OAuthError).code).toBe('invalid_client');
    expect((await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret: rotated.clientSecret })).clientId).toBe(client.clientId);
    expect(t.audit.ofType('client.secret_rotated')).toEqual([{ type: 'client.secret_rotated', at: t.clock.now(), clientId: client.clientId, userKey: owner.userKey }]);
  });

  it('keeps the grants issued before the rotation', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });
    await t.gatehouse.rotateClientSecret({ ownerUserKey: null, clientId: client.clientId });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).clientId).toBe(client.clientId);
  });

  it('is not_found for another user\'s client and for an unknown client', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const stranger = await t.seedUser();
    const { client, clientSecret } = await t.seedClient({ ownerUserKey: owner.userKey });
    expect(await rejectionOf(t.gatehouse.rotateClientSecret({ ownerUserKey: stranger.userKey, clientId: client.clientId }))).toMatchObject({ kind: 'not_found' });
    expect(await rejectionOf(t.gatehouse.rotateClientSecret({ ownerUserKey: null, clientId: 'unknown' }))).toMatchObject({ kind: 'not_found' });
    expect((await t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret })).clientId).toBe(client.clientId);
  });
});

describe('updateClient', () => {
  it('changes name, redirect URIs, scopes and PKCE, validated', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client } = await t.seedClient({ ownerUserKey: owner.userKey });
    const updated = await t.gatehouse.updateClient({
      ownerUserKey: owner.userKey,
      clientId: client.clientId,
      name: 'Renamed',
      redirectUris: ['https://new.example/cb'],
      scopes: ['messaging.v1.read'],
      pkceRequired: true,
    });
    expect(updated).toMatchObject({ name: 'Renamed', redirectUris: ['https://new.example/cb'], scopes: ['messaging.v1.read'], pkceRequired: true });
    expect(await t.repositories.clients.findById(client.clientId)).toEqual(updated);
    const error = await rejectionOf(
      t.gatehouse.updateClient({ ownerUserKey: owner.userKey, clientId: client.clientId, name: 'x', redirectUris: ['https://a.example/#f'], scopes: ['messaging.v1.read'] }),
    );
    expect(error).toMatchObject({ kind: 'invalid', field: 'redirectUris' });
    expect((await t.repositories.clients.findById(client.clientId))?.name).toBe('Renamed');
  });

  it('an edit of the name, redirect URIs, links or to wider scopes forgets every user’s remembered consent; narrower scopes, the same URIs in another order or PKCE keep it (docs/decisions/0195)', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const users = [await t.seedUser(), await t.seedUser()];
    const { client } = await t.seedClient({ ownerUserKey: owner.userKey, name: 'Nice Calendar', redirectUris: ['https://nice.example/cb', 'https://nice.example/cb2'], scopes: ['messaging.v1.read', 'messaging.v1.send'] });
    const base = { ownerUserKey: owner.userKey, clientId: client.clientId, name: 'Nice Calendar', redirectUris: ['https://nice.example/cb', 'https://nice.example/cb2'], scopes: ['messaging.v1.read', 'messaging.v1.send'] };
    const allowAll = async () => {
      for (const user of users) await t.repositories.consents.remember({ userKey: user.userKey, clientId: client.clientId, scopes: ['messaging.v1.read'], grantedAt: t.clock.now() });
    };
    const remembered = async () => (await Promise.all(users.map((user) => t.repositories.consents.find(user.userKey, client.clientId)))).filter(Boolean).length;

    await allowAll();
    for (const keeps of [{ ...base, redirectUris: ['https://nice.example/cb2', 'https://nice.example/cb'] }, { ...base, scopes: ['messaging.v1.read'] }, { ...base, scopes: ['messaging.v1.read'], pkceRequired: true }]) {
      await t.gatehouse.updateClient(keeps);
      expect(await remembered(), JSON.stringify(keeps)).toBe(2);
    }
    const forgets = [
      { ...base, scopes: ['messaging.v1.read'], name: 'Totally Different App' },
      { ...base, scopes: ['messaging.v1.read'], name: 'Totally Different App', redirectUris: ['https://attacker.example/steal'] },
      { ...base, scopes: ['messaging.v1.read'], name: 'Totally Different App', redirectUris: ['https://attacker.example/steal'], clientUri: 'https://attacker.example/' },
      { ...base, scopes: ['messaging.v1.read', 'messaging.v1.send'], name: 'Totally Different App', redirectUris: ['https://attacker.example/steal'], clientUri: 'https://attacker.example/' },
    ];
    for (const edit of forgets) {
      await allowAll();
      await t.gatehouse.updateClient(edit);
      expect(await remembered(), JSON.stringify(edit)).toBe(0);
    }
    expect(t.audit.ofType('client.updated').at(-1)).toMatchObject({ clientId: client.clientId, reason: 'remembered consents forgotten' });
  });

  it('the audit says who edited and who deleted a client: its owner in the portal, nobody for the operator', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client } = await t.seedClient({ ownerUserKey: owner.userKey });
    await t.gatehouse.updateClient({ ownerUserKey: owner.userKey, clientId: client.clientId, ...valid });
    await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, ...valid });
    expect(t.audit.ofType('client.updated').map((event) => event.userKey)).toEqual([owner.userKey, undefined]);
    await t.gatehouse.deleteClient({ ownerUserKey: owner.userKey, clientId: client.clientId });
    expect(t.audit.ofType('client.deleted')).toMatchObject([{ clientId: client.clientId, userKey: owner.userKey }]);
  });

  it('keeps pkceRequired when not given, and refuses another owner', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const stranger = await t.seedUser();
    const { client } = await t.seedClient({ ownerUserKey: owner.userKey, pkceRequired: true });
    const updated = await t.gatehouse.updateClient({ ownerUserKey: owner.userKey, clientId: client.clientId, ...valid });
    expect(updated.pkceRequired).toBe(true);
    expect(await rejectionOf(t.gatehouse.updateClient({ ownerUserKey: stranger.userKey, clientId: client.clientId, ...valid }))).toMatchObject({ kind: 'not_found' });
  });
});

describe('deleteClient', () => {
  it('removes the client; its tokens and codes stop working', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client, clientSecret } = await t.seedClient({ ownerUserKey: owner.userKey });
    const tokens = await t.obtainTokens({ client, user: owner });
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    if (check.kind !== 'valid') throw check.error;
    const code = new URL((await t.gatehouse.approveAuthorization({ request: check.request, userKey: owner.userKey, sessionId: null })).redirectTo).searchParams.get('code') as string;

    await t.gatehouse.deleteClient({ ownerUserKey: owner.userKey, clientId: client.clientId });

    expect(await rejectionOf(t.gatehouse.verifyAccessToken(tokens.access_token))).toMatchObject({ code: 'invalid_token' });
    expect(await rejectionOf(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined }))).toMatchObject({ code: 'invalid_grant' });
    expect(await rejectionOf(t.gatehouse.exchangeCode({ client, code, redirectUri: client.redirectUris[0], codeVerifier: undefined }))).toMatchObject({ code: 'invalid_grant' });
    expect(await rejectionOf(t.gatehouse.authenticateClient({ clientId: client.clientId, clientSecret }))).toMatchObject({ code: 'invalid_client' });
    expect((await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' })).kind).toBe('show-error');
    expect(await t.gatehouse.listClients(owner.userKey)).toEqual([]);
    expect(t.audit.ofType('client.deleted')).toHaveLength(1);
  });

  it('is not_found for another owner (nothing deleted) and for an unknown client', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const stranger = await t.seedUser();
    const { client } = await t.seedClient({ ownerUserKey: owner.userKey });
    expect(await rejectionOf(t.gatehouse.deleteClient({ ownerUserKey: stranger.userKey, clientId: client.clientId }))).toMatchObject({ kind: 'not_found' });
    expect(await t.repositories.clients.findById(client.clientId)).toBeDefined();
    expect(await rejectionOf(t.gatehouse.deleteClient({ ownerUserKey: null, clientId: 'unknown' }))).toMatchObject({ kind: 'not_found' });
  });
});

describe('listClients and findOwnedClient', () => {
  it('lists by owner, or all', async () => {
    const t = await createTestGatehouse();
    const owner = await t.seedUser();
    const { client: mine } = await t.seedClient({ ownerUserKey: owner.userKey });
    const { client: unowned } = await t.seedClient();
    expect((await t.gatehouse.listClients(owner.userKey)).map((client) => client.clientId)).toEqual([mine.clientId]);
    expect((await t.gatehouse.listClients()).map((client) => client.clientId).sort()).toEqual([mine.clientId, unowned.clientId].sort());
    expect(await t.gatehouse.findOwnedClient(owner.userKey, mine.clientId)).toEqual(mine);
    expect(await rejectionOf(t.gatehouse.findOwnedClient(owner.userKey, unowned.clientId))).toMatchObject({ kind: 'not_found' });
  });
});
