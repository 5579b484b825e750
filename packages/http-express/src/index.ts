export { createGatehouseApp } from './app.js';
export { createGatehouseRouter, authorizationServerMetadataRouter } from './embed/router.js';
export { completeGatehouseLogin, completeGatehouseConsent, logoutGatehouseUser } from './embed/host-login.js';
export type { GatehouseHttpOptions, GatehouseRouterOptions } from './options.js';
export { silentLogger, requestLogger, requestIdOf, routineRequest, type HttpLogger } from './logger.js';
// Storage outages: answered 503 with Retry-After, each logged once (docs/decisions/0100).
export {
  createStorageOutages,
  retryAfterSeconds,
  watchStorage,
  type StorageOutage,
  type StorageOutageOptions,
  type StorageOutages,
} from './storage-outages.js';
export {
  createOAuthRouter,
  authorizationServerMetadata,
  GRANT_TYPES,
  type GrantType,
  OAUTH_PATHS,
  issuerPath,
  gatehousePaths,
  wellKnownMetadataPath,
  wellKnownOpenIdConfigurationPath,
  type GatehousePaths,
} from './oauth/index.js';
export { createPortalRouter } from './portal/index.js';
export { createResourceRouter } from './resource/index.js';
export {
  SESSION_COOKIE,
  cookieName,
  csrfSettings,
  provideCsrfToken,
  issueCsrfToken,
  csrfTokenMatches,
  type CsrfSettings,
  type FormFields,
  type FormBodyFailure,
  type FormBodyOptions,
  setPageHeaders,
  createFailureLimiter,
  createAttemptLimits,
  DEFAULT_RATE_LIMIT,
  DEFAULT_MAX_ANONYMOUS_REQUESTS_PER_IP,
  type RateLimitSettings,
  type AttemptLimits,
  type LimitCheck,
  createMemoryFailureStore,
  type FailureStore,
  type LimitKey,
  type LimitScope,
  ipBucket,
  DEFAULT_IPV6_PREFIX_LENGTH,
  loadSignedIn,
  requireSignedInPage,
  loginUrl,
  safeReturnTo,
  sessionTokenOf,
  type SignedInState,
  // A shared storage without shared secrets does not start (docs/decisions/0145-embedders-production-wiring.md).
  GatehouseSetupError,
  type RouterStorage,
} from './security/index.js';
export {
  html,
  escapeHtml,
  SafeHtml,
  layout,
  type LayoutOptions,
  sendPage,
  sendUnavailablePage,
  type ErrorPageInput,
  loginPage,
  passwordHelpUrlProblem,
  DEFAULT_PASSWORD_HELP,
  type PasswordHelp,
  type LoginPageInput,
  consentPage,
  type ConsentPageInput,
  type PagePaths,
} from './pages/index.js';
// Resource-server middleware for the host's own routes (RFC 6750), and the problem answers (RFC 9457).
export {
  accessTokenOf,
  bearerAuth,
  bearerErrorHandler,
  requireScope,
  userKeyOf,
  BEARER_REALM,
  type BearerAuthOptions,
  type BearerLocals,
  type RequireScopeOptions,
} from './bearer/index.js';
// RFC 9728 protected resource metadata for the host's resource servers.
export {
  protectedResourceMetadata,
  protectedResourceMetadataRouter,
  protectedResourceMetadataUrl,
  PROTECTED_RESOURCE_METADATA_PATH,
  type ProtectedResourceMetadataOptions,
} from './protected-resource/index.js';
export { HttpProblem, problem, problemErrorHandler, type Problem, type ProblemKind, type ProblemLogger } from './problem/index.js';
export { expressServerOptions, type ExpressServerOptions } from './server-options.js';
// Housekeeping in one call: the purge on an unref'd timer (docs/decisions/0145-embedders-production-wiring.md).
export {
  startMaintenance,
  purgeExpiredRecords,
  DEFAULT_MAINTENANCE_INTERVAL_MS,
  type Maintenance,
  type MaintenanceOptions,
  type GatehouseMaintenanceOptions,
  type CustomMaintenanceOptions,
  type MaintenanceSchedule,
  type MaintainedStorage,
} from './maintenance/maintenance.js';
// The signing thread moved to @gatehouse/core/threads (docs/decisions/0160); kept here for existing imports.
export { sharedSigningThread, startSigningThread, type SigningThread } from '@gatehouse/core/threads';
// Client registration without a human (RFC 7591/7592, Client ID Metadata Documents; decisions 0115–0119).
export { createClientMetadataDocumentFetcher, type ClientMetadataDocumentFetcherOptions, type HostResolver } from './client-metadata/document-fetcher.js';
export { addressRefusal, type AddressAllowance } from './client-metadata/address-guard.js';
export { DEFAULT_REGISTRATION_LIMITS, type RegistrationLimits } from './oauth/register.js';
