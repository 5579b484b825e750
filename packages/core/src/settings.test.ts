import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES } from './domain/scopes.js';
import { defineSettings, longestAccessTokenTtlSeconds } from './settings.js';

describe('defineSettings', () => {
  it('fills the documented defaults', () => {
    expect(defineSettings({ issuer: 'https://auth.example.com' })).toEqual({
      issuer: 'https://auth.example.com',
      audience: 'https://auth.example.com',
      accessTokenTtlSeconds: 3600,
      codeTtlSeconds: 60,
      sessionTtlSeconds: 12 * 3600,
      maxAttributesPerAccount: 500,
      maxClientsPerUser: 100,
      interactionTtlSeconds: 600,
      maxAnonymousInteractions: 10_000,
      jwksMaxAgeSeconds: 300,
      scopes: DEFAULT_SCOPES,
      resources: [],
      openid: false,
      refreshToken: { rotate: false, reuseGraceSeconds: 10, idleTtlSeconds: null, absoluteTtlSeconds: null },
      registration: { policy: 'off', initialAccessTokenHashes: [], anonymousScopes: null, anonymousResources: null, unusedClientTtlSeconds: 7 * 86400 },
      clientMetadataDocuments: { enabled: false, allowedHosts: null, deniedHosts: [], cacheSeconds: { defaultSeconds: 300, minSeconds: 60, maxSeconds: 86400 } },
    });
  });

  it('with openid, adds the OpenID Connect scopes after the configured ones; one listed keeps its own words (docs/decisions/0130)', () => {
    const settings = defineSettings({ issuer: 'https://auth.example.com', openid: true });
    expect(settings.openid).toBe(true);
    expect(settings.scopes.map((entry) => entry.scope)).toEqual([...DEFAULT_SCOPES.map((entry) => entry.scope), 'openid', 'profile', 'email', 'phone', 'address', 'offline_access']);
    const own = defineSettings({ issuer: 'https://auth.example.com', openid: true, scopes: [{ scope: 'orders.v1.read', description: 'See your orders' }, { scope: 'email', description: 'Your work e-mail' }] });
    expect(own.scopes.map((entry) => entry.scope)).toEqual(['orders.v1.read', 'email', 'openid', 'profile', 'phone', 'address', 'offline_access']);
    expect(own.scopes.find((entry) => entry.scope === 'email')?.description).toBe('Your work e-mail');
    expect(() => defineSettings({ issuer: 'https://auth.example.com', scopes: [{ scope: 'email', description: 'E-mail' }] })).toThrow(/OpenID Connect scope/);
  });

  it('refuses an issuer with a trailing slash, a query or a fragment, naming the one to write (RFC 8414 §2, §3.3; docs/decisions/0183)', () => {
    expect(() => defineSettings({ issuer: 'http://localhost:3000/' })).toThrow(
      'defineSettings: the issuer "http://localhost:3000/" ends with a slash; write "http://localhost:3000": the metadata\'s issuer and every token\'s iss must be the same string (RFC 8414 §3.3, RFC 9207 §2).',
    );
    expect(() => defineSettings({ issuer: 'https://orders.example/auth/' })).toThrow('write "https://orders.example/auth"');
    expect(() => defineSettings({ issuer: 'https://auth.example.com?tenant=1' })).toThrow(
      'defineSettings: the issuer "https://auth.example.com?tenant=1" has a query or fragment, which RFC 8414 §2 forbids; write "https://auth.example.com".',
    );
    expect(() => defineSettings({ issuer: 'https://auth.example.com/auth#top' })).toThrow('has a query or fragment');
    expect(() => defineSettings({ issuer: 'https://auth.example.com/?' })).toThrow('has a query or fragment');
    expect(() => defineSettings({ issuer: 'auth.example.com' })).toThrow('defineSettings: the issuer "auth.example.com" is not an absolute URL');
    expect(() => defineSettings({ issuer: 'urn:example:issuer' })).toThrow('is not an https URL');
    expect(defineSettings({ issuer: 'https://orders.example/auth' }).issuer).toBe('https://orders.example/auth');
  });

  it('refuses an issuer not written as a URL parser writes it back, naming the one to write (docs/decisions/0197)', () => {
    expect(() => defineSettings({ issuer: 'http://LOCALHOST:3000' })).toThrow('defineSettings: the issuer "http://LOCALHOST:3000" is not written as a URL parser writes it back; write "http://localhost:3000".');
    expect(() => defineSettings({ issuer: 'HTTPS://auth.example.com' })).toThrow('write "https://auth.example.com"');
    expect(() => defineSettings({ issuer: 'https://auth.example.com:443/a/../b' })).toThrow('write "https://auth.example.com/b"');
    expect(defineSettings({ issuer: 'http://127.0.0.1:3000' }).issuer).toBe('http://127.0.0.1:3000');
  });

  it('refuses an http issuer on a host that is not loopback, naming the https one (RFC 8414 §2; docs/decisions/0187)', () => {
    expect(() => defineSettings({ issuer: 'http://auth.example.com/tenant' })).toThrow(
      'defineSettings: the issuer "http://auth.example.com/tenant" is http on a host that is not loopback; write "https://auth.example.com/tenant" (RFC 8414 §2; http is for development on localhost, 127.0.0.1 or [::1]).',
    );
    for (const issuer of ['http://10.0.0.5:3000', 'http://localhost.example', 'http://127.0.0.1.nip.io']) expect(() => defineSettings({ issuer }), issuer).toThrow('is http on a host that is not loopback');
    for (const issuer of ['http://localhost:3000', 'http://127.0.0.1:4000/auth', 'http://[::1]:3000']) expect(defineSettings({ issuer }).issuer).toBe(issuer);
  });

  it('keeps overrides, merging the refresh token options', () => {
    const settings = defineSettings({ issuer: 'https://a.example', audience: 'https://api.example', codeTtlSeconds: 30, refreshToken: { rotate: true } });
    expect(settings).toMatchObject({ audience: 'https://api.example', codeTtlSeconds: 30, accessTokenTtlSeconds: 3600 });
    expect(settings.refreshToken).toEqual({ rotate: true, reuseGraceSeconds: 10, idleTtlSeconds: null, absoluteTtlSeconds: null });
  });

  it('takes a scope catalogue of its own, copied so later changes to the array do not reach it', () => {
    const scopes = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }];
    const settings = defineSettings({ issuer: 'https://orders.example', scopes });
    scopes.pop();
    expect(settings.scopes.map((entry) => entry.scope)).toEqual([...DEFAULT_SCOPES.map((entry) => entry.scope), 'orders.v1.read']);
    expect(Object.isFrozen(settings.scopes)).toBe(true);
  });

  it('refuses a catalogue that cannot be used, saying why', () => {
    expect(() => defineSettings({ issuer: 'https://a.example', scopes: [{ scope: 'orders.read', description: 'x' }] })).toThrow(
      'defineSettings: the scope "orders.read" is not of the form <area>.<version>.<resource>.<action> or <area>.<version>.<action> (such as orders.v1.read).',
    );
    expect(() => defineSettings({ issuer: 'https://a.example', scopes: [...DEFAULT_SCOPES, DEFAULT_SCOPES[0]!] })).toThrow('defineSettings: the scope "messaging.v1.send" is listed twice.');
    expect(() => defineSettings({ issuer: 'https://a.example', scopes: [{ scope: 'orders.v1.read', description: ' ' }] })).toThrow('needs a description');
  });

  it('merges registration and metadata-document settings, host patterns in lower case', () => {
    const settings = defineSettings({
      issuer: 'https://a.example',
      registration: { policy: 'open', anonymousScopes: ['messaging.v1.read'] },
      clientMetadataDocuments: { enabled: true, allowedHosts: ['*.Agents.example', 'tool.example'], cacheSeconds: { maxSeconds: 3600 } },
    });
    expect(settings.registration).toEqual({ policy: 'open', initialAccessTokenHashes: [], anonymousScopes: ['messaging.v1.read'], anonymousResources: null, unusedClientTtlSeconds: 7 * 86400 });
    expect(settings.clientMetadataDocuments).toEqual({
      enabled: true,
      allowedHosts: ['*.agents.example', 'tool.example'],
      deniedHosts: [],
      cacheSeconds: { defaultSeconds: 300, minSeconds: 60, maxSeconds: 3600 },
    });
  });

  it('refuses registration settings that cannot be used, saying why', () => {
    expect(() => defineSettings({ issuer: 'https://a.example', registration: { policy: 'token' } })).toThrow('defineSettings: registration.policy "token" needs at least one initial access token');
    expect(() => defineSettings({ issuer: 'https://a.example', registration: { policy: 'open', anonymousScopes: ['orders.v1.read'] } })).toThrow('registration.anonymousScopes names "orders.v1.read"');
    expect(() => defineSettings({ issuer: 'https://a.example', clientMetadataDocuments: { deniedHosts: ['https://evil.example'] } })).toThrow('"https://evil.example" is not a host name');
    expect(() => defineSettings({ issuer: 'https://a.example', clientMetadataDocuments: { cacheSeconds: { minSeconds: 600 } } })).toThrow('minSeconds ≤ defaultSeconds ≤ maxSeconds');
    expect(() => defineSettings({ issuer: 'https://a.example', registration: { policy: 'closed' as never } })).toThrow('registration.policy must be off, open or token');
  });
});

describe('defineSettings resources (RFC 8707)', () => {
  const scopes = [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }];

  it('keeps the resources in canonical form', () => {
    const settings = defineSettings({ issuer: 'https://auth.example.com', scopes, resources: [{ resource: 'HTTPS://MCP.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 900 }] });
    expect(settings.resources).toEqual([{ resource: 'https://mcp.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 900 }]);
    expect(Object.isFrozen(settings.resources)).toBe(true);
  });

  it('refuses a resource that cannot be used, or one accepting a scope outside the catalogue', () => {
    expect(() => defineSettings({ issuer: 'https://a.example', scopes, resources: [{ resource: 'https://mcp.example.com/mcp#x', name: 'x', scopes: ['orders.v1.read'] }] })).toThrow(
      'defineSettings: the resource "https://mcp.example.com/mcp#x" has a fragment, which RFC 8707 forbids.',
    );
    expect(() => defineSettings({ issuer: 'https://a.example', resources: [{ resource: 'https://mcp.example.com/mcp', name: 'x', scopes: ['orders.v1.read'] }] })).toThrow('not in the scope catalogue');
  });

  it('knows the longest access-token lifetime, a resource of its own included', () => {
    const base = { issuer: 'https://a.example', scopes, accessTokenTtlSeconds: 600 };
    expect(longestAccessTokenTtlSeconds(defineSettings(base))).toBe(600);
    expect(longestAccessTokenTtlSeconds(defineSettings({ ...base, resources: [{ resource: 'https://mcp.example.com', name: 'x', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 7200 }] }))).toBe(7200);
    expect(longestAccessTokenTtlSeconds(defineSettings({ ...base, resources: [{ resource: 'https://mcp.example.com', name: 'x', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 60 }] }))).toBe(600);
  });
});
