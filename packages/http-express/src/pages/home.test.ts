import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createHostApp, createTestApp } from '../test-support/index.js';

describe('the start page of the reference app (createGatehouseApp)', () => {
  it('signed out: a short page with "Sign in", which comes back to the portal', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const res = await request(t.app).get('/').set('Accept', 'text/html').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain(`<a class="button" href="/oauth/login?${new URLSearchParams({ return_to: '/portal/clients' }).toString()}">Sign in</a>`);

    const browser = t.browser();
    const signIn = await browser.signIn('ada@example.com', 'password123', '/portal/clients');
    expect(signIn.headers.location).toBe('/portal/clients');
  });

  it('signed in: the portal', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get('/').expect(302);
    expect(res.headers.location).toBe('/portal/clients');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('for an issuer with a path, at that path: /auth and /auth/', async () => {
    const t = await createTestApp({ settings: { issuer: 'http://127.0.0.1/auth' } });
    for (const path of ['/auth', '/auth/']) {
      const res = await request(t.app).get(path).expect(200);
      expect(res.text).toContain(`href="/oauth/login?`.replace('/oauth', '/auth/oauth'));
      expect(res.text).toContain('<link rel="stylesheet" href="/auth/assets/gatehouse.css">');
    }
  });
});

describe('404 and error pages offer a way back', () => {
  it('a page that does not exist links to the start page (the portal when signed in)', async () => {
    const t = await createTestApp();
    const res = await request(t.app).get('/no/such/page').set('Accept', 'text/html').expect(404);
    expect(res.text).toContain('<h1>Page not found</h1>');
    expect(res.text).toContain('<a class="button secondary" href="/">Go to the start page</a>');
  });

  it('under an issuer path, the way back is under it too', async () => {
    const t = await createTestApp({ settings: { issuer: 'http://127.0.0.1/auth' } });
    const res = await request(t.app).get('/auth/portal/nothing-here').set('Accept', 'text/html');
    expect(res.status).toBe(303);
    const missing = await request(t.app).get('/auth/nothing').set('Accept', 'text/html').expect(404);
    expect(missing.text).toContain('href="/auth/"');
    expect(missing.text).toContain('<link rel="stylesheet" href="/auth/assets/gatehouse.css">');
  });

  it('an invalid sign-in link (400) offers the start page in the reference app; the embedded router links to none of the host’s pages', async () => {
    const t = await createTestApp();
    const invalid = await request(t.app).get('/oauth/authorize?client_id=nobody&response_type=code').expect(400);
    expect(invalid.text).toContain('<h1>This sign-in link is not valid</h1>');
    expect(invalid.text).toContain('<a class="button secondary" href="/">Go to the start page</a>');
    const host = await createHostApp();
    const embedded = await request(host.app).get('/auth/oauth/authorize?client_id=nobody&response_type=code').expect(400);
    expect(embedded.text).toContain('<h1>This sign-in link is not valid</h1>');
    expect(embedded.text).not.toContain('Go to the start page');
  });
});
