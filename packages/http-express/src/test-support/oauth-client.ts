import type { Client } from '@gatehouse/core';
import request from 'supertest';

/** What supertest's `request` takes: an app or a server. */
type App = Parameters<typeof request>[0];

/** application/x-www-form-urlencoded of one value (what RFC 6749 §2.3.1 asks of id and secret). */
export function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/**
 * The `Authorization` header of client_secret_basic, done right (RFC 6749 §2.3.1): id and secret
 * are each form-urlencoded, then `id:secret` is base64-encoded.
 *
 * @example
 * await request(app).post('/oauth/token').set('Authorization', basicAuth(client.clientId, secret)).type('form').send({ grant_type: 'refresh_token', refresh_token });
 */
export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** The path + query of an authorization request for `client` (first redirect URI, response_type=code). */
export function authorizePath(client: Pick<Client, 'clientId' | 'redirectUris'>, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0] as string });
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) params.delete(name);
    else params.set(name, value);
  }
  return `/oauth/authorize?${params.toString()}`;
}

/** A form body with every parameter once, as `URLSearchParams` text. */
export function formBodyOf(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** The value of a hidden input (or any input) named `name` in an HTML page. */
export function inputValue(html: string, name: string): string | undefined {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  return input === undefined ? undefined : /value="([^"]*)"/.exec(input)?.[1]?.replace(/&amp;/g, '&');
}

/** The `action` of the first form of a page whose action starts with `prefix` (HTML entities decoded). */
export function formAction(html: string, prefix = '/'): string | undefined {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const raw = new RegExp(`<form[^>]*action="(${escaped}[^"]*)"`).exec(html)?.[1];
  return raw?.replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#96;/g, '`');
}

/**
 * Exchanges an authorization code at the token endpoint (RFC 6749 §4.1.3) as a confidential
 * client (client_secret_basic), with the client's first redirect URI. Returns the supertest request.
 *
 * @example
 * const token = await exchangeCode(t.app, client, clientSecret, code);
 * expect(token.status).toBe(200);
 */
export function exchangeCode(app: App, client: Pick<Client, 'clientId' | 'redirectUris'>, clientSecret: string, code: string | undefined, tokenPath = '/oauth/token') {
  return request(app)
    .post(tokenPath)
    .set('Authorization', basicAuth(client.clientId, clientSecret))
    .type('form')
    .send({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUris[0] });
}
