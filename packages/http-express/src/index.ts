export { createGatehouseApp, type GatehouseHttpOptions } from './app.js';
export { createGatehouseRouter, authorizationServerMetadataRouter } from './embed/router.js';
export type { GatehouseRouterOptions } from './options.js';
export { silentLogger, requestLogger, requestIdOf, type HttpLogger } from './logger.js';
export { createOAuthRouter, authorizationServerMetadata, OAUTH_PATHS, issuerPath, gatehousePaths, wellKnownMetadataPath, type GatehousePaths } from './oauth/index.js';
export { createPortalRouter, PORTAL_MENU } from './portal/index.js';
export { createResourceRouter, RESOURCE_PREFIXES } from './resource/index.js';
export * from './security/index.js';
export * from './pages/index.js';
