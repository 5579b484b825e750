import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/test-app.js';
import { basicAuth } from '../test-support/oauth-client.js';

// Over HTTP, behind a trusted proxy: neighbours in one IPv6 /64 are one client for the per-IP limit.
describe('per-IP rate limit over HTTP: one IPv6 /64 is one address', () => {
  it('failed client authentications from many addresses of one /64 get 429 with Retry-After; another /64 does not', async () => {
    const t = await createTestApp({ rateLimit: { maxFailures: 100, windowSeconds: 60, maxFailuresPerIp: 3 }, trustProxy: 'loopback' });
    const post = (ip: string) =>
      request(t.app).post('/oauth/token').set('X-Forwarded-For', ip).set('Authorization', basicAuth('no-such-client', 'wrong')).type('form').send({ grant_type: 'refresh_token', refresh_token: 'x' });
    for (const ip of ['2001:db8:aa:1::1', '2001:db8:aa:1::2', '2001:db8:aa:1:1234:5678:9abc:def0']) {
      const refused = await post(ip);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: 'invalid_client' });
    }
    const limited = await post('2001:db8:aa:1::ffff');
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: 'temporarily_unavailable' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect((await post('2001:db8:aa:2::1')).status).toBe(401);
  });

  it('failed sign-ins from one /64 neighbour after another get 429 on the login page', async () => {
    const t = await createTestApp({ rateLimit: { maxFailures: 100, windowSeconds: 60, maxFailuresPerIp: 2 }, trustProxy: 'loopback' });
    await t.seedUser({ email: 'ada@example.com' });
    const browser = t.browser();
    await browser.get('/oauth/login');
    const signIn = (ip: string, password: string) =>
      browser.agent.post('/oauth/login').set('X-Forwarded-For', ip).type('form').send({ email: 'ada@example.com', password, csrf_token: browser.csrfToken() as string });
    expect((await signIn('2001:db8:bb:1::10', 'wrong')).status).toBe(401);
    expect((await signIn('2001:db8:bb:1::11', 'wrong')).status).toBe(401);
    const limited = await signIn('2001:db8:bb:1::12', 'password123');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signIn('2001:db8:bb:2::10', 'password123')).status).toBe(303);
  });
});
