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
export { OIDC_SCOPES, OPENID_SCOPE, CLAIMS_OF_SCOPE, SUPPORTED_CLAIMS, isOpenIdConnectScope, claimsAllowedBy } from './domain/openid-scopes.js';
export { redirectUriProblem, isLoopbackHost, redirectUriMatches, findRegisteredRedirectUri, isPrivateUseScheme, isLoopbackRedirectUri, type ApplicationType } from './domain/redirect-uri.js';
export { GRANT_TYPES, DEFAULT_GRANT_TYPES, isGrantType, isPublicClient, tokenEndpointAuthMethod, assertGrantType } from './domain/grant-types.js';
export { timeOrderedId } from './domain/time-ordered-id.js';
export { timeOrderedSecret, storedSecretHash } from './domain/time-ordered-secret.js';
export * from './ports/index.js';
export { defineSettings, longestAccessTokenTtlSeconds, type GatehouseSettings } from './settings.js';
export { hostMatches, isHostPattern, DEFAULT_UNUSED_CLIENT_TTL_SECONDS, type RegistrationPolicy, type RegistrationSettings, type ClientMetadataDocumentSettings } from './registration-settings.js';
export type { Deps } from './deps.js';
export { sha256, constantTimeEqual, randomAlphanumeric, randomIdGenerator, createScryptPasswordHasher, DEFAULT_SCRYPT_PARAMETERS, type ScryptParameters } from './crypto.js';
export { createKeyRing, SIGNING_ALGORITHM, RSA_MODULUS_LENGTH, type KeyRing, type SigningAlgorithm } from './tokens/key-ring.js';
export { issueIdToken, verifyIdTokenHint, accessTokenHash, sessionIdForClients, idTokenAlgorithmOf, type IdTokenClaims, type IdTokenHint, type IdTokenInput } from './tokens/id-token.js';
export type { AccessTokenClaims } from './tokens/access-token-claims.js';
export { es256Signature, signJwsCompact } from './tokens/jws.js';
export { issueAccessToken, verifyAccessToken, verifySignedClaims, type AccessTokenExpectations, type VerifiedAccessToken, type UserAccessToken, type ClientAccessToken } from './tokens/access-token.js';
export { cachedClientRepository, DEFAULT_CLIENT_CACHE, type ClientCacheOptions } from './clients/cached-client-repository.js';
export { clientInformation, readClientMetadata, applicationTypeOf, metadataError, METADATA_LIMITS, type RequestedClientMetadata } from './clients/client-metadata.js';
export { clientOrigin, type ClientOrigin } from './clients/client-origin.js';
export {
  clientLinks,
  clientLinkProblem,
  clientPresentation,
  shownClientLinks,
  CLIENT_LINK_FIELDS,
  CLIENT_LINK_LABELS,
  type ClientLinks,
  type ClientLinksRegistration,
  type ClientPresentation,
} from './clients/client-presentation.js';
export {
  isClientIdUrl,
  cacheLifetimeSeconds,
  CLIENT_METADATA_DOCUMENT_MAX_BYTES,
  CLIENT_METADATA_DOCUMENT_TIMEOUT_MS,
  CLIENT_ID_URL_MAX_LENGTH,
  type MetadataDocumentClients,
  type ClientLookup,
} from './clients/metadata-document-clients.js';
export { cachedUserRepositories, DEFAULT_USER_CACHE, type UserCacheOptions } from './users/cached-user-repositories.js';
export { createVerifiedTokenCache, DEFAULT_VERIFIED_TOKEN_CACHE_SIZE, type VerifiedTokenCache, type CachedClaims } from './tokens/verified-token-cache.js';
export * from './use-cases/authorize.js';
export * from './use-cases/authorization-step.js';
export * from './use-cases/prompt.js';
export * from './use-cases/clients.js';
export * from './use-cases/dynamic-registration.js';
export * from './use-cases/exchange-code.js';
export * from './use-cases/refresh.js';
export * from './use-cases/client-credentials.js';
export * from './use-cases/revoke.js';
export * from './use-cases/introspect.js';
export * from './use-cases/sessions.js';
export * from './use-cases/interactions.js';
export { ownUserDirectory, profileOf, claimsOfProfile } from './use-cases/user-directory.js';
export * from './use-cases/userinfo.js';
export * from './use-cases/openid-request.js';
export * from './use-cases/openid-client-metadata.js';
export * from './use-cases/end-session.js';
export * from './use-cases/users.js';
export * from './use-cases/attributes.js';
export * from './use-cases/messages.js';
export * from './use-cases/authorized-apps.js';
export * from './use-cases/purge.js';
export * from './use-cases/lookups.js';
export type { TokenResponse, IdTokenRequest } from './use-cases/token-response.js';
export type { OpenIdRequest } from './use-cases/authorization-request.js';
export { createGatehouse, type Gatehouse, type GatehouseOptions, type RequestScopedGatehouse } from './gatehouse.js';
