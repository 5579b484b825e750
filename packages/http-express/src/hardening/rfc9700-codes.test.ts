import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizePath, type TestBrowser } from '../test-support/index.js';
import { ALL_SCOPES, createHardenedApp, type Hardened } from './test-support/harness.js';

// RFC 9700 §2.1.1 / §4.8 (PKCE and downgrade), RFC 6749 §4.1.3 (codes bound to the client and
// redirect URI), RFC 6749 §4.1.2 / RFC 9700 §4.5 (a replayed code revokes what it produced).

const REDIRECT = 'https://client.example/callback';
const VERIFIER = 'verifier-'.padEnd(64, 'x');

let h: Hardened;
let browser: TestBrowser;

beforeAll(async () => {
  h = await createHardenedApp();
  browser = await h.signedInBrowser('ada@example.com');
});

async function expectInvalidGrant(res: request.Response, label: string): Promise<void> {
  expect(res.status, label).toBe(400);
  expect(res.body.error, label).toBe('invalid_grant');
  expect(res.body.access_token, label).toBeUndefined();
}

const me = (token: string) => request(h.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${token}`);

describe('PKCE (RFC 7636, RFC 9700 §2.1.1)', () => {
  it('downgrade: a challenge was sent at authorize, no verifier at the token endpoint → invalid_grant', async () => {
    const code = await h.codeOverHttp(browser, h.client, { code_challenge: s256Challenge(VERIFIER), code_challenge_method: 'S256' });
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }), 'no verifier');
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: `${VERIFIER}y` }), 'wrong verifier');
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: s256Challenge(VERIFIER) }), 'the challenge as verifier (plain)');
    const ok = await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(ok.status, ok.text).toBe(200);
  });

  it('downgrade: a verifier for a code issued without a challenge → invalid_grant', async () => {
    const code = await h.codeOverHttp(browser);
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: VERIFIER }), 'verifier without challenge');
  });

  it('plain is refused at authorize, named or by default (RFC 7636 §4.3 defaults to plain)', async () => {
    for (const extra of [{ code_challenge: VERIFIER, code_challenge_method: 'plain' }, { code_challenge: s256Challenge(VERIFIER) }]) {
      const res = await browser.get(authorizePath(h.client, extra));
      expect(res.status).toBe(302);
      const params = new URL(res.headers.location as string).searchParams;
      expect(params.get('error')).toBe('invalid_request');
      expect(params.get('code')).toBeNull();
    }
  });

  it('a pkceRequired client cannot get a code without a challenge', async () => {
    const { client } = await h.seedClient({ pkceRequired: true });
    const res = await browser.get(authorizePath(client));
    expect(new URL(res.headers.location as string).searchParams.get('error')).toBe('invalid_request');
  });
});

describe('codes are bound to their client and redirect URI (RFC 6749 §4.1.3)', () => {
  it("another client's code → invalid_grant, even with that client's redirect URI registered too", async () => {
    const { client: other, clientSecret: otherSecret } = await h.seedClient({ name: 'Other', redirectUris: [REDIRECT], scopes: ALL_SCOPES });
    const code = await h.codeOverHttp(browser);
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { clientId: other.clientId, secret: otherSecret }), 'other client');
    // The rightful client still gets its tokens: an attacker's attempt does not burn the code.
    expect((await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT })).status).toBe(200);
  });

  it('a different redirect_uri at the token endpoint → invalid_grant', async () => {
    const { client, clientSecret } = await h.seedClient({ redirectUris: [REDIRECT, 'https://client.example/other'] });
    const code = await h.codeOverHttp(browser, client, { redirect_uri: REDIRECT });
    const as = { clientId: client.clientId, secret: clientSecret };
    for (const uri of ['https://client.example/other', `${REDIRECT}/`, 'https://client.example/Callback']) {
      await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: uri }, as), uri);
    }
  });

  it('an expired code → invalid_grant', async () => {
    const code = await h.codeOverHttp(browser);
    h.clock.advance(61);
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }), 'expired');
  });
});

describe('a replayed code revokes the grant of its first use (RFC 9700 §4.5)', () => {
  it('the first access token then gets 401 at Users/me, and its refresh token is dead', async () => {
    const code = await h.codeOverHttp(browser);
    const first = await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    expect(first.status).toBe(200);
    const { access_token, refresh_token } = first.body as { access_token: string; refresh_token: string };
    expect((await me(access_token)).status).toBe(200);

    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }), 'replay');

    const after = await me(access_token);
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).toContain('error="invalid_token"');
    await expectInvalidGrant(await h.token({ grant_type: 'refresh_token', refresh_token }), 'refresh after replay');
    expect(h.audit.ofType('code.replayed').length).toBeGreaterThanOrEqual(1);
  });

  it('a used code shown by another client is invalid_grant and revokes nothing; its own client’s replay does (RFC 6749 §4.1.3, docs/decisions/0007)', async () => {
    const { client: other, clientSecret } = await h.seedClient({ name: 'Thief', redirectUris: [REDIRECT] });
    const code = await h.codeOverHttp(browser);
    const first = await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    const { access_token } = first.body as { access_token: string };
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, { clientId: other.clientId, secret: clientSecret }), 'thief');
    expect((await me(access_token)).status).toBe(200);
    await expectInvalidGrant(await h.token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }), 'own replay');
    expect((await me(access_token)).status).toBe(401);
  });
});
