import { describe, expect, it } from 'vitest';
import { createTestGatehouse, s256Challenge } from '@gatehouse/core/testing';
import { DEFAULT_SCOPES } from '../domain/scopes.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import type { AuthorizationRequestCheck } from './authorize.js';

const REDIRECT = 'https://client.example/callback';
const ISSUER = 'http://localhost:3000';
const VERIFIER = 'v'.repeat(43);

async function setup(client: Parameters<Awaited<ReturnType<typeof createTestGatehouse>>['seedClient']>[0] = {}) {
  const t = await createTestGatehouse();
  const { client: registered } = await t.seedClient({ scopes: ['messaging.v1.send', 'messaging.v1.read'], ...client });
  return { t, client: registered };
}

function expectRedirectError(check: AuthorizationRequestCheck, error: string, state?: string): URL {
  expect(check.kind).toBe('redirect-error');
  if (check.kind !== 'redirect-error') throw new Error('unreachable');
  expect(check.error.code).toBe(error);
  const url = new URL(check.redirectTo);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  expect(url.searchParams.get('error')).toBe(error);
  expect(url.searchParams.get('error_description')).toBe(check.error.description);
  // RFC 9207 §2: iss on every authorization response, errors included.
  expect(url.searchParams.get('iss')).toBe(ISSUER);
  expect(url.searchParams.get('state')).toBe(state ?? null);
  return url;
}

function expectShowError(check: AuthorizationRequestCheck): void {
  expect(check.kind).toBe('show-error');
  expect(check).not.toHaveProperty('redirectTo');
  if (check.kind === 'show-error') expect(check.error.code).toBe('invalid_request');
}

describe('checkAuthorizationRequest: client and redirect URI (never redirected)', () => {
  it('accepts a complete request and keeps state', async () => {
    const { t, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      state: 'xyz',
      scope: 'messaging.v1.send',
      extra: 'ignored',
    });
    expect(check).toMatchObject({
      kind: 'valid',
      request: { clientId: client.clientId, redirectUri: REDIRECT, scopes: ['messaging.v1.send'], state: 'xyz', codeChallenge: undefined },
    });
  });

  it('shows an error page for a missing or unknown client', async () => {
    const { t } = await setup();
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ response_type: 'code', redirect_uri: REDIRECT }));
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: 'nope', response_type: 'code', redirect_uri: REDIRECT }));
  });

  it('shows an error page for a redirect URI that is not registered, even one differing only by a slash or case', async () => {
    const { t, client } = await setup();
    for (const uri of [`${REDIRECT}/`, 'https://CLIENT.example/callback', 'https://evil.example/callback', `${REDIRECT}?x=1`]) {
      expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: uri, state: 's' }));
    }
  });

  it('uses the only registered redirect URI when none is sent', async () => {
    const { t, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    expect(check.kind === 'valid' && check.request.redirectUri).toBe(REDIRECT);
  });

  it('treats a parameter sent without a value as omitted (RFC 6749 §3.1): redirect_uri=, state=, max_age=', async () => {
    const { t, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: '', state: '', max_age: '', code_challenge_method: '' });
    expect(check).toMatchObject({ kind: 'valid', request: { redirectUri: REDIRECT, redirectUriIncluded: false, state: undefined } });
    // An empty client_id is no client, and a repeated parameter is still refused, empty or not.
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: '', response_type: 'code', redirect_uri: REDIRECT }));
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: ['', REDIRECT] }));
    // `__proto__` is an ordinary (unknown) parameter, never the parameters' prototype.
    const proto = await t.gatehouse.checkAuthorizationRequest(JSON.parse(`{"client_id":"${client.clientId}","response_type":"code","__proto__":["a","b"]}`) as Record<string, string>);
    expect(proto.kind).toBe('valid');
  });

  it('says whether the request sent its redirect URI, for the token request (RFC 6749 §4.1.3, docs/decisions/0182)', async () => {
    const { t, client } = await setup();
    const defaulted = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    expect(defaulted).toMatchObject({ kind: 'valid', request: { redirectUri: REDIRECT, redirectUriIncluded: false } });
    const named = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: REDIRECT });
    expect(named.kind === 'valid' && named.request.redirectUriIncluded !== false).toBe(true);
  });

  it('shows an error page for an OpenID Connect request without redirect_uri, even with one registered URI and whatever else is wrong (OIDC Core §3.1.2.1)', async () => {
    const t = await createTestGatehouse({ settings: { openid: true } });
    const { client } = await t.seedClient({ scopes: ['messaging.v1.read', 'openid', 'profile'] });
    for (const params of [
      { scope: 'openid' },
      { scope: 'profile openid messaging.v1.read', state: 's', nonce: 'n' },
      { scope: ['openid', 'profile'] },
      { scope: 'openid', response_type: 'token' },
    ]) {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', ...params });
      expectShowError(check);
      expect(check.kind === 'show-error' && check.error.description).toBe('redirect_uri is required in an OpenID Connect request (OpenID Connect Core 1.0, section 3.1.2.1).');
    }
    // With it, the same request is valid; an OAuth request may still leave it out.
    expect((await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'openid', redirect_uri: REDIRECT })).kind).toBe('valid');
    expect((await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'messaging.v1.read' })).kind).toBe('valid');
  });

  it('shows an error page when several URIs are registered and none is sent', async () => {
    const { t, client } = await setup({ redirectUris: [REDIRECT, 'http://127.0.0.1:8080/cb'] });
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' }));
    const chosen = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: 'http://127.0.0.1:8080/cb' });
    expect(chosen.kind === 'valid' && chosen.request.redirectUri).toBe('http://127.0.0.1:8080/cb');
  });

  it('shows an error page when client_id or redirect_uri is repeated', async () => {
    const { t, client } = await setup();
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: [client.clientId, client.clientId], response_type: 'code' }));
    expectShowError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', redirect_uri: [REDIRECT, REDIRECT] }));
  });
});

describe('checkAuthorizationRequest: other errors redirect with state and iss', () => {
  it('refuses a missing response_type and one other than code', async () => {
    const { t, client } = await setup();
    expectRedirectError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, state: 's1' }), 'invalid_request', 's1');
    expectRedirectError(
      await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'token', state: 's2' }),
      'unsupported_response_type',
      's2',
    );
  });

  it('refuses scopes outside the client, unknown scopes and malformed scope tokens', async () => {
    const { t, client } = await setup();
    for (const scope of ['admin.v1.attributes.read', 'messaging.v1.send unknown.v1.scope', 'messaging.v1.send "quoted"']) {
      const url = expectRedirectError(
        await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope, state: 'st' }),
        'invalid_scope',
        'st',
      );
      expect(url.searchParams.get('code')).toBeNull();
    }
  });

  it('grants all the client scopes when no scope is sent (or an empty one)', async () => {
    const { t, client } = await setup();
    for (const scope of [undefined, '', '   ']) {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope });
      expect(check.kind === 'valid' && check.request.scopes).toEqual(['messaging.v1.send', 'messaging.v1.read']);
    }
  });

  it('honours the configured catalogue: a custom scope is granted, one the catalogue no longer offers is not', async () => {
    const orders = { scope: 'orders.v1.read', description: 'See your orders' };
    const t = await createTestGatehouse({ settings: { scopes: [...DEFAULT_SCOPES, orders] } });
    const { client } = await t.seedClient({ scopes: ['orders.v1.read', 'messaging.v1.send'] });
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'orders.v1.read' });
    expect(check.kind === 'valid' && check.request.scopes).toEqual(['orders.v1.read']);

    // The same stored client, under a deployment whose catalogue dropped orders.v1.read.
    const shrunk = await createTestGatehouse({ repositories: t.repositories });
    expectRedirectError(
      await shrunk.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'orders.v1.read', state: 'st' }),
      'invalid_scope',
      'st',
    );
    const all = await shrunk.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    expect(all.kind === 'valid' && all.request.scopes).toEqual(['messaging.v1.send']);
  });

  it('deduplicates repeated scope tokens', async () => {
    const { t, client } = await setup();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', scope: 'messaging.v1.read  messaging.v1.read' });
    expect(check.kind === 'valid' && check.request.scopes).toEqual(['messaging.v1.read']);
  });

  it('refuses a repeated OAuth parameter', async () => {
    const { t, client } = await setup();
    for (const name of ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', [name]: ['a', 'b'] });
      expectRedirectError(check, 'invalid_request');
      expect(check.kind === 'redirect-error' && check.error.description).toContain(name);
    }
  });

  it('refuses the plain PKCE method and a method other than S256', async () => {
    const { t, client } = await setup();
    for (const method of [undefined, 'plain', 's256']) {
      expectRedirectError(
        await t.gatehouse.checkAuthorizationRequest({
          client_id: client.clientId,
          response_type: 'code',
          code_challenge: s256Challenge(VERIFIER),
          code_challenge_method: method,
          state: 'p',
        }),
        'invalid_request',
        'p',
      );
    }
  });

  it('refuses a malformed challenge and a method without a challenge', async () => {
    const { t, client } = await setup();
    for (const challenge of ['short', `${s256Challenge(VERIFIER)}A`, `${s256Challenge(VERIFIER).slice(0, 42)}=`]) {
      expectRedirectError(
        await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' }),
        'invalid_request',
      );
    }
    expectRedirectError(
      await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', code_challenge_method: 'S256' }),
      'invalid_request',
    );
  });

  it('accepts a S256 challenge', async () => {
    const { t, client } = await setup();
    const challenge = s256Challenge(VERIFIER);
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(check.kind === 'valid' && check.request.codeChallenge).toBe(challenge);
  });

  it('requires a challenge from a client registered with pkceRequired', async () => {
    const { t, client } = await setup({ pkceRequired: true });
    expectRedirectError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'k' }), 'invalid_request', 'k');
    const ok = await t.gatehouse.checkAuthorizationRequest({
      client_id: client.clientId,
      response_type: 'code',
      code_challenge: s256Challenge(VERIFIER),
      code_challenge_method: 'S256',
    });
    expect(ok.kind).toBe('valid');
  });
});

describe('approveAuthorization and denyAuthorization', () => {
  it('redirects with a code, the state and iss, and stores only the code hash', async () => {
    const { t, client } = await setup();
    const user = await t.seedUser();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'abc' });
    if (check.kind !== 'valid') throw new Error('expected a valid request');
    const { redirectTo } = await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: 'sess1' });
    const url = new URL(redirectTo);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    const code = url.searchParams.get('code') ?? '';
    expect(code).toMatch(/^[0-9A-Za-z]{8}_[A-Za-z0-9]{43,}$/);
    expect(url.searchParams.get('state')).toBe('abc');
    expect(url.searchParams.get('iss')).toBe(ISSUER);
    expect(await t.repositories.codes.findByHash(code)).toBeUndefined();
    expect(await t.repositories.codes.findByHash(storedSecretHash(code))).toMatchObject({ clientId: client.clientId, userKey: user.userKey, redirectUri: REDIRECT, sessionId: 'sess1', consumedAt: null, codeChallenge: null });
    expect((await t.repositories.codes.findByHash(storedSecretHash(code)))?.expiresAt).toEqual(new Date(t.clock.now().getTime() + 60_000));
    expect(t.audit.ofType('consent.granted')).toEqual([
      { type: 'consent.granted', at: t.clock.now(), userKey: user.userKey, clientId: client.clientId, reason: 'messaging.v1.send messaging.v1.read' },
    ]);
    expect(JSON.stringify(t.audit.events)).not.toContain(code);
  });

  it('keeps the query of a registered redirect URI', async () => {
    const { t, client } = await setup({ redirectUris: ['https://client.example/cb?tenant=7'] });
    const user = await t.seedUser();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code' });
    if (check.kind !== 'valid') throw new Error('expected a valid request');
    const url = new URL((await t.gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId: null })).redirectTo);
    expect(url.searchParams.get('tenant')).toBe('7');
    expect(url.searchParams.get('code')).not.toBeNull();
    expect(url.searchParams.has('state')).toBe(false);
  });

  it('redirects a denial with access_denied, state and iss', async () => {
    const { t, client } = await setup();
    const user = await t.seedUser();
    const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', state: 'd' });
    if (check.kind !== 'valid') throw new Error('expected a valid request');
    const url = new URL(t.gatehouse.denyAuthorization({ request: check.request, userKey: user.userKey }).redirectTo);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('d');
    expect(url.searchParams.get('iss')).toBe(ISSUER);
    expect(url.searchParams.get('code')).toBeNull();
    expect(t.audit.ofType('consent.denied')).toHaveLength(1);
  });
});

describe('cancelAuthorization (docs/decisions/0156)', () => {
  it('answers access_denied with the state to the checked redirect URI, for a valid request and one that has an error', async () => {
    const { t, client } = await setup();
    for (const params of [{ client_id: client.clientId, response_type: 'code', state: 'st' }, { client_id: client.clientId, response_type: 'token', state: 'st' }]) {
      const cancelled = await t.gatehouse.cancelAuthorization(params);
      const url = new URL(cancelled?.redirectTo ?? 'about:blank');
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(Object.fromEntries(url.searchParams)).toEqual({ error: 'access_denied', error_description: 'The user cancelled the sign-in.', state: 'st', iss: ISSUER });
    }
    expect(t.audit.ofType('consent.denied')).toEqual([expect.objectContaining({ clientId: client.clientId, reason: 'cancelled at sign-in' }), expect.objectContaining({ reason: 'cancelled at sign-in' })]);
  });

  it('never sends anyone to a redirect URI it cannot trust', async () => {
    const { t, client } = await setup();
    expect(await t.gatehouse.cancelAuthorization({ client_id: client.clientId, response_type: 'code', redirect_uri: 'https://evil.example/cb' })).toBeUndefined();
    expect(await t.gatehouse.cancelAuthorization({ client_id: 'nobody', response_type: 'code', redirect_uri: REDIRECT })).toBeUndefined();
    expect(t.audit.ofType('consent.denied')).toEqual([]);
  });
});

describe('checkAuthorizationRequest: prompt (OIDC Core §3.1.2.1)', () => {
  it('accepts none, login, consent and login with consent', async () => {
    const { t, client } = await setup();
    for (const [prompt, prompts] of [['none', ['none']], ['login', ['login']], ['consent', ['consent']], ['login consent', ['login', 'consent']], ['', []]] as const) {
      expect(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', prompt })).toMatchObject({ kind: 'valid', request: { prompts } });
    }
  });

  it('refuses an unknown value, none with another, and a repeated prompt, with invalid_request', async () => {
    const { t, client } = await setup();
    for (const prompt of ['select_account', 'none login', 'NONE']) {
      const check = await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', prompt, state: 's' });
      expectRedirectError(check, 'invalid_request', 's');
    }
    expectRedirectError(await t.gatehouse.checkAuthorizationRequest({ client_id: client.clientId, response_type: 'code', prompt: ['none', 'none'] }), 'invalid_request');
  });
});
