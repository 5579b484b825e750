import type { Client } from '../domain/model.js';
import { aClient, aCode, aGrant, aRefreshToken, aSession, aSigningKey, at, seedBasics, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

/**
 * OpenID Connect (docs/decisions/0130-0136): the sign-in a session keeps (`amr`, `acr`), the
 * `openid` part of a code (its nonce and sign-in) and of a grant, through every way a grant is
 * written (a code exchange in each of its forms, `grants.create`) and read (by id, with a refresh
 * token, a user's live grants); a client's OpenID Connect metadata, changed only when an update
 * names it, and so its links and first-party mark; and RS256 signing keys. What is absent reads back as absent.
 */
export function describeOpenIdContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  beforeEach(async () => {
    await seedBasics(repos());
  });

  describe('sessions, codes and grants', () => {
    it('round-trips how a session was authenticated (amr, acr), and a session without as before', async () => {
      const session = aSession('s-mfa', { amr: ['pwd', 'otp'], acr: 'urn:example:loa:2' });
      await repos().sessions.create(session);
      await repos().sessions.create(aSession('s-plain'));
      expect(await repos().sessions.findById('s-mfa')).toEqual(session);
      expect(await repos().sessions.findById('s-plain')).toEqual(aSession('s-plain'));
    });

    it('round-trips the OpenID part of a code: the sign-in (milliseconds kept) and the nonce, each part optional', async () => {
      const full = aCode('full', { openid: { authTime: at(-3600, 123), amr: ['pwd'], acr: '1', nonce: 'n-0S6_WzA2Mj “é”' } });
      const bare = aCode('bare', { openid: { authTime: at(1, 1) } });
      for (const code of [full, bare, aCode('oauth')]) await repos().codes.save(code);
      expect(await repos().codes.findByHash('full')).toEqual(full);
      expect(await repos().codes.findByHash('bare')).toEqual(bare);
      expect(await repos().codes.findByHash('oauth')).toEqual(aCode('oauth'));
      expect((await repos().codes.findByHash('full'))?.openid?.authTime).toBeInstanceOf(Date);
    });

    it("keeps the sign-in of a grant made from a code, read by id, with its refresh token and among the user's live grants", async () => {
      await repos().codes.save(aCode('h', { openid: { authTime: at(2, 2), nonce: 'x' } }));
      const grant = aGrant('g1', { createdAt: at(30, 5), openid: { authTime: at(2, 2), amr: ['pwd', 'hwk'], acr: 'urn:example:loa:3' } });
      expect(await repos().grants.createFromCode({ grant, codeHash: 'h', refreshToken: aRefreshToken('r1', 'g1') })).toBe(true);
      expect(await repos().grants.findById('g1')).toEqual(grant);
      expect(await repos().refreshTokens.findWithGrant('r1')).toEqual({ token: aRefreshToken('r1', 'g1'), grant });
      expect(await repos().grants.listActiveByUser('user1')).toEqual([grant]);
      const oauth = aGrant('g2', { createdAt: at(31) });
      await repos().grants.create(oauth);
      expect(await repos().grants.findById('g2')).toEqual(oauth);
    });
  });

  describe("a client's OpenID Connect metadata", () => {
    it('round-trips it, and changes each field only when an update names it', async () => {
      const site = aClient('site', { idTokenSignedResponseAlg: 'ES256', postLogoutRedirectUris: ['https://site.example/bye', 'https://site.example/a'], defaultMaxAge: 0, requireAuthTime: true });
      await repos().clients.create(site);
      expect(await repos().clients.findById('site')).toEqual(site);
      expect((await repos().clients.listAll()).find((client) => client.clientId === 'site')).toEqual(site);

      const changes = { name: 'Renamed', redirectUris: site.redirectUris, scopes: site.scopes, grantTypes: site.grantTypes, pkceRequired: false };
      expect(await repos().clients.update('site', changes)).toBe(true);
      expect(await repos().clients.findById('site')).toEqual({ ...site, ...changes });
      expect(await repos().clients.update('site', { ...changes, defaultMaxAge: 600, postLogoutRedirectUris: ['https://site.example/bye'] })).toBe(true);
      expect(await repos().clients.findById('site')).toMatchObject({ defaultMaxAge: 600, postLogoutRedirectUris: ['https://site.example/bye'], idTokenSignedResponseAlg: 'ES256', requireAuthTime: true });
      expect(await repos().clients.update('site', { ...changes, idTokenSignedResponseAlg: undefined, postLogoutRedirectUris: [], defaultMaxAge: undefined, requireAuthTime: false })).toBe(true);
      expect(await repos().clients.findById('site')).toEqual({ ...aClient('site'), ...changes });
    });

    it('round-trips its links and first-party mark (docs/decisions/0155), changing each only when an update names it', async () => {
      const links = { clientUri: 'https://app.example/', logoUri: 'https://cdn.app.example/logo.png', policyUri: 'https://app.example/privacy', tosUri: 'http://127.0.0.1:3000/terms' };
      const app = aClient('app', { ...links, firstParty: true });
      await repos().clients.create(app);
      expect(await repos().clients.findById('app')).toEqual(app);
      expect((await repos().clients.listAll()).find((client) => client.clientId === 'app')).toEqual(app);
      const changes = { name: 'App', redirectUris: app.redirectUris, scopes: app.scopes, grantTypes: app.grantTypes, pkceRequired: false };
      expect(await repos().clients.update('app', changes)).toBe(true);
      expect(await repos().clients.findById('app')).toEqual({ ...app, ...changes });
      expect(await repos().clients.update('app', { ...changes, clientUri: 'https://app.example/home', logoUri: undefined, firstParty: false })).toBe(true);
      expect(await repos().clients.findById('app')).toEqual({ ...aClient('app'), ...changes, clientUri: 'https://app.example/home', policyUri: links.policyUri, tosUri: links.tosUri });
      await repos().clients.create(aClient('plain'));
      expect(await repos().clients.findById('plain')).toEqual(aClient('plain'));
    });

    it("keeps a metadata document's OpenID Connect metadata, and what the document says when it is fetched again", async () => {
      const url = 'https://agent.example/client.json';
      const documentClient = (documentHash: string, openid: Partial<Client>): Client =>
        aClient(url, {
          clientSecretHash: null,
          redirectUris: ['https://agent.example/cb'],
          pkceRequired: true,
          registration: { kind: 'metadata-document', documentHash, documentExpiresAt: at(300, 9), metadata: { applicationType: 'web', tokenEndpointAuthMethod: 'none' }, firstUsedAt: null },
          ...openid,
        });
      const first = documentClient('h1', { postLogoutRedirectUris: ['https://agent.example/bye'], idTokenSignedResponseAlg: 'ES256' });
      expect(await repos().clients.saveMetadataDocumentClient(first)).toBe('created');
      expect(await repos().clients.findById(url)).toEqual(first);
      const next = documentClient('h2', { defaultMaxAge: 60, requireAuthTime: true });
      expect(await repos().clients.saveMetadataDocumentClient(next)).toBe('changed');
      expect(await repos().clients.findById(url)).toEqual(next);
    });
  });

  describe('signing keys', () => {
    it('round-trips an RS256 key beside an ES256 one', async () => {
      const rsa = aSigningKey('rsa1', {
        alg: 'RS256',
        publicJwk: { kty: 'RSA', n: 'n-rsa1', e: 'AQAB', kid: 'rsa1', alg: 'RS256', use: 'sig' },
        privateJwk: { kty: 'RSA', n: 'n-rsa1', e: 'AQAB', d: 'd-rsa1', p: 'p', q: 'q', dp: 'dp', dq: 'dq', qi: 'qi', kid: 'rsa1', alg: 'RS256' },
        createdAt: at(1, 1),
      });
      await repos().signingKeys.save(aSigningKey('ec1'));
      await repos().signingKeys.save(rsa);
      expect(await repos().signingKeys.list()).toEqual([aSigningKey('ec1'), rsa]);
    });
  });
}
