import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { DomainError } from '../errors.js';
import { openIdClientMetadata } from './openid-client-metadata.js';

// A client's OpenID Connect metadata (docs/decisions/0136-openid-client-metadata.md).

function refused(run: () => unknown, field: string): void {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(DomainError);
  expect(error).toMatchObject({ kind: 'invalid', field });
}

describe('openIdClientMetadata', () => {
  it('keeps what is given, trimmed and without repeats; nothing given is nothing stored', () => {
    expect(openIdClientMetadata({})).toEqual({});
    expect(
      openIdClientMetadata({
        idTokenSignedResponseAlg: 'ES256',
        postLogoutRedirectUris: [' https://app.example/bye ', 'https://app.example/bye', 'http://127.0.0.1/bye', ''],
        defaultMaxAge: 0,
        requireAuthTime: true,
      }),
    ).toEqual({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://app.example/bye', 'http://127.0.0.1/bye'], defaultMaxAge: 0, requireAuthTime: true });
  });

  it('refuses another algorithm, a post-logout URI a redirect URI could not be, a bad max age', () => {
    refused(() => openIdClientMetadata({ idTokenSignedResponseAlg: 'none' }), 'idTokenSignedResponseAlg');
    refused(() => openIdClientMetadata({ idTokenSignedResponseAlg: 'HS256' }), 'idTokenSignedResponseAlg');
    for (const uri of ['http://app.example/bye', '/bye', 'https://app.example/bye#x', 'javascript:alert(1)']) refused(() => openIdClientMetadata({ postLogoutRedirectUris: [uri] }), 'postLogoutRedirectUris');
    refused(() => openIdClientMetadata({ postLogoutRedirectUris: Array.from({ length: 21 }, (_, i) => `https://app.example/${i}`) }), 'postLogoutRedirectUris');
    for (const age of [-1, 1.5, Number.NaN, 1e10]) refused(() => openIdClientMetadata({ defaultMaxAge: age }), 'defaultMaxAge');
  });

  it('an update keeps what it does not give, and removes with [], false and null', () => {
    const existing = { idTokenSignedResponseAlg: 'ES256' as const, postLogoutRedirectUris: ['https://app.example/bye'], defaultMaxAge: 60, requireAuthTime: true };
    expect(openIdClientMetadata({}, existing)).toEqual(existing);
    expect(openIdClientMetadata({ postLogoutRedirectUris: [], requireAuthTime: false, defaultMaxAge: null }, existing)).toEqual({ idTokenSignedResponseAlg: 'ES256' });
  });
});

describe('registerClient and updateClient with OpenID Connect metadata', () => {
  it('stores it with the client, and an update changes only what it gives', async () => {
    const t = await createTestGatehouse({ settings: { openid: true } });
    const { client } = await t.gatehouse.registerClient({
      name: 'Site',
      redirectUris: ['https://app.example/cb'],
      scopes: ['openid'],
      idTokenSignedResponseAlg: 'ES256',
      postLogoutRedirectUris: ['https://app.example/bye'],
      defaultMaxAge: 3600,
      requireAuthTime: true,
    });
    expect(await t.repositories.clients.findById(client.clientId)).toMatchObject({ idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://app.example/bye'], defaultMaxAge: 3600, requireAuthTime: true });
    const renamed = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, name: 'Site 2', redirectUris: client.redirectUris, scopes: client.scopes });
    expect(renamed).toMatchObject({ name: 'Site 2', idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://app.example/bye'], defaultMaxAge: 3600, requireAuthTime: true });
    const cleared = await t.gatehouse.updateClient({ ownerUserKey: null, clientId: client.clientId, name: 'Site 2', redirectUris: client.redirectUris, scopes: client.scopes, postLogoutRedirectUris: [], defaultMaxAge: null, idTokenSignedResponseAlg: 'RS256' });
    expect(await t.repositories.clients.findById(client.clientId)).toEqual(cleared);
    expect(cleared).not.toHaveProperty('postLogoutRedirectUris');
    expect(cleared).not.toHaveProperty('defaultMaxAge');
    expect(cleared).toMatchObject({ idTokenSignedResponseAlg: 'RS256', requireAuthTime: true });
  });
});
