import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { DEFAULT_SCOPES } from '../domain/scopes.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import { expectOAuthError } from '../test-support/rejections.js';
import { assertUserMayServe } from './resource-indicators.js';

// RFC 8707 resource indicators (docs/decisions/0110-resource-indicators.md): `resource` at
// authorize (several), at the token endpoint (one), the token's `aud` and scopes.

const MCP = 'https://mcp.example.com/mcp';
const REPORTS = 'https://reports.example.com';
const SCOPES = [
  ...DEFAULT_SCOPES,
  { scope: 'orders.v1.read', description: 'See your orders' },
  { scope: 'reports.v1.read', description: 'See your reports' },
];
const RESOURCES = [
  { resource: MCP, name: 'Orders MCP', scopes: ['orders.v1.read', 'messaging.v1.read'], accessTokenTtlSeconds: 900 },
  { resource: REPORTS, name: 'Reports', scopes: ['reports.v1.read'] },
];

async function setup() {
  const t = await createTestGatehouse({ settings: { scopes: SCOPES, resources: RESOURCES } });
  const user = await t.seedUser();
  const { client, clientSecret } = await t.seedClient({ scopes: ['orders.v1.read', 'reports.v1.read', 'messaging.v1.read', 'messaging.v1.send'] });
  return { t, user, client, clientSecret };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** Authorize with these parameters and approve; returns the check and the code. */
async function authorize({ t, user, client }: Setup, params: Record<string, string | string[]>) {
  const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUris[0], ...params });
  if (check.kind !== 'valid') throw check.error;
  const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null });
  return { request: check.request, code: new URL(redirectTo).searchParams.get('code') as string };
}

const claimsOf = (token: string) => decodeJwt(token) as { aud: string; scope: string; exp: number; iat: number };

describe('resource at authorize (RFC 8707 §2.1)', () => {
  it('is remembered with the code, in canonical form, several allowed', async () => {
    const s = await setup();
    const { request, code } = await authorize(s, { scope: 'orders.v1.read reports.v1.read', resource: ['HTTPS://MCP.example.com/mcp', `${REPORTS}/`, MCP] });
    expect(request.resources).toEqual([MCP, REPORTS]);
    expect((await s.t.repositories.codes.findByHash(storedSecretHash(code)))?.resources).toEqual([MCP, REPORTS]);
  });

  it('an empty resource parameter counts as omitted (RFC 6749 §3.1)', async () => {
    const s = await setup();
    const { request } = await authorize(s, { scope: 'orders.v1.read', resource: '' });
    expect(request.resources).toBeUndefined();
  });

  it('without a scope parameter asks only for the client scopes the resources accept', async () => {
    const s = await setup();
    const { request } = await authorize(s, { resource: MCP });
    expect(request.scopes).toEqual(['orders.v1.read', 'messaging.v1.read']);
  });

  it('an unknown, relative, fragment-carrying resource, or one accepting none of the scopes, is an invalid_target redirect', async () => {
    const s = await setup();
    for (const [resource, words] of [
      ['https://unknown.example.com/mcp', 'is not a resource this server issues tokens for'],
      ['/mcp', 'is not an absolute URI'],
      [`${MCP}#tools`, 'has a fragment'],
      [[MCP, 'https://mcp.example.com/other'], 'is not a resource this server issues tokens for'],
    ] as const) {
      const check = await s.t.gatehouse.checkAuthorizationRequest({ client_id: s.client.clientId, response_type: 'code', redirect_uri: s.client.redirectUris[0], state: 'st', resource: [...([] as string[]).concat(resource)] });
      expect(check.kind).toBe('redirect-error');
      if (check.kind !== 'redirect-error') return;
      const redirect = new URL(check.redirectTo);
      expect(redirect.searchParams.get('error')).toBe('invalid_target');
      expect(redirect.searchParams.get('error_description')).toContain(words);
      expect(redirect.searchParams.get('state')).toBe('st');
    }
    const idle = await s.t.gatehouse.checkAuthorizationRequest({ client_id: s.client.clientId, response_type: 'code', redirect_uri: s.client.redirectUris[0], scope: 'messaging.v1.send', resource: MCP });
    expect(idle.kind === 'redirect-error' && new URL(idle.redirectTo).searchParams.get('error')).toBe('invalid_target');
  });
});

describe('resource at the token endpoint (RFC 8707 §2.2)', () => {
  it('without resource, a single granted resource is the audience; the scopes are those it accepts; its lifetime is its own', async () => {
    const s = await setup();
    const { code } = await authorize(s, { scope: 'orders.v1.read messaging.v1.read messaging.v1.send', resource: MCP });
    const tokens = await s.t.gatehouse.exchangeCode({ client: s.client, code, redirectUri: s.client.redirectUris[0], codeVerifier: undefined });
    const claims = claimsOf(tokens.access_token);
    expect(claims.aud).toBe(MCP);
    expect(claims.scope).toBe('orders.v1.read messaging.v1.read');
    expect(tokens.scope).toBe('orders.v1.read messaging.v1.read');
    expect(tokens.expires_in).toBe(900);
    expect(claims.exp - claims.iat).toBe(900);
    const verified = await s.t.gatehouse.verifyAccessToken(tokens.access_token, { resource: MCP });
    expect(verified.audience).toBe(MCP);
    // The grant remembers what it covers.
    expect((await s.t.repositories.grants.findById(verified.grantId))?.resources).toEqual([MCP]);
  });

  it('picks one of several granted resources; without one, several granted is invalid_target and the code stays usable', async () => {
    const s = await setup();
    const { code } = await authorize(s, { scope: 'orders.v1.read reports.v1.read', resource: [MCP, REPORTS] });
    const exchange = (resource?: string) => s.t.gatehouse.exchangeCode({ client: s.client, code, redirectUri: s.client.redirectUris[0], codeVerifier: undefined, resource });
    const several = await expectOAuthError(exchange(), 'invalid_target');
    expect(several.description).toContain('several resources');
    await expectOAuthError(exchange('https://unknown.example.com'), 'invalid_target');
    await expectOAuthError(exchange('reports'), 'invalid_target');
    expect((await s.t.repositories.codes.findByHash(storedSecretHash(code)))?.consumedAt).toBeNull();

    const tokens = await exchange('HTTPS://REPORTS.example.com/');
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: REPORTS, scope: 'reports.v1.read' });
    expect(tokens.expires_in).toBe(3600);
  });

  it('a resource that was not granted is invalid_target, also when none was requested at authorize', async () => {
    const s = await setup();
    const granted = await authorize(s, { scope: 'orders.v1.read reports.v1.read', resource: MCP });
    const refused = await expectOAuthError(s.t.gatehouse.exchangeCode({ client: s.client, code: granted.code, redirectUri: s.client.redirectUris[0], codeVerifier: undefined, resource: REPORTS }), 'invalid_target');
    expect(refused.description).toContain('was not requested when the grant was made');
    const none = await authorize(s, { scope: 'orders.v1.read' });
    await expectOAuthError(s.t.gatehouse.exchangeCode({ client: s.client, code: none.code, redirectUri: s.client.redirectUris[0], codeVerifier: undefined, resource: MCP }), 'invalid_target');
  });

  it('without any resource, tokens stay as they were: the default audience, every granted scope', async () => {
    const s = await setup();
    const tokens = await s.t.obtainTokens({ client: s.client, user: s.user, scope: 'orders.v1.read messaging.v1.send' });
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: s.t.settings.audience, scope: 'orders.v1.read messaging.v1.send' });
    expect(tokens.expires_in).toBe(3600);
    expect((await s.t.gatehouse.verifyAccessToken(tokens.access_token)).audience).toBe(s.t.settings.audience);
  });

  it('a refresh may narrow to a granted resource, never widen; refresh scopes stay within the grant', async () => {
    const s = await setup();
    const { code } = await authorize(s, { scope: 'orders.v1.read reports.v1.read messaging.v1.read', resource: [MCP, REPORTS] });
    const first = await s.t.gatehouse.exchangeCode({ client: s.client, code, redirectUri: s.client.redirectUris[0], codeVerifier: undefined, resource: MCP });
    const refresh = (input: { resource?: string; scope?: string }) => s.t.gatehouse.refresh({ client: s.client, refreshToken: first.refresh_token as string, scope: input.scope, resource: input.resource });

    expect(claimsOf((await refresh({ resource: REPORTS })).access_token)).toMatchObject({ aud: REPORTS, scope: 'reports.v1.read' });
    expect(claimsOf((await refresh({ resource: MCP, scope: 'messaging.v1.read' })).access_token)).toMatchObject({ aud: MCP, scope: 'messaging.v1.read' });
    await expectOAuthError(refresh({}), 'invalid_target');
    await expectOAuthError(refresh({ resource: 'https://unknown.example.com' }), 'invalid_target');
    await expectOAuthError(refresh({ resource: `${MCP}#x` }), 'invalid_target');
    await expectOAuthError(refresh({ resource: REPORTS, scope: 'messaging.v1.read' }), 'invalid_target');
    await expectOAuthError(refresh({ resource: MCP, scope: 'messaging.v1.send' }), 'invalid_scope');

    // A grant made without resource cannot be widened to one.
    const plain = await s.t.obtainTokens({ client: s.client, user: s.user, scope: 'orders.v1.read' });
    await expectOAuthError(s.t.gatehouse.refresh({ client: s.client, refreshToken: plain.refresh_token as string, scope: undefined, resource: MCP }), 'invalid_target');
    expect(claimsOf((await s.t.gatehouse.refresh({ client: s.client, refreshToken: plain.refresh_token as string, scope: undefined })).access_token).aud).toBe(s.t.settings.audience);
  });

  it('under rotation, a refused resource rotates nothing', async () => {
    const t = await createTestGatehouse({ settings: { scopes: SCOPES, resources: RESOURCES, refreshToken: { rotate: true } } });
    const user = await t.seedUser();
    const { client } = await t.seedClient({ scopes: ['orders.v1.read'] });
    const tokens = await t.obtainTokens({ client, user, resource: MCP });
    await expectOAuthError(t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined, resource: REPORTS }), 'invalid_target');
    expect((await t.repositories.refreshTokens.findByHash(storedSecretHash(tokens.refresh_token as string)))?.rotatedAt).toBeNull();
    const refreshed = await t.gatehouse.refresh({ client, refreshToken: tokens.refresh_token as string, scope: undefined });
    expect(claimsOf(refreshed.access_token).aud).toBe(MCP);
  });

  it('client credentials: any configured resource, with the scopes it accepts; unknown or malformed is invalid_target', async () => {
    const t = await createTestGatehouse({ settings: { scopes: SCOPES, resources: RESOURCES } });
    const { client } = await t.seedClient({ redirectUris: [], grantTypes: ['client_credentials'], scopes: ['orders.v1.read', 'messaging.v1.send'] });
    const tokens = await t.gatehouse.clientCredentials({ client, scope: undefined, resource: MCP });
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: MCP, scope: 'orders.v1.read' });
    expect(tokens).toMatchObject({ scope: 'orders.v1.read', expires_in: 900 });
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token, { resource: MCP });
    expect(verified.subjectType).toBe('client');
    expect((await t.repositories.grants.findById(verified.grantId))?.resources).toEqual([MCP]);

    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: undefined, resource: 'https://unknown.example.com' }), 'invalid_target');
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: undefined, resource: 'mcp' }), 'invalid_target');
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: 'messaging.v1.send', resource: MCP }), 'invalid_target');
    await expectOAuthError(t.gatehouse.clientCredentials({ client, scope: undefined, resource: REPORTS }), 'invalid_target');
    expect(claimsOf((await t.gatehouse.clientCredentials({ client, scope: undefined })).access_token)).toMatchObject({ aud: t.settings.audience, scope: 'orders.v1.read messaging.v1.send' });
  });
});

describe('audience checks (verifyAccessToken)', () => {
  it('takes the default audience only without a resource, and only that resource with one', async () => {
    const s = await setup();
    const forMcp = await s.t.obtainTokens({ client: s.client, user: s.user, scope: 'orders.v1.read', resource: MCP });
    const plain = await s.t.obtainTokens({ client: s.client, user: s.user, scope: 'orders.v1.read' });

    const refused = await expectOAuthError(s.t.gatehouse.verifyAccessToken(forMcp.access_token), 'invalid_token');
    expect(refused.detail).toContain(MCP);
    await expectOAuthError(s.t.gatehouse.verifyAccessToken(forMcp.access_token, { resource: REPORTS }), 'invalid_token');
    await expectOAuthError(s.t.gatehouse.verifyAccessToken(plain.access_token, { resource: MCP }), 'invalid_token');
    expect((await s.t.gatehouse.verifyAccessToken(forMcp.access_token, { resource: 'HTTPS://mcp.example.com/mcp' })).audience).toBe(MCP);
    // Cached claims are checked the same way (the second call is served by the verified-token cache).
    await expectOAuthError(s.t.gatehouse.verifyAccessToken(forMcp.access_token), 'invalid_token');
    expect((await s.t.gatehouse.verifyAccessToken(plain.access_token)).audience).toBe(s.t.settings.audience);
  });

  it('a resource at the default audience (the issuer) is the same audience', async () => {
    const issuer = 'http://localhost:3000';
    const t = await createTestGatehouse({ settings: { resources: [{ resource: `${issuer}/`, name: 'Gatehouse APIs', scopes: ['messaging.v1.read'] }] } });
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user, resource: issuer });
    expect(claimsOf(tokens.access_token)).toMatchObject({ aud: issuer, scope: 'messaging.v1.read' });
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token)).audience).toBe(issuer);
    expect((await t.gatehouse.verifyAccessToken(tokens.access_token, { resource: issuer })).audience).toBe(issuer);
  });

  it('a token for a resource no longer configured is refused everywhere', async () => {
    const s = await setup();
    const forReports = await s.t.obtainTokens({ client: s.client, user: s.user, scope: 'reports.v1.read', resource: REPORTS });
    const other = await createTestGatehouse({ repositories: s.t.repositories, settings: { scopes: SCOPES, resources: [RESOURCES[0]!] } });
    await expectOAuthError(other.gatehouse.verifyAccessToken(forReports.access_token, { resource: REPORTS }), 'invalid_token');
    // Its grant's refresh has no resource left to give it.
    await expectOAuthError(other.gatehouse.refresh({ client: s.client, refreshToken: forReports.refresh_token as string, scope: undefined }), 'invalid_target');
  });
});

describe('introspection shows the audience', () => {
  it('aud of the token, for its own client', async () => {
    const s = await setup();
    const tokens = await s.t.obtainTokens({ client: s.client, user: s.user, scope: 'orders.v1.read', resource: MCP });
    const answer = await s.t.gatehouse.introspectToken({ client: s.client, token: tokens.access_token, tokenTypeHint: 'access_token' });
    expect(answer).toMatchObject({ active: true, aud: MCP, scope: 'orders.v1.read' });
  });
});

describe("who may make a client the resource server of Gatehouse's own APIs (docs/decisions/0186)", () => {
  const settings = { audience: 'https://auth.example.com' };
  it('the operator may; a user may not add it, but keeps it when the operator marked the client', () => {
    expect(() => assertUserMayServe(settings, null, ['https://auth.example.com'])).not.toThrow();
    expect(() => assertUserMayServe(settings, 'user-1', ['https://mcp.example.com/mcp'])).not.toThrow();
    expect(() => assertUserMayServe(settings, 'user-1', ['https://auth.example.com'])).toThrow(/Only the operator/);
    expect(() => assertUserMayServe(settings, 'user-1', ['https://auth.example.com'], ['https://auth.example.com'])).not.toThrow();
  });
});

describe('remembered consent per resource (docs/decisions/0200)', () => {
  it('a consent given for one resource is not one for another, nor for the default audience; each asks once, then is remembered', async () => {
    const s = await setup();
    const { t, user } = s;
    const step = async (params: Record<string, string | string[]>) => {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: s.client.clientId, response_type: 'code', redirect_uri: s.client.redirectUris[0], ...params });
      if (check.kind !== 'valid') throw check.error;
      return t.gatehouse.nextAuthorizationStep({ request: check.request, user: { userKey: user.userKey, sessionId: null, authenticatedAt: t.clock.now() }, returnTo: '/oauth/authorize' });
    };
    await authorize(s, { scope: 'messaging.v1.read', resource: MCP });
    // The same scope at the same resource: remembered.
    expect((await step({ scope: 'messaging.v1.read', resource: MCP })).kind).toBe('redirect');
    // Elsewhere: asked, the scope not marked new (the user allowed it, but not there).
    expect(await step({ scope: 'reports.v1.read', resource: REPORTS })).toEqual({ kind: 'consent', newScopes: ['reports.v1.read'] });
    expect(await step({ scope: 'messaging.v1.read' })).toEqual({ kind: 'consent', newScopes: ['messaging.v1.read'] });
    // Both resources at once: only what was allowed at both counts as allowed; once allowed, remembered.
    await authorize(s, { scope: 'reports.v1.read', resource: REPORTS });
    expect((await step({ scope: 'reports.v1.read', resource: REPORTS })).kind).toBe('redirect');
    const both = { scope: 'messaging.v1.read reports.v1.read', resource: [MCP, REPORTS] };
    expect(await step(both)).toEqual({ kind: 'consent', newScopes: ['messaging.v1.read', 'reports.v1.read'] });
    await authorize(s, both);
    expect((await step(both)).kind).toBe('redirect');
    // The user's Authorized apps list every scope allowed, wherever.
    expect((await t.gatehouse.listAuthorizedApps(user.userKey))[0]?.scopes.sort()).toEqual(['messaging.v1.read', 'reports.v1.read']);
  });
});
