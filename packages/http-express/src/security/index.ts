export { SESSION_COOKIE, CSRF_COOKIE, readCookie, repeatedCookie, cookieOptions, cookieName, sessionCookieName, csrfCookieName } from './cookies.js';
export {
  CSRF_FIELD,
  csrfSettings,
  sessionCsrfToken,
  provideCsrfToken,
  loginCsrfToken,
  issueCsrfToken,
  csrfTokenMatches,
  loginCsrfTokenMatches,
  type CsrfSettings,
} from './csrf.js';
export { formBody, parseForm, type FormFields, type FormBodyFailure, type FormBodyOptions } from './form-body.js';
export { securityHeaders, setPageHeaders, pageCsp, PAGE_CSP, API_CSP, type PageCspOptions } from './headers.js';
export { createFailureLimiter, createAttemptLimits, DEFAULT_RATE_LIMIT, DEFAULT_MAX_ANONYMOUS_REQUESTS_PER_IP, type RateLimitSettings, type AttemptLimits, type LimitCheck } from './rate-limit.js';
export { createMemoryFailureStore, DEFAULT_MAX_KEYS_PER_SCOPE, type FailureStore, type LimitKey, type LimitScope } from './failure-store.js';
export { ipBucket, DEFAULT_IPV6_PREFIX_LENGTH } from './ip-bucket.js';
export {
  LOGIN_PATH,
  loadSignedIn,
  requireSignedInPage,
  requireSignedInPageAt,
  loginUrl,
  safeReturnTo,
  sessionTokenOf,
  setSessionCookie,
  clearSessionCookie,
} from './session.js';
export type { SignedInState } from './locals.js';
export { sharedWiring, GatehouseSetupError, type RouterStorage, type SharedWiring } from './shared-storage.js';
