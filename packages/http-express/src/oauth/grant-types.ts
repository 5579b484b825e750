/**
 * The grants the token endpoint serves: RFC 6749 §4.1.3 (authorization code) and §6 (refresh).
 * The metadata's `grant_types_supported` (RFC 8414 §2) is this list; no implicit or password grant
 * (RFC 9700 §2.1.2, §2.4).
 */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export type GrantType = (typeof GRANT_TYPES)[number];
