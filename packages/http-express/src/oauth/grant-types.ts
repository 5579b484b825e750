/**
 * The grants the token endpoint serves: the core's list (RFC 6749 §4.1.3 authorization code,
 * §6 refresh, §4.4 client credentials). The metadata's `grant_types_supported` (RFC 8414 §2) is
 * this list; no implicit or password grant (RFC 9700 §2.1.2, §2.4).
 */
export { GRANT_TYPES, type GrantType } from '@gatehouse/core';
