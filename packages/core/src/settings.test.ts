import { describe, expect, it } from 'vitest';
import { defineSettings } from './settings.js';

describe('defineSettings', () => {
  it('fills the SPEC defaults', () => {
    expect(defineSettings({ issuer: 'https://auth.example.com' })).toEqual({
      issuer: 'https://auth.example.com',
      audience: 'https://auth.example.com',
      accessTokenTtlSeconds: 3600,
      codeTtlSeconds: 60,
      sessionTtlSeconds: 12 * 3600,
      maxAttributesPerAccount: 500,
      interactionTtlSeconds: 600,
      jwksMaxAgeSeconds: 300,
      refreshToken: { rotate: false, reuseGraceSeconds: 10, idleTtlSeconds: null, absoluteTtlSeconds: null },
    });
  });

  it('keeps overrides, merging the refresh token options', () => {
    const settings = defineSettings({ issuer: 'https://a.example', audience: 'https://api.example', codeTtlSeconds: 30, refreshToken: { rotate: true } });
    expect(settings).toMatchObject({ audience: 'https://api.example', codeTtlSeconds: 30, accessTokenTtlSeconds: 3600 });
    expect(settings.refreshToken).toEqual({ rotate: true, reuseGraceSeconds: 10, idleTtlSeconds: null, absoluteTtlSeconds: null });
  });
});
