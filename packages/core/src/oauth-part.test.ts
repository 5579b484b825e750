import { describe, expect, it } from 'vitest';
import { createControllableClock, createMemoryRepositories, createMemoryUserDirectory } from './testing/index.js';
import { createGatehouse } from './gatehouse.js';
import { ABSENT_REPOSITORY } from './ports/absent-repository.js';
import type { OAuthRepositories } from './ports/repositories.js';
import { defineSettings } from './settings.js';

/** Only the OAuth part of the memory repositories: what an embedder's storage implements (docs/decisions/0161). */
function oauthPart(): OAuthRepositories {
  const { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys } = createMemoryRepositories();
  return { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys };
}

const settings = defineSettings({ issuer: 'http://localhost:3000' });

describe('createGatehouse on the OAuth part of the storage (docs/decisions/0161)', () => {
  it('runs the code flow with the OAuth repositories and a user directory, and no product repository', async () => {
    const userDirectory = createMemoryUserDirectory([{ userKey: 'u-1', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' }]);
    const gatehouse = createGatehouse({ repositories: oauthPart(), settings, clock: createControllableClock(), userDirectory });
    const { client, clientSecret } = await gatehouse.registerClient({ name: 'Orders', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.read'], ownerUserKey: 'u-1' });
    expect(clientSecret).not.toBeNull();
    const check = await gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    if (check.kind !== 'valid') throw check.error;
    const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: 'u-1', sessionId: null });
    const code = new URL(redirectTo).searchParams.get('code') as string;
    const tokens = await gatehouse.exchangeCode({ client, code, redirectUri: 'https://app.example/cb', codeVerifier: undefined });
    expect((await gatehouse.verifyAccessToken(tokens.access_token)).userKey).toBe('u-1');
    // The consent page names the owner through the directory when Gatehouse has no users of its own.
    expect((await gatehouse.presentClient(client)).registeredBy).toEqual({ kind: 'user', email: 'ada@orders.example' });
  });

  it("names a client's owner through the host's directory even beside a users repository that refuses every call (a storage without user tables)", async () => {
    const userDirectory = createMemoryUserDirectory([{ userKey: 'u-1', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' }]);
    const refusing = new Proxy({}, { get: () => () => Promise.reject(new Error('no user tables')) }) as never;
    const gatehouse = createGatehouse({ repositories: { ...oauthPart(), users: refusing }, settings, clock: createControllableClock(), userDirectory });
    const { client } = await gatehouse.registerClient({ name: 'Orders', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.read'], ownerUserKey: 'u-1' });
    expect((await gatehouse.presentClient(client)).registeredBy).toEqual({ kind: 'user', email: 'ada@orders.example' });
  });

  it('refuses, at setup, a gatehouse with neither a user directory nor a users repository, naming both ways out', () => {
    expect(() => createGatehouse({ repositories: oauthPart(), settings, clock: createControllableClock() })).toThrow(/userDirectory.*repositories\.users/);
    // A placeholder marked absent (a storage without user tables) is no users repository (docs/decisions/0201).
    const absent = new Proxy({}, { get: (_target, name) => (name === ABSENT_REPOSITORY ? true : () => Promise.reject(new Error('no user tables'))) }) as never;
    expect(() => createGatehouse({ repositories: { ...oauthPart(), users: absent }, settings, clock: createControllableClock() })).toThrow(/userDirectory.*repositories\.users/);
  });

  it('takes a whole Repositories as before', () => {
    expect(() => createGatehouse({ repositories: createMemoryRepositories(), settings, clock: createControllableClock() })).not.toThrow();
  });
});
