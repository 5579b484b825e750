import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp, inputValue } from '../test-support/index.js';

describe('portal: authorized apps', () => {
  it('lists the apps the user granted access to (not other users’ grants), each with a Revoke link to a confirmation', async () => {
    const t = await createTestApp();
    const ada = await t.seedUser({ email: 'ada@example.com' });
    const bob = await t.seedUser({ email: 'bob@example.com' });
    const { client: mail, clientSecret } = await t.seedClient({ name: 'Mail app', scopes: ['messaging.v1.send', 'messaging.v1.read'] });
    const { client: attrs } = await t.seedClient({ name: 'Attribute tool', scopes: ['admin.v1.attributes.read'] });
    const { client: bobsOnly } = await t.seedClient({ name: 'Bob-only app' });
    const { browser } = await t.tokensOverHttp({ client: mail, clientSecret, email: 'ada@example.com' });
    await t.obtainTokens({ client: attrs, user: ada });
    await t.obtainTokens({ client: bobsOnly, user: bob });

    const page = await browser.get('/portal/authorized-apps').expect(200);
    expect(page.text).toContain('<h1>Authorized apps</h1>');
    expect(page.text).toContain('<strong>Mail app</strong>');
    expect(page.text).toContain('<strong>Attribute tool</strong>');
    expect(page.text).not.toContain('Bob-only app');
    expect(page.text).toContain('<li>Send text messages from your phone numbers</li>');
    expect(page.text).toContain(`<a class="button secondary small" href="/portal/authorized-apps/${mail.clientId}/revoke">Revoke</a>`);
    expect(page.text).toContain(`<a class="button secondary small" href="/portal/authorized-apps/${attrs.clientId}/revoke">Revoke</a>`);
    // Nothing is revoked by the list itself: it has no form.
    expect(page.text).not.toContain('<form');
    const confirm = await browser.get(`/portal/authorized-apps/${mail.clientId}/revoke`).expect(200);
    expect(confirm.text).toContain('<h1>Withdraw the access of “Mail app”?</h1>');
    expect(confirm.text).toContain(`<form method="post" action="/portal/authorized-apps/${mail.clientId}/revoke">`);
    expect(confirm.text).toContain('<a class="button secondary" href="/portal/authorized-apps">Cancel</a>');
    expect(inputValue(confirm.text, 'csrf_token')).toBe(browser.csrfToken());
    await browser.get(`/portal/authorized-apps/${mail.clientId}/revoke`).expect(200);
    // An app not authorized by this user: no confirmation page either.
    const { client: never } = await t.seedClient({ name: 'Never used' });
    const missing = await browser.get(`/portal/authorized-apps/${never.clientId}/revoke`).expect(404);
    expect(missing.text).toContain('You have not authorized this app');
    // Sorted by name: Attribute tool before Mail app.
    expect(page.text.indexOf('Attribute tool')).toBeLessThan(page.text.indexOf('Mail app'));
  });

  it('Revoke withdraws every grant of that app (its tokens stop working) and leaves the others', async () => {
    const t = await createTestApp();
    const ada = await t.seedUser({ email: 'ada@example.com' });
    const { client: mail, clientSecret } = await t.seedClient({ name: 'Mail app' });
    const { client: other } = await t.seedClient({ name: 'Other app' });
    const { body, browser } = await t.tokensOverHttp({ client: mail, clientSecret, email: 'ada@example.com' });
    const second = await t.obtainTokens({ client: mail, user: ada });
    const kept = await t.obtainTokens({ client: other, user: ada });
    await browser.get('/portal/authorized-apps').expect(200);

    const res = await browser.postForm(`/portal/authorized-apps/${mail.clientId}/revoke`, {});
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/portal/authorized-apps?done=revoked');
    for (const token of [body.access_token as string, second.access_token]) {
      const me = await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${token}`);
      expect(me.status).toBe(401);
    }
    await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${kept.access_token}`).expect(200);
    const page = await browser.get(res.headers.location as string).expect(200);
    expect(page.text).toContain('<p class="notice ok" role="status">Access withdrawn from “Mail app”: its tokens no longer work.</p>');
    // The name came in a one-time cookie: shown once, then the generic words.
    const again = await browser.get(res.headers.location as string).expect(200);
    expect(again.text).toContain('<p class="notice ok" role="status">Access withdrawn: that app’s tokens no longer work.</p>');
    expect(page.text).not.toContain('<strong>Mail app</strong>');
    expect(page.text).toContain('<strong>Other app</strong>');
    expect(t.audit.ofType('grant.revoked')).toHaveLength(1);
  });

  it('without the CSRF token: 403 and the access stays', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const { client, clientSecret } = await t.seedClient({ name: 'Mail app' });
    const { body, browser } = await t.tokensOverHttp({ client, clientSecret, email: 'ada@example.com' });
    const res = await browser.postForm(`/portal/authorized-apps/${client.clientId}/revoke`, {}, { csrf: false });
    expect(res.status).toBe(403);
    await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${body.access_token as string}`).expect(200);
  });

  it('an app the user never authorized (another user’s grant) is a 404 and the other user keeps access', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const bob = await t.seedUser({ email: 'bob@example.com' });
    const { client } = await t.seedClient({ name: 'Bob’s app' });
    const bobs = await t.obtainTokens({ client, user: bob });
    const browser = await t.signedInBrowser('ada@example.com');
    await browser.get('/portal/authorized-apps').expect(200);
    const res = await browser.postForm(`/portal/authorized-apps/${client.clientId}/revoke`, {});
    expect(res.status).toBe(404);
    expect(res.text).toContain('You have not authorized this app');
    await request(t.app).get('/identity/v1/Users/me').set('Authorization', `Bearer ${bobs.access_token}`).expect(200);
  });

  it('says so when no app has access', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const page = await browser.get('/portal/authorized-apps').expect(200);
    expect(page.text).toContain('No app has access to your account.');
  });
});
