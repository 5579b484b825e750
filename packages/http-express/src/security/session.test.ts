import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/index.js';
import { loadSignedIn, loginUrl, requireSignedInPage, safeReturnTo } from './session.js';

describe('safeReturnTo: same-origin relative paths only', () => {
  it.each([
    ['/oauth/authorize?client_id=a&state=b', '/oauth/authorize?client_id=a&state=b'],
    ['/portal/clients', '/portal/clients'],
    ['/a/../b', '/b'],
  ])('keeps %s', (input, expected) => {
    expect(safeReturnTo(input)).toBe(expected);
  });

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example/x', 'evil', '', '/\u0000x', '/a\r\nb', 'javascript:alert(1)', `/${'a'.repeat(5000)}`,
    // RFC 9700 §4.11: refused because the NORMALISED path would be `//evil.example`.
    '/.//evil.example', '/%2e//evil.example', '/%2E%2E//evil.example', '/oauth/..//evil.example', '/a/../..//evil.example'])(
    'refuses %j',
    (input) => {
      expect(safeReturnTo(input)).toBeUndefined();
    },
  );

  it('refuses what is not a string', () => {
    expect(safeReturnTo(['/a', '/b'])).toBeUndefined();
    expect(safeReturnTo(undefined)).toBeUndefined();
  });

  it('loginUrl carries it encoded, or nothing', () => {
    expect(loginUrl('/portal/clients?x=1')).toBe('/oauth/login?return_to=%2Fportal%2Fclients%3Fx%3D1');
    expect(loginUrl('//evil.example')).toBe('/oauth/login');
  });
});

describe('loadSignedIn and requireSignedInPage (for pages such as the portal)', () => {
  async function appWithPrivatePage() {
    const router = express.Router();
    return createTestApp({
      extraRouters: (t) => {
        router.get('/private', loadSignedIn(t.gatehouse), requireSignedInPage, (_req, res) => {
          res.send(`hello ${res.locals.signedIn?.user.email}`);
        });
        router.post('/private', loadSignedIn(t.gatehouse), requireSignedInPage, (_req, res) => {
          res.send('posted');
        });
        return [router];
      },
    });
  }

  it('a signed-in browser sees the page with its user on res.locals.signedIn', async () => {
    const t = await appWithPrivatePage();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get('/private?tab=1').expect(200);
    expect(res.text).toBe('hello ada@example.com');
  });

  it('anyone else is sent to the login page, which brings them back', async () => {
    const t = await appWithPrivatePage();
    await t.seedUser({ email: 'ada@example.com' });
    const res = await request(t.app).get('/private?tab=1').expect(303);
    expect(res.headers.location).toBe('/oauth/login?return_to=%2Fprivate%3Ftab%3D1');
    const browser = t.browser();
    const signIn = await browser.signIn('ada@example.com', 'password123', '/private?tab=1');
    expect(signIn.headers.location).toBe('/private?tab=1');
    const post = await request(t.app).post('/private').expect(303);
    expect(post.headers.location).toBe('/oauth/login');
  });

  it('an expired or ended session, or a forged cookie, is nobody', async () => {
    const t = await appWithPrivatePage();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    t.clock.advance(t.settings.sessionTtlSeconds + 1);
    expect((await browser.get('/private')).status).toBe(303);
    const forged = await request(t.app).get('/private').set('Cookie', `gatehouse_session=${'A'.repeat(43)}`);
    expect(forged.status).toBe(303);
    const odd = await request(t.app).get('/private').set('Cookie', 'gatehouse_session=%E0%A4%A; other=1');
    expect(odd.status).toBe(303);
  });
});
