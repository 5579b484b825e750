// The public entry point of @gatehouse/http-express: what an embedder calls, each name listed
// (docs/decisions/0163-http-express-public-surface.md). Page building blocks for hosts that draw
// their own pages with Gatehouse's look are in `@gatehouse/http-express/pages` (./pages/public.ts).
// public-api.test.ts asserts this exact list of values; api/http-express.api.md reports it.

// The whole server, or Gatehouse's routers in the host's app (docs/decisions/0090, 0091, 0097).
export { createGatehouseApp } from './app.js';
export { createGatehouseRouter, authorizationServerMetadataRouter } from './embed/router.js';
export { createPortalRouter } from './portal/index.js';
export { createResourceRouter } from './resource/index.js';
export { issuerPath } from './oauth/paths.js';
export type { GatehouseHttpOptions, GatehouseRouterOptions } from './options.js';
export { passwordHelpUrlProblem, type PasswordHelp } from './oauth/pages/login.js';
export type { PageBranding } from './pages/branding.js';
export type { RateLimitSettings } from './security/rate-limit.js';
export type { FailureStore, LimitKey, LimitScope } from './security/failure-store.js';
export type { RegistrationLimits } from './oauth/register.js';
// A shared storage without shared secrets does not start (docs/decisions/0145-embedders-production-wiring.md).
export { GatehouseSetupError, type RouterStorage } from './security/shared-storage.js';

// The host signs users in, asks for consent and signs them out itself (docs/decisions/0091, 0095, 0141).
export { completeGatehouseLogin, completeGatehouseConsent, logoutGatehouseUser } from './embed/host-login.js';

// Resource-server middleware for the host's own routes (RFC 6750), and the problem answers (RFC 9457).
export { accessTokenOf, bearerAuth, bearerErrorHandler, requireScope, userKeyOf, type BearerAuthOptions, type BearerLocals, type RequireScopeOptions } from './bearer/index.js';
export { HttpProblem, problem, problemErrorHandler, type Problem, type ProblemKind, type ProblemLogger } from './problem/index.js';
// RFC 9728 protected resource metadata for the host's resource servers.
export { protectedResourceMetadataRouter, type ProtectedResourceMetadataOptions } from './protected-resource/index.js';

// Logs: a pino logger fits `HttpLogger`; a host's own health route marks its requests routine (docs/operations.md "Logs").
export { routineRequest, type HttpLogger } from './logger.js';
// Storage outages: answered 503 with Retry-After, each logged once (docs/decisions/0100).
export { createStorageOutages, watchStorage, type StorageOutage, type StorageOutageOptions, type StorageOutages } from './storage-outages.js';
// Housekeeping in one call: the purge on an unref'd timer (docs/decisions/0145-embedders-production-wiring.md).
export {
  startMaintenance,
  purgeExpiredRecords,
  type Maintenance,
  type MaintenanceOptions,
  type GatehouseMaintenanceOptions,
  type CustomMaintenanceOptions,
  type MaintenanceSchedule,
  type MaintainedStorage,
} from './maintenance/maintenance.js';
// Requests born with Express's prototypes (docs/decisions/0070).
export { expressServerOptions, type ExpressServerOptions } from './server-options.js';
// Client ID Metadata Documents, fetched guarded against SSRF (docs/decisions/0117, 0118).
export { createClientMetadataDocumentFetcher, type ClientMetadataDocumentFetcherOptions, type HostResolver } from './client-metadata/document-fetcher.js';
