export { createGatehouseApp, type GatehouseHttpOptions } from './app.js';
export { silentLogger, requestLogger, requestIdOf, type HttpLogger } from './logger.js';
export { createOAuthRouter, authorizationServerMetadata, OAUTH_PATHS } from './oauth/index.js';
export { createPortalRouter, PORTAL_MENU } from './portal/index.js';
export * from './security/index.js';
export * from './pages/index.js';
