import { decodeJwt } from 'jose';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createResourceHarness, bearer, ADMIN_PHONE } from '../resource/test-support/harness.js';
import { basicAuth, createTestApp } from '../test-support/index.js';

/** Two values of one header: superagent hands an array to Node's setHeader, which sends each on a line of its own. */
const twice = (values: string[]) => values as unknown as string;

async function setup() {
  const h = await createResourceHarness();
  const { client: machine, clientSecret } = await h.t.seedClient({
    name: 'Nightly job',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    scopes: ['messaging.v1.read', 'messaging.v1.send', 'admin.v1.attributes.read', 'admin.v1.attributes.write'],
  });
  const tokenRequest = (form: Record<string, string>) =>
    request(h.app).post('/oauth/token').set('Authorization', basicAuth(machine.clientId, clientSecret)).type('form').send(form);
  return { h, machine, clientSecret, tokenRequest };
}

function expectForbiddenProblem(res: request.Response) {
  expect(res.status).toBe(403);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'urn:gatehouse:problem:forbidden', status: 403, errorCode: 'FORBIDDEN' });
  expect(res.body.detail).toContain('client-credentials token has no user');
}

describe('POST /oauth/token, grant_type=client_credentials (RFC 6749 §4.4)', () => {
  it('answers a JWT for the client with Basic: sub = client_id, no principal, no refresh token', async () => {
    const { machine, tokenRequest } = await setup();
    const res = await tokenRequest({ grant_type: 'client_credentials' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'messaging.v1.read messaging.v1.send admin.v1.attributes.read admin.v1.attributes.write' });
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({ sub: machine.clientId, client_id: machine.clientId });
    expect(claims).not.toHaveProperty('principal');
  });

  it('refuses the Authorization header sent twice: invalid_request, whichever of the two holds the right secret', async () => {
    const { h, machine, clientSecret } = await setup();
    const right = basicAuth(machine.clientId, clientSecret);
    const wrong = basicAuth(machine.clientId, 'not-the-secret');
    for (const pair of [[right, wrong], [wrong, right]]) {
      const res = await request(h.app).post('/oauth/token').set('Authorization', twice(pair)).type('form').send({ grant_type: 'client_credentials' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The Authorization header must be sent once.' });
    }
  });

  it('works with client_secret_post, narrows the scope on request, and refuses an unregistered one', async () => {
    const { h, machine, clientSecret } = await setup();
    const res = await request(h.app)
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: machine.clientId, client_secret: clientSecret, scope: 'messaging.v1.read' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.scope).toBe('messaging.v1.read');
    const wider = await request(h.app).post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: machine.clientId, client_secret: clientSecret, scope: 'identity.v1.everything' });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
  });

  it('a client without the grant type is unauthorized_client; the machine client may not use the code flow', async () => {
    const { h, tokenRequest } = await setup();
    const { client, clientSecret } = await h.t.seedClient();
    const res = await request(h.app).post('/oauth/token').set('Authorization', basicAuth(client.clientId, clientSecret)).type('form').send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unauthorized_client');
    const code = await tokenRequest({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://client.example/callback' });
    expect(code.body.error).toBe('unauthorized_client');
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' });
    expect(refresh.body.error).toBe('unauthorized_client');
  });

  it('is introspected by its client and revoked at once: the bearer check refuses it right after', async () => {
    const { h, machine, clientSecret, tokenRequest } = await setup();
    const token = (await tokenRequest({ grant_type: 'client_credentials', scope: 'messaging.v1.read' })).body.access_token as string;
    const introspected = await request(h.app).post('/oauth/introspect').set('Authorization', basicAuth(machine.clientId, clientSecret)).type('form').send({ token });
    expect(introspected.body).toMatchObject({ active: true, sub: machine.clientId, client_id: machine.clientId, scope: 'messaging.v1.read' });
    expect(introspected.body).not.toHaveProperty('username');
    // A resource that does not act for a user accepts it: the bearer middleware verified it.
    expect((await h.t.gatehouse.verifyAccessToken(token)).subjectType).toBe('client');
    await request(h.app).post('/oauth/revoke').set('Authorization', basicAuth(machine.clientId, clientSecret)).type('form').send({ token }).expect(200);
    const after = await request(h.app).get(`/messaging/v1/messages?ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}`).set(bearer(token));
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).toContain('error="invalid_token"');
    const inactive = await request(h.app).post('/oauth/introspect').set('Authorization', basicAuth(machine.clientId, clientSecret)).type('form').send({ token });
    expect(inactive.body).toEqual({ active: false });
  });
});

describe('APIs that act for a user refuse a client-credentials token with a 403 problem', () => {
  it('GET /identity/v1/Users/me', async () => {
    const { h, tokenRequest } = await setup();
    const token = (await tokenRequest({ grant_type: 'client_credentials' })).body.access_token as string;
    expectForbiddenProblem(await request(h.app).get('/identity/v1/Users/me').set(bearer(token)));
    // A user's token still works.
    expect((await request(h.app).get('/identity/v1/Users/me').set(bearer(await h.tokenFor(h.admin)))).status).toBe(200);
  });

  it('messaging: send and list', async () => {
    const { h, tokenRequest } = await setup();
    const token = (await tokenRequest({ grant_type: 'client_credentials' })).body.access_token as string;
    expectForbiddenProblem(
      await request(h.app).post('/messaging/v1/messages').set(bearer(token)).send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: ['+15551230000'], body: 'hi' }),
    );
    expectForbiddenProblem(await request(h.app).get(`/messaging/v1/messages?ownerPhoneNumber=${encodeURIComponent(ADMIN_PHONE)}`).set(bearer(token)));
    expect(h.t.transport.sent).toEqual([]);
  });

  it('attribute administration: read and write', async () => {
    const { h, tokenRequest } = await setup();
    const token = (await tokenRequest({ grant_type: 'client_credentials' })).body.access_token as string;
    const base = `/admin/rest/v1/accounts/${h.account.accountKey}`;
    expectForbiddenProblem(await request(h.app).get(`${base}/attributes`).set(bearer(token)));
    expectForbiddenProblem(await request(h.app).post(`${base}/attributes`).set(bearer(token)).send({ name: 'department' }));
    expect((await h.t.product.listAttributes({ actorUserKey: h.admin.userKey, accountKey: h.account.accountKey })).total).toBe(0);
  });

  it('a missing scope is still insufficient_scope first', async () => {
    const { h, machine, clientSecret } = await setup();
    const token = (
      await request(h.app).post('/oauth/token').set('Authorization', basicAuth(machine.clientId, clientSecret)).type('form').send({ grant_type: 'client_credentials', scope: 'messaging.v1.read' })
    ).body.access_token as string;
    const res = await request(h.app).post('/messaging/v1/messages').set(bearer(token)).send({ ownerPhoneNumber: ADMIN_PHONE, contactPhoneNumbers: ['+15551230000'], body: 'hi' });
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('AUTHZ_INSUFFICIENT_SCOPE');
  });
});

describe('GET /oauth/authorize for a client without the authorization_code grant', () => {
  it('redirects a signed-in user back with unauthorized_client (and iss), and sends a signed-out one to sign in first', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    // An edit turned the code flow off and kept the redirect URI.
    const { client } = await t.seedClient({ redirectUris: ['https://machine.example/cb'], grantTypes: ['client_credentials'] });
    const path = `/oauth/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${encodeURIComponent('https://machine.example/cb')}&state=s9`;
    const signedOut = await t.browser().get(path);
    expect(signedOut.status).toBe(302);
    expect((signedOut.headers.location as string).startsWith('/oauth/login?')).toBe(true);
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(path);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe('https://machine.example/cb');
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'unauthorized_client', state: 's9', iss: 'http://localhost:3000' });
  });

  it('shows the error page, no redirect, for a client with no redirect URI', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient({ redirectUris: [], grantTypes: ['client_credentials'] });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get(`/oauth/authorize?response_type=code&client_id=${client.clientId}`);
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('The client has no redirect URI registered.');
  });
});
