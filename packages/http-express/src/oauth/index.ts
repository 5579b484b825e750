export { createOAuthRouter } from './router.js';
export { authorizationServerMetadata, OAUTH_PATHS } from './metadata.js';
export { readClientCredentials, type ClientCredentials } from './client-auth.js';
export { sendOAuthError, setNoStore } from './json-errors.js';
export { issuerPath, gatehousePaths, wellKnownMetadataPath, type GatehousePaths } from './paths.js';
