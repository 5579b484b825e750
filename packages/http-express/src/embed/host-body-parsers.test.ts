import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../test-support/index.js';

/** A host service that parses bodies itself before Gatehouse sees them. */
function hostWith(t: TestApp, parser: express.RequestHandler): express.Express {
  const host = express();
  host.use(parser);
  host.use(t.app);
  return host;
}

async function setup() {
  const t = await createTestApp();
  await t.seedUser({ email: 'ada@example.com' });
  const { client, clientSecret } = await t.seedClient({ scopes: ['messaging.v1.send'] });
  const browser = await t.signedInBrowser('ada@example.com');
  const { code } = await browser.authorize(client);
  return { t, client, clientSecret, code: code as string };
}

describe('the form endpoints behind a host body parser', () => {
  it('exchanges a code when express.urlencoded({ extended: false }) read the body first', async () => {
    const { t, client, clientSecret, code } = await setup();
    const res = await request(hostWith(t, express.urlencoded({ extended: false })))
      .post('/oauth/token')
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.principal).toBe('ada@example.com');
  });

  it('exchanges a code when express.text() or express.raw() read it first', async () => {
    for (const parser of [express.text({ type: '*/*' }), express.raw({ type: '*/*' })]) {
      const { t, client, clientSecret, code } = await setup();
      const res = await request(hostWith(t, parser))
        .post('/oauth/token')
        .set('Authorization', basicAuth(client.clientId, clientSecret))
        .type('form')
        .send(new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] as string }).toString());
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('Bearer');
    }
  });

  it('refuses a repeated grant_type that express.urlencoded turned into an array (RFC 6749 §3.2)', async () => {
    const { t, client, clientSecret, code } = await setup();
    const res = await request(hostWith(t, express.urlencoded({ extended: false })))
      .post('/oauth/token')
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send(`grant_type=authorization_code&grant_type=refresh_token&code=${code}&redirect_uri=${encodeURIComponent(client.redirectUris[0] as string)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The parameter grant_type is repeated.' });
  });

  it('refuses a nested parameter that extended parsing turned into an object', async () => {
    const { t, client, clientSecret, code } = await setup();
    const res = await request(hostWith(t, express.urlencoded({ extended: true })))
      .post('/oauth/token')
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send(`grant_type=authorization_code&code[a]=${code}&redirect_uri=${encodeURIComponent(client.redirectUris[0] as string)}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'The parameter code is not a plain value.' });
  });

  it('bounds the size of an already parsed body too (413)', async () => {
    const { t, client, clientSecret } = await setup();
    const res = await request(hostWith(t, express.urlencoded({ extended: false, limit: '1mb' })))
      .post('/oauth/revoke')
      .set('Authorization', basicAuth(client.clientId, clientSecret))
      .type('form')
      .send({ token: 'x', padding: 'p'.repeat(20_000) });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('invalid_request');
  });

  it('accepts the sign-in and consent forms parsed by the host, and still refuses a repeated field there', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const { client } = await t.seedClient();
    const host = hostWith(t, express.urlencoded({ extended: true }));
    const agent = request.agent(host);
    const login = await agent.get('/oauth/login').expect(200);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(login.text)?.[1] as string;
    const twice = await agent.post('/oauth/login').type('form').send(`csrf_token=${csrf}&email=ada@example.com&email=eve@example.com&password=password123`);
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('The parameter email is repeated.');
    const signedIn = await agent.post('/oauth/login').type('form').send({ csrf_token: csrf, email: 'ada@example.com', password: 'password123' });
    expect(signedIn.status).toBe(303);
    const consent = await agent.get(`/oauth/authorize?client_id=${client.clientId}&response_type=code`).expect(200);
    const action = /<form method="post" action="([^"]+)"/.exec(consent.text)?.[1]?.replace(/&amp;/g, '&') as string;
    const fresh = /name="csrf_token" value="([^"]+)"/.exec(consent.text)?.[1] as string;
    const allowed = await agent.post(action).type('form').send({ csrf_token: fresh, decision: 'allow' });
    expect(allowed.status).toBe(302);
    expect(new URL(allowed.headers.location as string).searchParams.get('code')).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
  });
});
