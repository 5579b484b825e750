import { Browser, formWithAction } from '../../support/browser.js';
import type { TokenResponse } from '@gatehouse/core';

/** A registered client and its user, as the CLI printed them. */
export interface Party {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  email: string;
  password: string;
  scope: string;
}

/** A browser whose every request goes to the public origin (the load balancer), unless a URL says otherwise. */
export const browserAt = (issuer: string): Browser => new Browser(issuer);

/**
 * authorize → (login, when the browser has no session) → consent, through the browser's origin;
 * then "Allow" is posted to `allowAt` (one instance's own origin) so that instance issues the code.
 * Returns the code from the redirect, after checking `state` and `iss` (RFC 9207).
 */
export async function authorizeCode(browser: Browser, party: Party, allowAt: string): Promise<string> {
  const state = `st-${Math.random().toString(36).slice(2)}`;
  // prompt=consent: the page every time (a remembered consent would skip it), so Allow goes to `allowAt`.
  const query = new URLSearchParams({ response_type: 'code', client_id: party.clientId, redirect_uri: party.redirectUri, state, scope: party.scope, prompt: 'consent' });
  let page = await browser.navigate('GET', `/oauth/authorize?${query}`);
  let html = await page.text();
  if (page.status !== 200) throw new Error(`authorize answered ${page.status}: ${html}`);
  if (html.includes('action="/oauth/login')) {
    const login = formWithAction(html, '/oauth/login');
    page = await browser.navigate('POST', login.action, { ...login.hidden, email: party.email, password: party.password });
    html = await page.text();
    if (page.status !== 200) throw new Error(`login answered ${page.status}: ${html}`);
  }
  const consent = formWithAction(html, '/oauth/authorize');
  const redirect = await browser.request('POST', new URL(consent.action, allowAt).toString(), { ...consent.hidden, decision: 'allow' });
  if (redirect.status !== 302) throw new Error(`consent answered ${redirect.status}: ${await redirect.text()}`);
  const location = new URL(redirect.headers.get('location') as string);
  if (`${location.origin}${location.pathname}` !== party.redirectUri) throw new Error(`redirected to ${location.toString()}`);
  if (location.searchParams.get('state') !== state) throw new Error('state differs');
  if (location.searchParams.get('iss') !== party.issuer) throw new Error(`iss is ${location.searchParams.get('iss')}, not ${party.issuer}`);
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location.toString()}`);
  return code;
}

export function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

/** POST /oauth/token on one instance, client authenticated with HTTP Basic. */
export function tokenRequest(origin: string, party: Party, form: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: basic(party.clientId, party.clientSecret), Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

export const exchange = (origin: string, party: Party, code: string) =>
  tokenRequest(origin, party, { grant_type: 'authorization_code', code, redirect_uri: party.redirectUri });

export const refresh = (origin: string, party: Party, refreshToken: string) =>
  tokenRequest(origin, party, { grant_type: 'refresh_token', refresh_token: refreshToken });

/** RFC 7009 revocation on one instance. */
export function revoke(origin: string, party: Party, token: string, hint: 'refresh_token' | 'access_token'): Promise<Response> {
  return fetch(`${origin}/oauth/revoke`, {
    method: 'POST',
    headers: { Authorization: basic(party.clientId, party.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: hint }).toString(),
  });
}

/** GET /identity/v1/Users/me on one instance. */
export function me(origin: string, accessToken: string): Promise<Response> {
  return fetch(`${origin}/identity/v1/Users/me`, { headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } });
}

/** The `kid` of a JWT's protected header. */
export const kidOf = (jwt: string): string => (JSON.parse(Buffer.from(jwt.split('.')[0] as string, 'base64url').toString('utf8')) as { kid: string }).kid;

export type { TokenResponse };
