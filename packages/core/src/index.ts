export * from './errors.js';
export type * from './domain/model.js';
export {
  DEFAULT_SCOPES,
  describeScope,
  isCataloguedScope,
  scopeCatalogueProblem,
  parseScope,
  formatScope,
  isValidScopeToken,
  type ScopeCatalogue,
  type ScopeDefinition,
} from './domain/scopes.js';
export {
  checkResourceUri,
  canonicalResourceUri,
  findResource,
  resourceCatalogueProblem,
  type ResourceCatalogue,
  type ResourceDefinition,
  type ResourceUriCheck,
} from './domain/resources.js';
export { redirectUriProblem, isLoopbackHost, redirectUriMatches, findRegisteredRedirectUri } from './domain/redirect-uri.js';
export { GRANT_TYPES, DEFAULT_GRANT_TYPES, isGrantType, isPublicClient, tokenEndpointAuthMethod, assertGrantType } from './domain/grant-types.js';
export { timeOrderedId } from './domain/time-ordered-id.js';
export { timeOrderedSecret, storedSecretHash } from './domain/time-ordered-secret.js';
export * from './ports/index.js';
export { defineSettings, longestAccessTokenTtlSeconds, type GatehouseSettings } from './settings.js';
export type { Deps } from './deps.js';
export { sha256, constantTimeEqual, randomAlphanumeric, randomIdGenerator, createScryptPasswordHasher, DEFAULT_SCRYPT_PARAMETERS, type ScryptParameters } from './crypto.js';
export { createKeyRing, SIGNING_ALGORITHM, type KeyRing } from './tokens/key-ring.js';
export type { AccessTokenClaims } from './tokens/access-token-claims.js';
export { es256Signature } from './tokens/jws.js';
export { issueAccessToken, verifyAccessToken, verifySignedClaims, type AccessTokenExpectations, type VerifiedAccessToken, type UserAccessToken, type ClientAccessToken } from './tokens/access-token.js';
export { cachedClientRepository, DEFAULT_CLIENT_CACHE, type ClientCacheOptions } from './clients/cached-client-repository.js';
export { cachedUserRepositories, DEFAULT_USER_CACHE, type UserCacheOptions } from './users/cached-user-repositories.js';
export { createVerifiedTokenCache, DEFAULT_VERIFIED_TOKEN_CACHE_SIZE, type VerifiedTokenCache, type CachedClaims } from './tokens/verified-token-cache.js';
export * from './use-cases/authorize.js';
export * from './use-cases/authorization-step.js';
export * from './use-cases/prompt.js';
export * from './use-cases/clients.js';
export * from './use-cases/exchange-code.js';
export * from './use-cases/refresh.js';
export * from './use-cases/client-credentials.js';
export * from './use-cases/revoke.js';
export * from './use-cases/introspect.js';
export * from './use-cases/sessions.js';
export * from './use-cases/interactions.js';
export { ownUserDirectory, profileOf } from './use-cases/user-directory.js';
export * from './use-cases/users.js';
export * from './use-cases/attributes.js';
export * from './use-cases/messages.js';
export * from './use-cases/authorized-apps.js';
export * from './use-cases/purge.js';
export * from './use-cases/lookups.js';
export type { TokenResponse } from './use-cases/token-response.js';
export { createGatehouse, type Gatehouse, type GatehouseOptions, type RequestScopedGatehouse } from './gatehouse.js';
