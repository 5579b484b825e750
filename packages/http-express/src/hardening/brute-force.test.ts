import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { basicAuth } from '../test-support/index.js';
import { createHardenedApp, PASSWORD } from './test-support/harness.js';

// docs/security.md "Rate limits": failed sign-ins and failed client authentications are rate limited (429 with
// Retry-After) and logged; only failures count, and invalid_grant never turns into a 429.

const LIMIT = { maxFailures: 3, windowSeconds: 120, maxFailuresPerIp: 8 };

const eventsOf = (lines: Array<{ obj: object }>, event: string) => lines.filter((line) => (line.obj as { event?: string }).event === event);

describe('password guessing at /oauth/login', () => {
  it('after the limit: 429 with Retry-After even for the right password, logged; the window then frees it', async () => {
    const h = await createHardenedApp({ rateLimit: LIMIT });
    const browser = h.browser();
    for (let attempt = 0; attempt < LIMIT.maxFailures; attempt += 1) {
      expect((await browser.signIn('ada@example.com', `guess-${attempt}`)).status).toBe(401);
    }
    const limited = await browser.signIn('ada@example.com', PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(LIMIT.windowSeconds);
    expect(limited.text).toContain('Too many failed sign-ins');
    expect(browser.sessionToken()).toBeUndefined();
    // The e-mail's case and spacing do not reset the count.
    expect((await browser.signIn(' ADA@example.com ', PASSWORD)).status).toBe(429);

    expect(h.audit.ofType('sign_in.failed')).toHaveLength(LIMIT.maxFailures);
    // Each failure is one line: its audit event (above); the limited attempts name the address and the account's e-mail hash.
    expect(eventsOf(h.logger.lines, 'rate_limited').length).toBe(2);
    expect(eventsOf(h.logger.lines, 'rate_limited')[0]?.obj).toMatchObject({ ip: expect.any(String), emailHash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(h.logger.text()).not.toContain('ada@example.com');
    expect(h.logger.text()).not.toContain(PASSWORD);
    expect(h.logger.text()).not.toContain('guess-0');

    h.clock.advance(LIMIT.windowSeconds + 1);
    expect((await browser.signIn('ada@example.com', PASSWORD)).status).toBe(303);
  });

  it('credential stuffing from one address (many e-mails) meets the per-address ceiling', async () => {
    const h = await createHardenedApp({ rateLimit: LIMIT });
    const browser = h.browser();
    for (let attempt = 0; attempt < LIMIT.maxFailuresPerIp; attempt += 1) {
      expect((await browser.signIn(`victim${attempt}@example.com`, 'password')).status).toBe(401);
    }
    const limited = await browser.signIn('mel@example.com', PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('successful sign-ins never count', async () => {
    const h = await createHardenedApp({ rateLimit: LIMIT });
    for (let attempt = 0; attempt < LIMIT.maxFailuresPerIp + 2; attempt += 1) {
      expect((await h.browser().signIn('ada@example.com', PASSWORD)).status).toBe(303);
    }
  });
});

describe('secret guessing at the token, revocation and introspection endpoints', () => {
  it('after the limit: 429 with Retry-After in the OAuth JSON shape, even with the right secret, logged', async () => {
    const h = await createHardenedApp({ rateLimit: LIMIT });
    const endpoints = ['/oauth/token', '/oauth/revoke', '/oauth/introspect'];
    for (let attempt = 0; attempt < LIMIT.maxFailures; attempt += 1) {
      const res = await request(h.app).post(endpoints[attempt % 3] as string).set('Authorization', basicAuth(h.client.clientId, `wrong-${attempt}`)).type('form').send('token=x&grant_type=refresh_token&refresh_token=x');
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    for (const endpoint of endpoints) {
      const limited = await request(h.app).post(endpoint).set('Authorization', basicAuth(h.client.clientId, h.clientSecret)).type('form').send('token=x&grant_type=refresh_token&refresh_token=x');
      expect(limited.status, endpoint).toBe(429);
      expect(Number(limited.headers['retry-after']), endpoint).toBeGreaterThan(0);
      expect(limited.headers['content-type']).toMatch(/^application\/json/);
      expect(limited.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('Retry after') });
    }
    expect(h.audit.ofType('client.authentication_failed')).toHaveLength(LIMIT.maxFailures);
    expect(eventsOf(h.logger.lines, 'rate_limited')).toHaveLength(3);
    expect(h.logger.text()).not.toContain(h.clientSecret);
    expect(h.logger.text()).not.toContain('wrong-0');

    h.clock.advance(LIMIT.windowSeconds + 1);
    const { refresh_token } = await h.tokenFor(h.admin);
    expect((await h.token({ grant_type: 'refresh_token', refresh_token })).status).toBe(200);
  });

  it('guessing many client ids from one address meets the per-address ceiling', async () => {
    const h = await createHardenedApp({ rateLimit: LIMIT });
    for (let attempt = 0; attempt < LIMIT.maxFailuresPerIp; attempt += 1) {
      await request(h.app).post('/oauth/token').set('Authorization', basicAuth(`client${attempt}`, 'x')).type('form').send('grant_type=refresh_token&refresh_token=x').expect(401);
    }
    const limited = await h.token({ grant_type: 'refresh_token', refresh_token: 'x' });
    expect(limited.status).toBe(429);
  });

  it('malformed credentials count as failures too; invalid_grant never does', async () => {
    const h = await createHardenedApp({ rateLimit: LIMIT });
    for (let attempt = 0; attempt < LIMIT.maxFailures * 3; attempt += 1) {
      const res = await h.token({ grant_type: 'authorization_code', code: `guess-${attempt}`, redirect_uri: h.client.redirectUris[0] as string });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    }
    expect((await h.token({ grant_type: 'refresh_token', refresh_token: 'x' })).body.error).toBe('invalid_grant');
    // Undecodable secrets (a bad %-escape) under the client's id: each is a failed authentication of it.
    const undecodable = (secret: string) => `Basic ${Buffer.from(`${h.client.clientId}:${secret}`).toString('base64')}`;
    for (const secret of ['%zz', '%', '%E0%A4%A']) {
      const res = await request(h.app).post('/oauth/token').set('Authorization', undecodable(secret)).type('form').send('grant_type=x');
      expect(res.status, secret).toBe(401);
      expect(res.body.error).toBe('invalid_client');
    }
    expect((await h.token({ grant_type: 'refresh_token', refresh_token: 'x' })).status).toBe(429);
  });
});
