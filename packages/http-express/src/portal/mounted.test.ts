import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createPortalRouter } from './router.js';
import { createHostApp, csrfFieldOf, linksOf } from '../test-support/index.js';

/** A host with Gatehouse's router and the portal both at `/auth` (issuer `http://127.0.0.1/auth`). */
async function hostWithPortal() {
  const host = await createHostApp({ beforeOwnRoutes: (app, t) => app.use('/auth', createPortalRouter({ gatehouse: t.gatehouse })) });
  const ada = await host.seedUser({ email: 'ada@example.com' });
  return Object.assign(host, { ada });
}

/** Every link, form action, script and stylesheet of the page is under `/auth`. */
function expectAllUnderAuth(html: string) {
  // In-page links (the error summary's `#field`) aside.
  const links = linksOf(html).filter((link) => !link.startsWith('#'));
  expect(links.length).toBeGreaterThan(0);
  for (const link of links) expect(link, html).toMatch(/^\/auth\//);
}

describe('the portal mounted at /auth in a host application (issuer http://127.0.0.1/auth)', () => {
  it('sends a signed-out browser to /auth/oauth/login and comes back to /auth/portal/… after sign-in', async () => {
    const host = await hostWithPortal();
    const browser = host.agent();
    const first = await browser.get('/auth/portal/clients');
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(`/auth/oauth/login?${new URLSearchParams({ return_to: '/auth/portal/clients' })}`);
    const login = await browser.get(first.headers.location as string).expect(200);
    const signIn = await browser
      .post('/auth/oauth/login')
      .type('form')
      .send({ csrf_token: csrfFieldOf(login.text), email: 'ada@example.com', password: 'password123', return_to: '/auth/portal/clients' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.location).toBe('/auth/portal/clients');

    const root = await browser.get('/auth/portal');
    expect(root.status).toBe(302);
    expect(root.headers.location).toBe('/auth/portal/clients');
    // A form POST without a session goes to the login page under /auth too.
    const signedOut = await request(host.app).post('/auth/portal/clients').type('form').send({ name: 'x' });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.location).toBe('/auth/oauth/login');
  });

  it('puts every link, form action, redirect and stylesheet of every portal page under /auth', async () => {
    const host = await hostWithPortal();
    const { client: granted, clientSecret } = await host.seedClient({ name: 'Mail app', scopes: ['messaging.v1.send'] });
    await host.obtainTokens({ client: granted, user: host.ada });
    expect(clientSecret).toBeTruthy();
    const browser = host.agent();
    const login = await browser.get('/auth/oauth/login').expect(200);
    await browser.post('/auth/oauth/login').type('form').send({ csrf_token: csrfFieldOf(login.text), email: 'ada@example.com', password: 'password123' }).expect(303);

    const list = await browser.get('/auth/portal/clients').expect(200);
    expectAllUnderAuth(list.text);
    expect(list.text).toContain('<link rel="stylesheet" href="/auth/assets/gatehouse.css">');
    expect(list.text).toContain('<link rel="stylesheet" href="/auth/portal/assets/portal.css">');
    expect(list.text).toContain('href="/auth/oauth/logout"');
    await browser.get('/auth/portal/assets/portal.css').expect(200).expect('Content-Type', /text\/css/);
    await browser.get('/auth/assets/gatehouse.css').expect(200).expect('Content-Type', /text\/css/);

    const form = await browser.get('/auth/portal/clients/new').expect(200);
    expectAllUnderAuth(form.text);
    const invalid = await browser.post('/auth/portal/clients').type('form').send({ csrf_token: csrfFieldOf(form.text), name: '', redirect_uris: '' });
    expect(invalid.status).toBe(400);
    expectAllUnderAuth(invalid.text);
    const created = await browser
      .post('/auth/portal/clients')
      .type('form')
      .send({ csrf_token: csrfFieldOf(form.text), name: 'Billing app', redirect_uris: 'https://billing.example/callback', 'scope_messaging.v1.send': 'on' });
    expect(created.status).toBe(303);
    const secretPath = created.headers.location as string;
    expect(secretPath).toMatch(/^\/auth\/portal\/clients\/[A-Za-z0-9]+\/secret$/);
    expect(String(created.headers['set-cookie'])).toContain(`Path=${secretPath}`);
    const secret = await browser.get(secretPath).expect(200);
    expectAllUnderAuth(secret.text);
    expect(secret.text).toContain('<script src="/auth/portal/assets/copy.js" defer></script>');
    await browser.get('/auth/portal/assets/copy.js').expect(200);
    const detailPath = secretPath.replace(/\/secret$/, '');

    for (const path of [detailPath, `${detailPath}/edit`, `${detailPath}/rotate-secret`, `${detailPath}/delete`, '/auth/portal/authorized-apps', '/auth/portal/clients/nothere']) {
      const page = await browser.get(path);
      expect([200, 404], path).toContain(page.status);
      expectAllUnderAuth(page.text);
    }

    const edit = await browser.get(`${detailPath}/edit`).expect(200);
    const saved = await browser
      .post(detailPath)
      .type('form')
      .send({ csrf_token: csrfFieldOf(edit.text), name: 'Billing app 2', redirect_uris: 'https://billing.example/callback', 'scope_messaging.v1.send': 'on' });
    expect(saved.status).toBe(303);
    expect(saved.headers.location).toBe(`${detailPath}?done=updated`);

    const confirm = await browser.get(`${detailPath}/delete`).expect(200);
    const deleted = await browser.post(`${detailPath}/delete`).type('form').send({ csrf_token: csrfFieldOf(confirm.text) });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.location).toMatch(/^\/auth\/portal\/clients\?done=deleted/);

    const apps = await browser.get('/auth/portal/authorized-apps').expect(200);
    const revokeLink = linksOf(apps.text).find((link) => link.includes(granted.clientId)) as string;
    expect(revokeLink).toMatch(/^\/auth\/portal\/authorized-apps\//);
    const forged = await browser.post(`/auth/portal/authorized-apps/${granted.clientId}/revoke`).type('form').send({ csrf_token: 'wrong' });
    expect(forged.status).toBe(403);
    expectAllUnderAuth(forged.text);
  });

  it('leaves the host’s other paths alone: /portal at the root is the host’s 404', async () => {
    const host = await hostWithPortal();
    const res = await request(host.app).get('/portal/clients');
    expect(res.status).toBe(404);
    expect(res.text).toBe('host 404');
  });
});
