import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { demoCallbackRouter } from './demo-callback.js';

const DEMO_CLIENT = { clientId: 'demoClient1', scopes: ['messaging.v1.read'] };
const app = (options: { client?: typeof DEMO_CLIENT; issuer?: string } = { client: DEMO_CLIENT }) =>
  express().use(demoCallbackRouter({ issuer: options.issuer ?? 'http://localhost:3000', demoClient: async () => options.client }));

describe('GET /demo/callback', () => {
  it('shows the code it received and the curl command that exchanges it', async () => {
    const response = await request(app()).get('/demo/callback?code=abcDEF123&state=st8&iss=http%3A%2F%2Flocalhost%3A3000');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.text).toContain('<code id="code">abcDEF123</code>');
    expect(response.text).toContain('<code id="state">st8</code>');
    expect(response.text).toContain('curl -s -u &quot;demoClient1:$CLIENT_SECRET&quot;');
    expect(response.text).toContain('--data-urlencode &quot;code=abcDEF123&quot;');
    expect(response.text).toContain('--data-urlencode &quot;redirect_uri=http://localhost:3000/demo/callback&quot;');
    expect(response.text).toContain('http://localhost:3000/oauth/token');
  });

  it('sends the anti-framing, no-referrer and no-store headers', async () => {
    const response = await request(app()).get('/demo/callback?code=x');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['content-security-policy']).toContain("script-src 'none'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('escapes what it reflects', async () => {
    const response = await request(app()).get('/demo/callback').query({ code: '<script>alert(1)</script>', state: '"><img src=x>' });
    expect(response.text).not.toContain('<script>alert(1)</script>');
    expect(response.text).not.toContain('<img src=x>');
    expect(response.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(response.text).toContain('&quot;&gt;&lt;img src=x&gt;');
  });

  it('shows an error redirect, escaped', async () => {
    const response = await request(app()).get('/demo/callback').query({ error: 'access_denied', error_description: 'The user said <no>.' });
    expect(response.status).toBe(200);
    expect(response.text).toContain('<code id="error">access_denied</code>');
    expect(response.text).toContain('The user said &lt;no&gt;.');
  });

  it('answers 400 without a code or an error, and uses a placeholder when there is no demo client', async () => {
    expect((await request(app()).get('/demo/callback')).status).toBe(400);
    expect((await request(app({})).get('/demo/callback?code=c')).text).toContain('&quot;$CLIENT_ID:$CLIENT_SECRET&quot;');
  });

  it('is a page of the layout: the stylesheet and the viewport meta for phones; while it shows a code it links nowhere', async () => {
    const response = await request(app()).get('/demo/callback?code=abc');
    expect(response.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(response.text).toContain('<link rel="stylesheet" href="/assets/gatehouse.css">');
    expect(response.text).not.toMatch(/<a\b/);
  });

  it('after Deny, offers a way back: the demo request again, and the start page', async () => {
    const response = await request(app()).get('/demo/callback').query({ error: 'access_denied', state: 's' });
    expect(response.text).toContain('<h1>Access denied</h1>');
    const tryAgain = /<a class="button" href="([^"]+)">Try again<\/a>/.exec(response.text)?.[1]?.replace(/&amp;/g, '&');
    const url = new URL(tryAgain as string);
    expect(url.origin + url.pathname).toBe('http://localhost:3000/oauth/authorize');
    expect(url.searchParams.get('client_id')).toBe('demoClient1');
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:3000/demo/callback');
    expect(url.searchParams.get('scope')).toBe('messaging.v1.read');
    expect(response.text).toContain('<a class="button secondary" href="/">Go to the start page</a>');
  });

  it('under an issuer with a path, is served and links under it', async () => {
    const response = await request(app({ client: DEMO_CLIENT, issuer: 'http://localhost:3000/auth' })).get('/auth/demo/callback?error=access_denied');
    expect(response.status).toBe(200);
    expect(response.text).toContain('<link rel="stylesheet" href="/auth/assets/gatehouse.css">');
    expect(response.text).toContain('href="/auth/"');
    expect(response.text).toContain('href="http://localhost:3000/auth/oauth/authorize?');
  });
});
