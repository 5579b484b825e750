import { describe, expect, it } from 'vitest';
import { findRegisteredRedirectUri, isLoopbackHost, redirectUriMatches, redirectUriProblem } from './redirect-uri.js';

describe('redirectUriProblem', () => {
  it('accepts https anywhere and http on loopback', () => {
    for (const uri of ['https://app.example/cb', 'https://app.example:8443/cb?x=1', 'http://localhost/cb', 'http://127.0.0.1:9000/cb', 'http://127.10.0.1/cb', 'http://[::1]/cb']) {
      expect(redirectUriProblem(uri)).toBeUndefined();
    }
  });

  it('names the reason for a refused URI', () => {
    expect(redirectUriProblem('/cb')).toBe('must be an absolute URI');
    expect(redirectUriProblem('https://app.example/cb#x')).toBe('must not contain a fragment');
    expect(redirectUriProblem('https://a:b@app.example/cb')).toBe('must not contain user information');
    expect(redirectUriProblem('http://app.example/cb')).toBe('must use https (http is allowed on loopback only)');
    expect(redirectUriProblem('myapp://cb')).toBe('must use https (http is allowed on loopback only)');
  });
});

describe('isLoopbackHost', () => {
  it('knows localhost, 127.0.0.0/8 and [::1], and nothing that merely starts like them', () => {
    expect(['localhost', '127.0.0.1', '127.255.0.9', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true]);
    expect(['localhost.example', '127.0.0.1.example', '10.0.0.1', '::1', 'example.com'].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
  });
});

describe('redirectUriMatches', () => {
  it('compares strings exactly (RFC 9700 §4.1.3)', () => {
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb')).toBe(true);
    for (const requested of ['https://app.example/cb/', 'https://app.example:443/cb', 'https://APP.example/cb', 'https://app.example/cb?x=1', 'https://app.example:8443/cb']) {
      expect(redirectUriMatches('https://app.example/cb', requested)).toBe(false);
    }
  });

  it('lets a loopback IP redirect URI take any port (RFC 8252 §7.3)', () => {
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:51004/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:8000/cb', 'http://127.0.0.1:9000/cb')).toBe(true);
    expect(redirectUriMatches('http://[::1]/cb?x=1', 'http://[::1]:65535/cb?x=1')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1', 'http://127.0.0.1:4000')).toBe(true);
  });

  it('keeps host, path and query exact for loopback, and refuses localhost, other schemes and bad ports', () => {
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.2:5000/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:5000/cb2')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:5000/cb#x')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:5000@evil.example/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:0/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:70000/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'https://127.0.0.1:5000/cb')).toBe(false);
    // RFC 8252 §8.3: localhost is matched exactly, never port-free.
    expect(redirectUriMatches('http://localhost/cb', 'http://localhost:5000/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example:5000/cb')).toBe(false);
  });

  it('finds the registered URI a request matches', () => {
    expect(findRegisteredRedirectUri(['https://a.example/cb', 'http://[::1]/cb'], 'http://[::1]:8400/cb')).toBe('http://[::1]/cb');
    expect(findRegisteredRedirectUri(['https://a.example/cb'], 'https://b.example/cb')).toBeUndefined();
  });
});
