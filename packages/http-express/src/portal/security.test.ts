import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/index.js';
import { registerThroughPortal } from './test-support/portal-helpers.js';

function expectPortalHeaders(res: request.Response, label: string, script: 'none' | 'self' = 'none') {
  expect(res.headers['content-type'], label).toMatch(/^text\/html; charset=utf-8/);
  expect(res.headers['x-frame-options'], label).toBe('DENY');
  const csp = res.headers['content-security-policy'] as string;
  expect(csp, label).toContain("frame-ancestors 'none'");
  expect(csp, label).toContain("default-src 'self'");
  expect(csp, label).toContain(`script-src '${script}'`);
  expect(csp, label).not.toContain('unsafe-inline');
  expect(res.headers['referrer-policy'], label).toBe('no-referrer');
  expect(res.headers['x-content-type-options'], label).toBe('nosniff');
  expect(res.headers['cache-control'], label).toBe('no-store');
  expect(res.text, label).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(res.text, label).toContain('<link rel="stylesheet" href="/portal/assets/portal.css">');
  // No inline script or style anywhere: the CSP would block them.
  expect(res.text, label).not.toMatch(/<script(?! src="\/portal\/assets\/copy\.js" defer><\/script>)|\sstyle="|<style|\son[a-z]+="/);
}

describe('portal pages: anti-framing, CSP, no-referrer, nosniff, no-store', () => {
  it('on every page and every error', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const { clientId, page: secret } = await registerThroughPortal(browser);
    expectPortalHeaders(secret, 'secret page', 'self');
    // A client's page has Copy buttons (the copy script) too (docs/decisions/0157).
    expectPortalHeaders(await browser.get(`/portal/clients/${clientId}`).expect(200), 'client page', 'self');
    const pages: Array<[string, number]> = [
      ['/portal/clients', 200],
      ['/portal/clients/new', 200],
      [`/portal/clients/${clientId}/edit`, 200],
      [`/portal/clients/${clientId}/rotate-secret`, 200],
      [`/portal/clients/${clientId}/delete`, 200],
      [`/portal/clients/${clientId}/secret`, 200],
      ['/portal/authorized-apps', 200],
      ['/portal/clients/nobody', 404],
    ];
    for (const [path, status] of pages) expectPortalHeaders(await browser.get(path).expect(status), path);
    const invalid = await browser.postForm('/portal/clients', { name: '' }).expect(400);
    expectPortalHeaders(invalid, 'form with errors');
    const csrf = await browser.postForm('/portal/clients', { name: 'x' }, { csrf: false }).expect(403);
    expect(csrf.headers['x-frame-options']).toBe('DENY');
    expect(csrf.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('a hostile `done` parameter is never echoed (notices are fixed words chosen by key)', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const res = await browser.get('/portal/clients?done=%3Cscript%3Ealert(1)%3C%2Fscript%3E').expect(200);
    expect(res.text).not.toContain('alert(1)');
    expect(res.text).not.toContain('role="status"');
    const proto = await browser.get('/portal/clients?done=constructor').expect(200);
    expect(proto.text).not.toContain('role="status"');
  });

  it('the name in a notice comes only from the one-time cookie of the same notice, escaped', async () => {
    const t = await createTestApp();
    await t.seedUser({ email: 'ada@example.com' });
    const browser = await t.signedInBrowser('ada@example.com');
    const hostile = await browser.get('/portal/clients?done=deleted').set('Cookie', `gatehouse_done=${encodeURIComponent('deleted.<b>x</b>')}`).expect(200);
    expect(hostile.text).toContain('“&lt;b&gt;x&lt;/b&gt;” was deleted.');
    expect(String(hostile.headers['set-cookie'])).toMatch(/gatehouse_done=;.*Path=\/portal/);
    const other = await browser.get('/portal/clients?done=deleted').set('Cookie', 'gatehouse_done=revoked.Mail').expect(200);
    expect(other.text).toContain('The client was deleted.');
    expect(other.text).not.toContain('Mail');
  });

  it('serves the portal stylesheet and the copy script as files from our origin', async () => {
    const t = await createTestApp();
    const css = await request(t.app).get('/portal/assets/portal.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.text).toContain('.field-error');
    expect(css.text).toContain('@media (max-width: 40rem)');
    const js = await request(t.app).get('/portal/assets/copy.js').expect(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    expect(js.text).toContain('navigator.clipboard');
  });
});
