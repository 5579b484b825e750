import { describe, expect, it } from 'vitest';
import { createTestApp } from '../test-support/index.js';

// The sign-in page's way back and password help over HTTP (docs/decisions/0156-a-way-back-from-the-sign-in-page.md).

async function loginPageOf(t: Awaited<ReturnType<typeof createTestApp>>, query: Record<string, string>) {
  const browser = t.browser();
  const authorize = await browser.get(`/oauth/authorize?${new URLSearchParams(query).toString()}`).expect(302);
  const page = await browser.get(authorize.headers.location as string).expect(200);
  return { browser, page, returnTo: new URL(authorize.headers.location as string, 'http://x').searchParams.get('return_to') as string };
}

describe('the sign-in page: cancel, password help', { timeout: 30_000 }, () => {
  it('says whom to ask as configured, with its link; the default names the operator', async () => {
    const configured = await createTestApp({ passwordHelp: { text: 'Call the IT desk on 555-0100, or write to', url: 'mailto:it@example.com' } });
    const page = await configured.browser().get('/oauth/login').expect(200);
    expect(page.text).toContain('<summary>Forgot your password?</summary><p>Call the IT desk on 555-0100, or write to <a href="mailto:it@example.com" rel="noopener noreferrer">it@example.com</a></p>');
    const plain = await createTestApp();
    expect((await plain.browser().get('/oauth/login').expect(200)).text).toContain('<p>Ask the person who runs this service to set a new password for you. Passwords are not reset by e-mail here.</p>');
    await expect(createTestApp({ passwordHelp: { url: 'javascript:alert(1)' } })).rejects.toThrow('passwordHelp.url must be an https, http or mailto URL, or a path.');
  });

  it('Cancel is offered only for a request whose client and redirect URI are checked, and answers access_denied with the state there', async () => {
    const t = await createTestApp();
    const { client } = await t.seedClient({ name: 'Billing', redirectUris: ['https://billing.example/cb'] });
    const { browser, page, returnTo } = await loginPageOf(t, { client_id: client.clientId, response_type: 'code', state: 'st' });
    expect(page.text).toContain('Cancel and go back to Billing</button>');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const cancelled = await browser.postForm('/oauth/login', { csrf_token: csrf, return_to: returnTo, cancel: '1' }).expect(303);
    expect(cancelled.headers.location).toBe('https://billing.example/cb?error=access_denied&error_description=The+user+cancelled+the+sign-in.&state=st&iss=http%3A%2F%2Flocalhost%3A3000');
    // Without a CSRF token: the form again, nothing sent anywhere.
    const forged = await t.browser().postForm('/oauth/login', { return_to: returnTo, cancel: '1' });
    expect(forged.status).toBe(403);
    expect(forged.headers.location).toBeUndefined();
  });

  it('no Cancel and no redirect for a link whose redirect URI is not registered, or a sign-in no app started', async () => {
    const t = await createTestApp();
    const { client } = await t.seedClient({ redirectUris: ['https://billing.example/cb'] });
    const browser = t.browser();
    const evil = `/oauth/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: 'https://evil.example/cb' }).toString()}`;
    const page = await browser.get(`/oauth/login?return_to=${encodeURIComponent(evil)}`).expect(200);
    expect(page.text).not.toContain('Cancel and go back');
    expect(page.text).toContain('<h1>Sign in</h1>');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const refused = await browser.postForm('/oauth/login', { csrf_token: csrf, return_to: evil, cancel: '1' }).expect(400);
    expect(refused.text).toContain('There is no app to go back to');
    expect((await browser.postForm('/oauth/login', { csrf_token: csrf, cancel: '1' })).status).toBe(400);
  });
});
