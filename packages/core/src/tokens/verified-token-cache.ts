import type { AccessTokenClaims } from './access-token-claims.js';

/**
 * Claims of access tokens whose signature and claims were already verified, so a token presented
 * again is not verified again (ES256 verification is the largest cost of a bearer request).
 * Only what the signature proves is cached: whether the token's grant is still live is asked of
 * the repository on every request, so a revoked grant's tokens are refused at once.
 *
 * Bounded: at most `maxEntries` tokens, the least recently used leaving first; an entry is never
 * served past the token's `exp` nor when its signing key is no longer known. Invalid tokens are
 * never cached.
 */
export interface VerifiedTokenCache {
  /** The verified claims of `token`, when cached and not expired at `nowSeconds`. */
  get(token: string, nowSeconds: number): CachedClaims | undefined;
  set(token: string, entry: CachedClaims): void;
  delete(token: string): void;
  readonly size: number;
}

export interface CachedClaims {
  claims: AccessTokenClaims;
  /** The key that verified the signature. */
  kid: string;
}

export const DEFAULT_VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * @example
 * const cache = createVerifiedTokenCache({ maxEntries: 10_000 });
 * cache.set(token, { claims, kid });
 * cache.get(token, epochSeconds(clock.now())); // { claims, kid } until claims.exp
 */
export function createVerifiedTokenCache(options: { maxEntries: number }): VerifiedTokenCache {
  const maxEntries = Math.max(0, Math.floor(options.maxEntries));
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, CachedClaims>();
  return {
    get(token, nowSeconds) {
      const entry = entries.get(token);
      if (entry === undefined) return undefined;
      // RFC 7519 §4.1.4: not accepted on or after exp.
      if (entry.claims.exp <= nowSeconds) {
        entries.delete(token);
        return undefined;
      }
      entries.delete(token);
      entries.set(token, entry);
      return entry;
    },
    set(token, entry) {
      if (maxEntries === 0) return;
      entries.delete(token);
      entries.set(token, entry);
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value as string;
        entries.delete(oldest);
      }
    },
    delete(token) {
      entries.delete(token);
    },
    get size() {
      return entries.size;
    },
  };
}
