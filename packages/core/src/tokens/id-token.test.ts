import { describe, expect, it } from 'vitest';
import { accessTokenHash, idTokenAlgorithmOf, sessionIdForClients } from './id-token.js';

describe('accessTokenHash (OIDC Core §3.1.3.6 at_hash)', () => {
  it('is the base64url of the left half of the SHA-256 of the access token: the example of OIDC Core Appendix A.3', () => {
    expect(accessTokenHash('jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });
});

describe('sessionIdForClients (the ID token sid)', () => {
  it('is a one-way value of its own, never the stored session id, the same for the same session', () => {
    const sessionId = 'sQLtxFrXmX7IBddDxCu8vcU7YmjDslEuLsUGfe_06To';
    expect(sessionIdForClients(sessionId)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessionIdForClients(sessionId)).not.toBe(sessionId);
    expect(sessionIdForClients(sessionId)).toBe(sessionIdForClients(sessionId));
    expect(sessionIdForClients(`${sessionId}x`)).not.toBe(sessionIdForClients(sessionId));
  });
});

describe('idTokenAlgorithmOf', () => {
  it('is RS256 unless the client asked for ES256 (OIDC Core §15.1)', () => {
    expect(idTokenAlgorithmOf({})).toBe('RS256');
    expect(idTokenAlgorithmOf({ idTokenSignedResponseAlg: 'ES256' })).toBe('ES256');
  });
});
