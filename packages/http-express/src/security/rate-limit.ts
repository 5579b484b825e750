import type { Clock } from '@gatehouse/core';

export interface RateLimitSettings {
  /** Failures allowed per key (an e-mail, a client_id) within the window; the next attempt gets 429. */
  maxFailures: number;
  windowSeconds: number;
  /** Failures allowed per IP address (default 5 × maxFailures: several people may share one address). */
  maxFailuresPerIp?: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { maxFailures: 5, windowSeconds: 300 };

/** The result of asking whether an attempt may go ahead. */
export type LimitCheck = { limited: false } | { limited: true; retryAfterSeconds: number };

/** One key to count failures under, with its own ceiling. */
export interface LimitKey {
  key: string;
  max: number;
}

/**
 * Counts failures (only failures: SPEC §4 Operations) per key in a sliding window and says when
 * a key is over its limit. In memory, per process (docs/decisions/0023): behind several
 * instances each counts on its own, so the effective limit multiplies by the instance count.
 *
 * @example
 * const limiter = createFailureLimiter(clock);
 * const keys = [{ key: `login:email:${email}`, max: 5 }, { key: `login:ip:${ip}`, max: 25 }];
 * const check = limiter.check(keys, 300);
 * if (!check.limited && !(await signIn())) limiter.recordFailure(keys, 300);
 */
export function createFailureLimiter(clock: Clock, options: { maxKeys?: number } = {}) {
  const maxKeys = options.maxKeys ?? 100_000;
  /** Failure times (ms) per key, oldest first; never longer than the key's ceiling. */
  const failures = new Map<string, number[]>();

  function recent(key: string, now: number, windowMs: number): number[] {
    const times = failures.get(key);
    if (!times) return [];
    const live = times.filter((time) => time > now - windowMs);
    if (live.length === 0) failures.delete(key);
    else if (live.length !== times.length) failures.set(key, live);
    return live;
  }

  function prune(now: number, windowMs: number): void {
    for (const key of failures.keys()) recent(key, now, windowMs);
    // Still full (a flood of distinct keys): forget the oldest keys rather than grow without bound.
    for (const key of failures.keys()) {
      if (failures.size < maxKeys) break;
      failures.delete(key);
    }
  }

  return {
    check(keys: readonly LimitKey[], windowSeconds: number): LimitCheck {
      const now = clock.now().getTime();
      const windowMs = windowSeconds * 1000;
      let retryAfterMs = 0;
      for (const { key, max } of keys) {
        const live = recent(key, now, windowMs);
        if (live.length >= max) {
          // Allowed again when enough of the oldest failures have left the window.
          const freeing = live[live.length - max] as number;
          retryAfterMs = Math.max(retryAfterMs, freeing + windowMs - now);
        }
      }
      return retryAfterMs > 0 ? { limited: true, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) } : { limited: false };
    },

    recordFailure(keys: readonly LimitKey[], windowSeconds: number): void {
      const now = clock.now().getTime();
      const windowMs = windowSeconds * 1000;
      if (failures.size >= maxKeys) prune(now, windowMs);
      for (const { key, max } of keys) {
        const live = recent(key, now, windowMs);
        live.push(now);
        failures.set(key, live.slice(-max));
      }
    },
  };
}

export type FailureLimiter = ReturnType<typeof createFailureLimiter>;

/**
 * The two limited activities, as the OAuth routes use them: sign-in (per e-mail and per IP)
 * and client authentication (per client_id from one IP, and per IP).
 */
export function createAttemptLimits(clock: Clock, settings: RateLimitSettings = DEFAULT_RATE_LIMIT) {
  const limiter = createFailureLimiter(clock);
  const perIp = settings.maxFailuresPerIp ?? settings.maxFailures * 5;
  const signInKeys = (email: string, ip: string): LimitKey[] => [
    { key: `sign-in:email:${email.trim().toLowerCase()}`, max: settings.maxFailures },
    { key: `sign-in:ip:${ip}`, max: perIp },
  ];
  // Per client_id *from this IP*: client ids are public (they travel in authorize URLs), so a
  // global per-client count would let anyone lock a client out of its token endpoint.
  const clientKeys = (clientId: string | undefined, ip: string): LimitKey[] => [
    ...(clientId === undefined ? [] : [{ key: `client:id:${ip}:${clientId}`, max: settings.maxFailures }]),
    { key: `client:ip:${ip}`, max: perIp },
  ];
  return {
    signIn: {
      check: (email: string, ip: string) => limiter.check(signInKeys(email, ip), settings.windowSeconds),
      recordFailure: (email: string, ip: string) => limiter.recordFailure(signInKeys(email, ip), settings.windowSeconds),
    },
    clientAuth: {
      check: (clientId: string | undefined, ip: string) => limiter.check(clientKeys(clientId, ip), settings.windowSeconds),
      recordFailure: (clientId: string | undefined, ip: string) => limiter.recordFailure(clientKeys(clientId, ip), settings.windowSeconds),
    },
  };
}

export type AttemptLimits = ReturnType<typeof createAttemptLimits>;
