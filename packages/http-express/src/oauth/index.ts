export { createOAuthRouter } from './router.js';
export { authorizationServerMetadata } from './metadata.js';
export { GRANT_TYPES, type GrantType } from './grant-types.js';
export { readClientCredentials, type ClientCredentials } from './client-auth.js';
export { sendOAuthError } from './json-errors.js';
export { setNoStore } from './no-store.js';
export { issuerPath, gatehousePaths, wellKnownMetadataPath, wellKnownOpenIdConfigurationPath, OAUTH_PATHS, type GatehousePaths } from './paths.js';
