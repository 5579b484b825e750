import { s256Challenge } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { authorizePath, createTestApp, formAction, inputValue } from '../test-support/index.js';

const ISSUER = 'http://localhost:3000';

async function setup() {
  const t = await createTestApp();
  const user = await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.seedClient({ name: 'Demo App', scopes: ['messaging.v1.send', 'messaging.v1.read'] });
  return { t, user, client, clientSecret };
}

function expectErrorPage(res: request.Response, status = 400) {
  expect(res.status).toBe(status);
  expect(res.headers.location).toBeUndefined();
  expect(res.headers['content-type']).toMatch(/^text\/html/);
}

function redirectParams(res: request.Response): URLSearchParams {
  expect(res.status).toBe(302);
  const location = new URL(res.headers.location as string);
  expect(`${location.origin}${location.pathname}`).toBe('https://client.example/callback');
  return location.searchParams;
}

describe('GET /oauth/authorize: client and redirect URI are checked first (no redirect)', () => {
  it('an unknown client is a 400 page without Location', async () => {
    const { t } = await setup();
    const res = await request(t.app).get('/oauth/authorize?client_id=nobody&response_type=code&redirect_uri=https%3A%2F%2Fclient.example%2Fcallback');
    expectErrorPage(res);
    expect(res.text).toContain('The client is not known.');
  });

  it('a missing client_id is a 400 page', async () => {
    const { t } = await setup();
    expectErrorPage(await request(t.app).get('/oauth/authorize?response_type=code'));
  });

  it('an unregistered redirect_uri is a 400 page, even when other parameters are bad too', async () => {
    const { t, client } = await setup();
    const res = await request(t.app).get(authorizePath(client, { redirect_uri: 'https://evil.example/callback', response_type: 'token' }));
    expectErrorPage(res);
    expect(res.text).toContain('The redirect_uri is not registered for this client.');
    expect(res.text).not.toContain('evil.example');
  });

  it('a redirect_uri that only differs by a trailing slash or case is not registered', async () => {
    const { t, client } = await setup();
    expectErrorPage(await request(t.app).get(authorizePath(client, { redirect_uri: 'https://client.example/callback/' })));
    expectErrorPage(await request(t.app).get(authorizePath(client, { redirect_uri: 'https://CLIENT.example/callback' })));
  });

  it('an omitted redirect_uri means the only registered one; with several registered it is the 400 page', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const single = await browser.get(authorizePath(client, { redirect_uri: undefined }));
    expect(single.status).toBe(200);
    const { client: several } = await t.seedClient({ redirectUris: ['https://a.example/cb', 'https://b.example/cb'] });
    const res = await browser.get(`/oauth/authorize?client_id=${several.clientId}&response_type=code`);
    expectErrorPage(res);
  });

  it('a repeated client_id or redirect_uri is the 400 page', async () => {
    const { t, client } = await setup();
    expectErrorPage(await request(t.app).get(`${authorizePath(client)}&client_id=${client.clientId}`));
    expectErrorPage(await request(t.app).get(`${authorizePath(client)}&redirect_uri=https%3A%2F%2Fclient.example%2Fcallback`));
  });

  it('the error page escapes what it shows and has the page security headers', async () => {
    const { t } = await setup();
    const res = await request(t.app).get('/oauth/authorize?client_id=%3Cscript%3Ealert(1)%3C%2Fscript%3E&response_type=code');
    expectErrorPage(res);
    expect(res.text).not.toContain('<script>');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe('GET /oauth/authorize: other errors redirect a signed-in user with error, error_description, state and iss (RFC 9700 §4.11.2)', () => {
  it('response_type other than code → unsupported_response_type', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const params = redirectParams(await browser.get(authorizePath(client, { response_type: 'token', state: 'xyz 1/2' })));
    expect(params.get('error')).toBe('unsupported_response_type');
    expect(params.get('error_description')).toBeTruthy();
    expect(params.get('state')).toBe('xyz 1/2');
    expect(params.get('iss')).toBe(ISSUER);
    expect(params.get('code')).toBeNull();
  });

  it('a missing response_type → invalid_request', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const params = redirectParams(await browser.get(authorizePath(client, { response_type: undefined, state: 's' })));
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('state')).toBe('s');
  });

  it('a scope the client was not registered with → invalid_scope', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const params = redirectParams(await browser.get(authorizePath(client, { scope: 'messaging.v1.send admin.v1.attributes.write', state: 'abc' })));
    expect(params.get('error')).toBe('invalid_scope');
    expect(params.get('state')).toBe('abc');
    expect(params.get('iss')).toBe(ISSUER);
  });

  it('an unknown scope → invalid_scope', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const params = redirectParams(await browser.get(authorizePath(client, { scope: 'everything' })));
    expect(params.get('error')).toBe('invalid_scope');
    expect(params.get('state')).toBeNull();
  });

  it('a repeated state or scope → invalid_request', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const params = redirectParams(await browser.get(`${authorizePath(client, { state: 'a' })}&state=b`));
    expect(params.get('error')).toBe('invalid_request');
    const scope = redirectParams(await browser.get(`${authorizePath(client, { scope: 'messaging.v1.send' })}&scope=messaging.v1.read`));
    expect(scope.get('error')).toBe('invalid_request');
  });

  it('PKCE plain is refused, and a pkceRequired client must send a challenge', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const plain = redirectParams(await browser.get(authorizePath(client, { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' })));
    expect(plain.get('error')).toBe('invalid_request');
    const noMethod = redirectParams(await browser.get(authorizePath(client, { code_challenge: 'a'.repeat(43) })));
    expect(noMethod.get('error')).toBe('invalid_request');
    const { client: strict } = await t.seedClient({ pkceRequired: true });
    const missing = await browser.get(authorizePath(strict, { state: 'st' }));
    expect(missing.status).toBe(302);
    const params = new URL(missing.headers.location as string).searchParams;
    expect(params.get('error')).toBe('invalid_request');
    expect(params.get('state')).toBe('st');
  });
});

describe('GET /oauth/authorize: sign-in, then consent', () => {
  it('not signed in: a valid request goes to the login page, which comes back to it', async () => {
    const { t, client } = await setup();
    const path = authorizePath(client, { state: 'abc', unknown_extra: 'ignored' });
    const res = await request(t.app).get(path).expect(302);
    const login = new URL(res.headers.location as string, ISSUER);
    expect(login.pathname).toBe('/oauth/login');
    expect(login.searchParams.get('return_to')).toBe(path);
  });

  it('signed in: the consent page shows the client name, each scope in words, Allow and Deny, and a CSRF token', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(authorizePath(client, { scope: 'messaging.v1.send messaging.v1.read', state: 'abc' })).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Demo App');
    expect(res.text).toContain('Send text messages from your phone numbers');
    expect(res.text).toContain('Read the messages sent from your phone numbers');
    expect(res.text).not.toContain('attribute');
    expect(res.text).toMatch(/<button[^>]*name="decision" value="allow"/);
    expect(res.text).toMatch(/<button[^>]*name="decision" value="deny"/);
    expect(inputValue(res.text, 'csrf_token')).toBe(browser.csrfToken());
    expect(res.text).toContain('ada@example.com');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('no scope parameter asks for all the client’s registered scopes', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(authorizePath(client)).expect(200);
    expect(res.text).toContain('messaging.v1.send');
    expect(res.text).toContain('messaging.v1.read');
  });

  it('escapes a hostile client name', async () => {
    const { t } = await setup();
    const { client } = await t.seedClient({ name: '<img src=x onerror=alert(1)>"' });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(authorizePath(client)).expect(200);
    expect(res.text).not.toContain('<img src=x');
    expect(res.text).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;');
  });

  it('Allow → 302 to redirect_uri with code, state and iss; the code exchanges for exactly the consented scopes', async () => {
    const { t, client, clientSecret } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const { response, location, code } = await browser.authorize(client, { scope: 'messaging.v1.read', state: 'st&=ate' });
    expect(response.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe('https://client.example/callback');
    expect(code).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    expect(location.searchParams.get('state')).toBe('st&=ate');
    expect(location.searchParams.get('iss')).toBe(ISSUER);
    const tokens = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'authorization_code', code: code as string, redirect_uri: client.redirectUris[0] as string }).expect(200);
    expect(tokens.body.scope).toBe('messaging.v1.read');
    expect(t.audit.ofType('consent.granted')).toHaveLength(1);
  });

  it('Deny → 302 with error=access_denied, the original state and iss, and no code', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const { location, code } = await browser.authorize(client, { state: 'keep-me' }, 'deny');
    expect(code).toBeUndefined();
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('keep-me');
    expect(location.searchParams.get('iss')).toBe(ISSUER);
    expect(t.audit.ofType('consent.denied')).toHaveLength(1);
  });

  it('the consent form without its CSRF token is refused (403) and issues no code', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const page = await browser.get(authorizePath(client)).expect(200);
    const action = formAction(page.text, '/oauth/authorize/decision') as string;
    const missing = await browser.postForm(action, { decision: 'allow' }, { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.headers.location).toBeUndefined();
    const wrong = await browser.postForm(action, { decision: 'allow', csrf_token: 'A'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(t.audit.ofType('consent.granted')).toHaveLength(0);
  });

  it('another browser’s CSRF token does not work (the token is bound to the browser)', async () => {
    const { t, client } = await setup();
    const victim = await t.signedInBrowser('ada@example.com');
    const attacker = t.browser();
    await attacker.get('/oauth/login');
    const page = await victim.get(authorizePath(client)).expect(200);
    const action = formAction(page.text, '/oauth/authorize/decision') as string;
    const res = await victim.postForm(action, { decision: 'allow', csrf_token: attacker.csrfToken() as string });
    expect(res.status).toBe(403);
  });

  it('the decision re-validates the authorization parameters', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    await browser.get(authorizePath(client)).expect(200);
    const tampered = authorizePath(client, { redirect_uri: 'https://evil.example/cb' }).replace('/oauth/authorize', '/oauth/authorize/decision');
    const res = await browser.postForm(tampered, { decision: 'allow' });
    expectErrorPage(res);
    const widened = authorizePath(client, { scope: 'admin.v1.attributes.write' }).replace('/oauth/authorize', '/oauth/authorize/decision');
    const scope = await browser.postForm(widened, { decision: 'allow' });
    expect(new URL(scope.headers.location as string).searchParams.get('error')).toBe('invalid_scope');
    expect(t.audit.ofType('consent.granted')).toHaveLength(0);
  });

  it('a decision without a choice is a 400 page', async () => {
    const { t, client } = await setup();
    const browser = await t.signedInBrowser('ada@example.com');
    const page = await browser.get(authorizePath(client)).expect(200);
    const res = await browser.postForm(formAction(page.text, '/oauth/authorize/decision') as string, { decision: 'maybe' });
    expectErrorPage(res);
  });

  it('a decision from a browser that is no longer signed in goes to the login page', async () => {
    const { t, client } = await setup();
    const browser = t.browser();
    await browser.get('/oauth/login');
    const action = authorizePath(client, { state: 's' }).replace('/oauth/authorize', '/oauth/authorize/decision');
    const res = await browser.postForm(action, { decision: 'allow' });
    expect(res.status).toBe(303);
    const login = new URL(res.headers.location as string, ISSUER);
    expect(login.pathname).toBe('/oauth/login');
    expect(login.searchParams.get('return_to')).toBe(authorizePath(client, { state: 's' }));
  });

  it('a PKCE challenge travels through consent to the code', async () => {
    const { t, client, clientSecret } = await setup();
    const verifier = 'v'.repeat(50);
    const browser = await t.signedInBrowser('ada@example.com');
    const { code } = await browser.authorize(client, { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' });
    const without = await request(t.app).post('/oauth/token').auth(client.clientId, clientSecret).type('form')
      .send({ grant_type: 'authorization_code', code: code as string, redirect_uri: client.redirectUris[0] as string });
    expect(without.status).toBe(400);
    expect(without.body.error).toBe('invalid_grant');
  });
});

describe('POST /oauth/authorize (OIDC Core §3.1.2.1: GET and POST; docs/decisions/0199)', () => {
  it('is the same request as the GET with the body’s parameters: a 303 there, which goes on as a GET does', async () => {
    const { t, client } = await setup();
    const params = { response_type: 'code', client_id: client.clientId, redirect_uri: 'https://client.example/callback', scope: 'messaging.v1.read', state: 'a b&c=d' };
    const res = await request(t.app).post('/oauth/authorize').type('form').send(params).expect(303);
    expect(res.headers['cache-control']).toBe('no-store');
    const location = new URL(res.headers.location as string, ISSUER);
    expect(location.pathname).toBe('/oauth/authorize');
    expect(Object.fromEntries(location.searchParams)).toEqual(params);
    // Signed in, the GET it leads to is the consent page for exactly those parameters.
    const browser = await t.signedInBrowser('ada@example.com');
    const consent = await browser.get(res.headers.location as string).expect(200);
    expect(consent.text).toContain('Demo App');
    const decision = new URL(formAction(consent.text) as string, ISSUER);
    expect(Object.fromEntries(decision.searchParams)).toEqual(params);
  });

  it('refuses parameters in the URL as well as the body, and a repeated one, with the error page; never a redirect to the client', async () => {
    const { t, client } = await setup();
    const both = await request(t.app).post(`/oauth/authorize?client_id=${client.clientId}`).type('form').send({ response_type: 'code', client_id: client.clientId });
    expectErrorPage(both);
    expect(both.text).toContain('in the body only');
    const repeated = await request(t.app).post('/oauth/authorize').type('form').send(`response_type=code&client_id=${client.clientId}&scope=a&scope=b`);
    expectErrorPage(repeated);
    const notForm = await request(t.app).post('/oauth/authorize').set('Content-Type', 'application/json').send(JSON.stringify({ client_id: client.clientId }));
    expectErrorPage(notForm, 415);
  });
});
