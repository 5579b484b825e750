import type { Clock } from '@gatehouse/core';
import { createMemoryFailureStore, type FailureStore, type LimitKey } from './failure-store.js';
import { DEFAULT_IPV6_PREFIX_LENGTH, ipBucket } from './ip-bucket.js';

export type { FailureStore, LimitKey, LimitScope } from './failure-store.js';

export interface RateLimitSettings {
  /** Failures allowed per key (an e-mail, a client_id) within the window; the next attempt gets 429. */
  maxFailures: number;
  windowSeconds: number;
  /** Failures allowed per IP address (default 5 × maxFailures: several people may share one address). */
  maxFailuresPerIp?: number;
  /** IPv6 addresses count per network of this prefix length (default 64: one end site); IPv4 per address. */
  ipv6PrefixLength?: number;
  /**
   * Authorization requests per IP address within the window that make Gatehouse store something
   * for a browser that is not signed in (a login request for the host's login page, a
   * `prompt=login` or `max_age` marker); the next gets 429 (default 60;
   * docs/decisions/0108-anonymous-requests-store-bounded-state.md).
   */
  maxAnonymousRequestsPerIp?: number;
  /**
   * Client ID Metadata Documents fetched per IP address within the window because an
   * authorization request named a client id URL Gatehouse had not stored (or whose document had
   * expired); the next such request gets 429 (default 20;
   * docs/decisions/0166-client-metadata-document-fetches-rate-limited.md).
   */
  maxClientMetadataDocumentsPerIp?: number;
}

/** Default of `RateLimitSettings.maxAnonymousRequestsPerIp`. */
export const DEFAULT_MAX_ANONYMOUS_REQUESTS_PER_IP = 60;

/** Default of `RateLimitSettings.maxClientMetadataDocumentsPerIp`. */
export const DEFAULT_MAX_CLIENT_METADATA_DOCUMENTS_PER_IP = 20;

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { maxFailures: 5, windowSeconds: 300 };

/** The result of asking whether an attempt may go ahead. */
export type LimitCheck = { limited: false } | { limited: true; retryAfterSeconds: number };

/**
 * The result of `admit`: refused, or admitted and already counted as a failure at `at` (withdrawn
 * with `withdraw(keys, at)` when the attempt does not fail).
 */
export type Admission = { limited: false; at: number } | { limited: true; retryAfterSeconds: number };

/**
 * Counts failures (only failures: docs/decisions/0023) per key in a sliding window and says when
 * a key is over its limit. The counts live in `store`: by default in this process's memory
 * (bounded per scope, `maxKeys` keys each); a shared store makes several instances count together.
 *
 * @example
 * const limiter = createFailureLimiter(clock);
 * const keys = [{ scope: 'email', key: `sign-in:email:${email}`, max: 5 }, { scope: 'ip', key: `sign-in:ip:${ip}`, max: 25 }];
 * const check = await limiter.check(keys, 300);
 * if (!check.limited && !(await signIn())) await limiter.recordFailure(keys, 300);
 */
export function createFailureLimiter(clock: Clock, options: { store?: FailureStore; maxKeys?: number } = {}) {
  const store = options.store ?? createMemoryFailureStore(options.maxKeys === undefined ? {} : { maxKeysPerScope: options.maxKeys });
  return {
    async check(keys: readonly LimitKey[], windowSeconds: number): Promise<LimitCheck> {
      const now = clock.now().getTime();
      const windowMs = windowSeconds * 1000;
      const failures = await store.recentFailures(keys, now - windowMs);
      return limitOf(keys, failures, now, windowMs);
    },

    async recordFailure(keys: readonly LimitKey[], windowSeconds: number): Promise<void> {
      await store.recordFailure(keys, clock.now().getTime(), windowSeconds * 1000);
    },

    /**
     * Counts the attempt as a failure before it is made, key by key, each only while the key has
     * room (`FailureStore.admitFailure`): attempts running at the same time, on any number of
     * instances, never get more than `max` past a key (docs/decisions/0181). A key without room
     * refuses the attempt, and the keys admitted before it are withdrawn.
     */
    async admit(keys: readonly LimitKey[], windowSeconds: number): Promise<Admission> {
      const at = clock.now().getTime();
      const windowMs = windowSeconds * 1000;
      for (const [index, key] of keys.entries()) {
        const full = await store.admitFailure(key, at, windowMs);
        if (full === undefined) continue;
        await store.withdrawFailure(keys.slice(0, index), at);
        const refused = limitOf([key], [full], at, windowMs);
        // A key is full only while it holds `max` failures in the window: the check above says when one leaves.
        return refused.limited ? refused : { limited: true, retryAfterSeconds: 1 };
      }
      return { limited: false, at };
    },

    /** Takes back an admitted attempt that did not fail (only failures count, docs/decisions/0023). */
    async withdraw(keys: readonly LimitKey[], at: number): Promise<void> {
      await store.withdrawFailure(keys, at);
    },
  };
}

/** Limited while any key holds `max` failures in the window; allowed again when enough of the oldest have left it. */
function limitOf(keys: readonly LimitKey[], failures: readonly number[][], now: number, windowMs: number): LimitCheck {
  let retryAfterMs = 0;
  keys.forEach(({ max }, index) => {
    const live = failures[index] ?? [];
    if (live.length >= max) {
      const freeing = live[live.length - max] as number;
      retryAfterMs = Math.max(retryAfterMs, freeing + windowMs - now);
    }
  });
  return retryAfterMs > 0 ? { limited: true, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) } : { limited: false };
}

export type FailureLimiter = ReturnType<typeof createFailureLimiter>;

/**
 * The limited activities, as the OAuth routes use them: sign-in (per e-mail and per IP), client
 * authentication (per client_id from one IP, and per IP), what the authorization requests of
 * browsers that are not signed in store (per IP; every such request counts, not only failures),
 * and the client metadata documents authorization requests make Gatehouse fetch (per IP).
 * IPv6 addresses count per network (`ipv6PrefixLength`, default /64). `store` is where the counts
 * live (default: memory).
 */
export function createAttemptLimits(clock: Clock, settings: RateLimitSettings = DEFAULT_RATE_LIMIT, store?: FailureStore) {
  const limiter = createFailureLimiter(clock, store === undefined ? {} : { store });
  const perIp = settings.maxFailuresPerIp ?? settings.maxFailures * 5;
  const prefixLength = settings.ipv6PrefixLength ?? DEFAULT_IPV6_PREFIX_LENGTH;
  if (!Number.isInteger(prefixLength) || prefixLength < 1 || prefixLength > 128) throw new RangeError('ipv6PrefixLength must be a whole number from 1 to 128.');
  const network = (ip: string) => ipBucket(ip, prefixLength);
  const signInKeys = (email: string, ip: string): LimitKey[] => [
    { scope: 'email', key: `sign-in:email:${email.trim().toLowerCase()}`, max: settings.maxFailures },
    { scope: 'ip', key: `sign-in:ip:${network(ip)}`, max: perIp },
  ];
  // Per client_id *from this IP*: client ids are public (they travel in authorize URLs), so a
  // global per-client count would let anyone lock a client out of its token endpoint.
  const clientKeys = (clientId: string | undefined, ip: string): LimitKey[] => [
    ...(clientId === undefined ? [] : [{ scope: 'client' as const, key: `client:id:${network(ip)}:${clientId}`, max: settings.maxFailures }]),
    { scope: 'ip', key: `client:ip:${network(ip)}`, max: perIp },
  ];
  const anonymousKeys = (ip: string): LimitKey[] => [
    { scope: 'ip', key: `anonymous:ip:${network(ip)}`, max: settings.maxAnonymousRequestsPerIp ?? DEFAULT_MAX_ANONYMOUS_REQUESTS_PER_IP },
  ];
  const documentKeys = (ip: string): LimitKey[] => [
    { scope: 'ip', key: `documents:ip:${network(ip)}`, max: settings.maxClientMetadataDocumentsPerIp ?? DEFAULT_MAX_CLIENT_METADATA_DOCUMENTS_PER_IP },
  ];
  return {
    clientMetadataDocuments: {
      check: (ip: string) => limiter.check(documentKeys(ip), settings.windowSeconds),
      record: (ip: string) => limiter.recordFailure(documentKeys(ip), settings.windowSeconds),
    },
    anonymousRequests: {
      check: (ip: string) => limiter.check(anonymousKeys(ip), settings.windowSeconds),
      record: (ip: string) => limiter.recordFailure(anonymousKeys(ip), settings.windowSeconds),
    },
    /**
     * Password sign-ins: each attempt is admitted, and counted, before the password is checked
     * (a burst of guesses sent at once gets no more checks than the limit; docs/decisions/0181),
     * and withdrawn when it succeeds.
     */
    signIn: {
      admit: (email: string, ip: string) => limiter.admit(signInKeys(email, ip), settings.windowSeconds),
      withdraw: (email: string, ip: string, at: number) => limiter.withdraw(signInKeys(email, ip), at),
      check: (email: string, ip: string) => limiter.check(signInKeys(email, ip), settings.windowSeconds),
    },
    clientAuth: {
      check: (clientId: string | undefined, ip: string) => limiter.check(clientKeys(clientId, ip), settings.windowSeconds),
      recordFailure: (clientId: string | undefined, ip: string) => limiter.recordFailure(clientKeys(clientId, ip), settings.windowSeconds),
    },
  };
}

export type AttemptLimits = ReturnType<typeof createAttemptLimits>;
