import { describe, expect, it } from 'vitest';
import { withParameter } from './context.js';
import { gatehousePaths, issuerPath, wellKnownMetadataPath, wellKnownOpenIdConfigurationPath } from './paths.js';

describe('the mount path from the issuer (docs/decisions/0090)', () => {
  it('is the issuer\'s path without trailing slashes', () => {
    expect(issuerPath('https://host.example/auth')).toBe('/auth');
    expect(issuerPath('https://host.example/auth/')).toBe('/auth');
    expect(issuerPath('https://auth.example.com')).toBe('');
    expect(issuerPath('https://auth.example.com/')).toBe('');
    expect(issuerPath('http://127.0.0.1:3000/a/b')).toBe('/a/b');
  });

  it('puts every page path under it', () => {
    expect(gatehousePaths('/auth')).toEqual({
      base: '/auth',
      authorize: '/auth/oauth/authorize',
      decision: '/auth/oauth/authorize/decision',
      token: '/auth/oauth/token',
      revoke: '/auth/oauth/revoke',
      introspect: '/auth/oauth/introspect',
      jwks: '/auth/oauth/jwks',
      userinfo: '/auth/oauth/userinfo',
      login: '/auth/oauth/login',
      logout: '/auth/oauth/logout',
      stylesheet: '/auth/assets/gatehouse.css',
      script: '/auth/assets/gatehouse.js',
      icon: '/auth/assets/gatehouse.svg',
    });
  });

  it('appends the issuer path to the well-known path (RFC 8414 §3.1)', () => {
    expect(wellKnownMetadataPath('https://host.example/auth')).toBe('/.well-known/oauth-authorization-server/auth');
    expect(wellKnownMetadataPath('https://auth.example.com')).toBe('/.well-known/oauth-authorization-server');
    expect(wellKnownOpenIdConfigurationPath('https://host.example/auth')).toBe('/.well-known/openid-configuration/auth');
    expect(wellKnownOpenIdConfigurationPath('https://auth.example.com')).toBe('/.well-known/openid-configuration');
  });
});

describe('withParameter', () => {
  it('adds a query parameter to a path or URL that has a query or not, dropping a fragment', () => {
    expect(withParameter('/login', 'login_request', 'abc')).toBe('/login?login_request=abc');
    expect(withParameter('/login?lang=en', 'login_request', 'abc')).toBe('/login?lang=en&login_request=abc');
    expect(withParameter('https://orders.example/login#top', 'login_request', 'a b')).toBe('https://orders.example/login?login_request=a+b');
  });
});
