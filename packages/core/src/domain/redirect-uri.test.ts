import { describe, expect, it } from 'vitest';
import { findRegisteredRedirectUri, isLoopbackHost, isLoopbackRedirectUri, isPrivateUseScheme, redirectUriMatches, redirectUriProblem } from './redirect-uri.js';

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

describe('redirectUriProblem with an application type (docs/decisions/0116-native-redirect-uris.md)', () => {
  it('accepts only https for a web application', () => {
    expect(redirectUriProblem('https://app.example/cb', 'web')).toBeUndefined();
    for (const uri of ['http://127.0.0.1/cb', 'http://localhost:8080/cb', 'com.example.app:/cb']) {
      expect(redirectUriProblem(uri, 'web')).toBe('must use https (a web application)');
    }
    expect(redirectUriProblem('https://app.example/cb#x', 'web')).toBe('must not contain a fragment');
  });

  it('accepts https, loopback http and private-use schemes in reverse domain form for a native application (RFC 8252 §7)', () => {
    for (const uri of ['https://app.example/cb', 'http://127.0.0.1/cb', 'http://[::1]:3000/cb', 'http://localhost:8080/cb', 'com.example.app:/oauth2redirect', 'com.example.app://callback', 'io.github.tool-x:/cb']) {
      expect(redirectUriProblem(uri, 'native')).toBeUndefined();
    }
    expect(redirectUriProblem('http://app.example/cb', 'native')).toBe('must use https, or http on a loopback address (RFC 8252 §7.3)');
    for (const uri of ['myapp://cb', 'javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'ftp://files.example/cb']) {
      expect(redirectUriProblem(uri, 'native')).toMatch(/private-use scheme in reverse domain form/);
    }
    expect(redirectUriProblem('com.example.app:/cb#x', 'native')).toBe('must not contain a fragment');
    expect(redirectUriProblem('com.example.app://user:pw@cb', 'native')).toBe('must not contain user information');
  });

  it('keeps Gatehouse’s own rules without an application type: no private-use scheme', () => {
    expect(redirectUriProblem('com.example.app:/cb')).toBe('must use https (http is allowed on loopback only)');
  });

  it('tells a private-use scheme and a loopback redirect URI', () => {
    expect(['com.example.app', 'io.github.tool-x', 'a.b'].map(isPrivateUseScheme)).toEqual([true, true, true]);
    expect(['myapp', 'http', 'javascript', '.example', 'com..app', 'com.example.'].map(isPrivateUseScheme)).toEqual([false, false, false, false, false, false]);
    expect(['http://127.0.0.1:8400/cb', 'http://localhost/cb', 'http://[::1]/cb'].map(isLoopbackRedirectUri)).toEqual([true, true, true]);
    expect(['https://127.0.0.1/cb', 'http://app.example/cb', 'com.example.app:/cb', 'nonsense'].map(isLoopbackRedirectUri)).toEqual([false, false, false, false]);
  });
});

describe('redirectUriProblem: written as a URL parser writes it back (docs/decisions/0197-redirect-uris-canonical.md)', () => {
  it('refuses another spelling of a redirect URI, naming the one to write, and accepts the one the parser writes back', () => {
    for (const [uri, canonical] of [
      ['http://127.1/cb', 'http://127.0.0.1/cb'], // RFC 8252 §7.3's any port would not apply to it
      ['http://2130706433/cb', 'http://127.0.0.1/cb'],
      ['http://0x7f.0.0.1/cb', 'http://127.0.0.1/cb'],
      ['http://[0:0:0:0:0:0:0:1]/cb', 'http://[::1]/cb'],
      ['HTTPS://a.example/cb', 'https://a.example/cb'],
      ['https://A.example/cb', 'https://a.example/cb'],
      ['https://a.example:443/cb', 'https://a.example/cb'],
      ['http://localhost:80/cb', 'http://localhost/cb'],
      ['https://a.example/x/../cb', 'https://a.example/cb'],
      ['https://a.example/caf\u00e9', 'https://a.example/caf%C3%A9'],
      ['https://a.example/c\tb', 'https://a.example/cb'],
      ['https://a.example\\cb', 'https://a.example/cb'],
      ['https://a.example:443', 'https://a.example/'],
    ] as const) {
      expect(redirectUriProblem(uri), uri).toBe(`is not written as a URL parser writes it back: write it as ${canonical}`);
    }
    expect(redirectUriProblem('Com.Example.App:/cb', 'native')).toBe('is not written as a URL parser writes it back: write it as com.example.app:/cb');
    expect(redirectUriProblem('com.example.app:/a b', 'native')).toBe('is not written as a URL parser writes it back: write it as com.example.app:/a%20b');
    // The other rules come first: the reason is the one that matters.
    expect(redirectUriProblem('HTTP://app.example/cb')).toBe('must use https (http is allowed on loopback only)');
    expect(redirectUriProblem('http://127.1/cb', 'web')).toBe('must use https (a web application)');
    // What the parser writes back unchanged is accepted, and an http(s) URI without a path (RFC 3986 §6.2.3).
    for (const uri of ['https://app.example/cb', 'https://app.example:8443/cb?x=1&y=%2F', 'http://localhost:8080/cb', 'http://127.0.0.1:9000/cb', 'http://[::1]:3000/cb', 'https://app.example/', 'http://localhost:3000', 'https://app.example?x=1', 'https://xn--caf-dma.example/cb']) {
      expect(redirectUriProblem(uri), uri).toBeUndefined();
    }
    for (const uri of ['com.example.app:/cb', 'com.example.app://callback', 'com.example.app:callback', 'io.github.tool-x:/cb']) {
      expect(redirectUriProblem(uri, 'native'), uri).toBeUndefined();
    }
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
