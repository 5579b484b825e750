import { describe, expect, it } from 'vitest';
import { applicationTypeOf } from './client-metadata.js';

describe('applicationTypeOf (docs/decisions/0116-native-redirect-uris.md)', () => {
  it('is web when every redirect URI is https, the scheme read case-insensitively (RFC 3986 §3.1), else native', () => {
    expect(applicationTypeOf(undefined, ['https://a.example/cb', ' https://b.example/cb '])).toBe('web');
    expect(applicationTypeOf(undefined, ['HTTPS://a.example/cb'])).toBe('web');
    expect(applicationTypeOf(undefined, ['Https://a.example/cb', 'https://b.example/cb'])).toBe('web');
    expect(applicationTypeOf(undefined, ['https://a.example/cb', 'http://127.0.0.1/cb'])).toBe('native');
    expect(applicationTypeOf(undefined, ['com.example.app:/cb'])).toBe('native');
    expect(applicationTypeOf(undefined, ['https//a.example/cb'])).toBe('native');
    expect(applicationTypeOf('native', ['https://a.example/cb'])).toBe('native');
  });
});
