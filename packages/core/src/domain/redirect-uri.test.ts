import { describe, expect, it } from 'vitest';
import { isLoopbackHost, redirectUriProblem } from './redirect-uri.js';

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
