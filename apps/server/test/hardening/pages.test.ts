import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freePort, startServe, type ServerProcess } from '../support/processes.js';
import { createWorkspace } from '../support/fixture.js';

// RFC 9700 §4.2.4 (Referer leaks) and §4.16 (clickjacking) on the real server: the demo
// client's callback page shows an authorization code, so it must send no Referer, load nothing
// and link nowhere; every other answer of the composed app is unframeable too.

const workspace = createWorkspace('pages');
let server: ServerProcess;
let origin: string;

beforeAll(async () => {
  await ensureBuilt();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // An empty database with the demo on: the first start seeds the demo client whose redirect URI is /demo/callback.
  server = await startServe({ GATEHOUSE_DB: join(workspace.dir, 'demo.db'), GATEHOUSE_ISSUER: origin, GATEHOUSE_DEMO: 'true', GATEHOUSE_LOG_LEVEL: 'info' }, port);
}, 120_000);

afterAll(() => {
  server?.child.kill('SIGKILL');
  workspace.cleanup();
});

/** Every URL the page makes a browser load or follow (attributes of real tags; escaped text is not a tag). */
const urlsOf = (html: string) =>
  [...html.matchAll(/<[a-z][^>]*>/gi)].flatMap((tag) => [...tag[0].matchAll(/\s(?:href|src|action|formaction|srcset|poster|data)\s*=\s*["']?([^"'\s>]+)/gi)].map((m) => m[1]));

describe('the demo callback page (it shows a code)', () => {
  it('sends no-referrer, cannot be framed, loads only our own stylesheet and icon, and links nowhere', async () => {
    const code = 'Q'.repeat(43);
    const res = await fetch(`${origin}/demo/callback?code=${code}&state=s1&iss=${encodeURIComponent(origin)}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(code);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'none'/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
    expect(urlsOf(html)).toEqual(['/assets/gatehouse.css', '/assets/gatehouse.svg']);
    expect(html).not.toMatch(/<(a|img|script|iframe|form)\b/i);
  });

  it('an error on the callback (no code) is the same kind of page', async () => {
    const res = await fetch(`${origin}/demo/callback?error=access_denied&error_description=%3Ca%20href%3D%22https%3A%2F%2Fevil.example%22%3Ex%3C%2Fa%3E`);
    const html = await res.text();
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    // The description is text, never a link; the way back goes to our own pages only.
    expect(html).not.toContain('<a href="https://evil.example"');
    for (const url of urlsOf(html).map((found) => found ?? '')) expect(url.startsWith('/') || url.startsWith(`${origin}/`), url).toBe(true);
    expect(html).toContain('Try again');
  });
});

describe('the composed app', () => {
  it('every kind of answer cannot be framed and sends no Referer', async () => {
    for (const path of ['/healthz', '/readyz', '/oauth/login', '/oauth/jwks', '/.well-known/oauth-authorization-server', '/openapi.json', '/nothing-here', '/portal/clients', '/oauth/authorize?client_id=nobody']) {
      const res = await fetch(`${origin}${path}`, { redirect: 'manual' });
      await res.arrayBuffer();
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('content-security-policy'), path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });
});
