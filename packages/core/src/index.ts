export { type OAuthErrorCode, OAuthError, type DomainErrorKind, DomainError, type StorageFailureReason, StorageUnavailableError } from './errors.js';
export type {
  Role,
  Account,
  User,
  Membership,
  GrantType,
  Client,
  IdTokenSigningAlgorithm,
  OpenIdAuthentication,
  ClientMetadata,
  SelfRegistration,
  ClientRegistrationKind,
  AuthorizationCode,
  Grant,
  RefreshToken,
  Consent,
  Session,
  AttributeName,
  UserAttributeValue,
  Message,
  MessageStatus,
  SigningKey,
  Interaction,
} from './domain/model.js';
export {
  DEFAULT_SCOPES,
  describeScope,
  isCataloguedScope,
  scopeCatalogueProblem,
  parseScope,
  type ScopeCatalogue,
  type ScopeDefinition,
} from './domain/scopes.js';
export {
  canonicalResourceUri,
  findResource,
  resourceCatalogueProblem,
  userMayServe,
  type ResourceCatalogue,
  type ResourceDefinition,
  type ResourceUriCheck,
} from './domain/resources.js';
export { SUPPORTED_CLAIMS, isOpenIdConnectScope } from './domain/openid-scopes.js';
export { ABSENT_REPOSITORY, isAbsentRepository } from './ports/absent-repository.js';
export { redirectUriProblem, isLoopbackHost, type ApplicationType } from './domain/redirect-uri.js';
export { GRANT_TYPES, DEFAULT_GRANT_TYPES, isGrantType, isPublicClient, tokenEndpointAuthMethod } from './domain/grant-types.js';
export { timeOrderedId } from './domain/time-ordered-id.js';
export { timeOrderedSecret, storedSecretHash } from './domain/time-ordered-secret.js';
export {
  type Clock,
  type IdGenerator,
  type ClientRepository,
  type RegistrationAccessTokenRotation,
  type UserRepository,
  type DeletedUserRecords,
  type AccountRepository,
  type AuthorizationCodeRepository,
  type GrantRepository,
  type RefreshTokenRepository,
  type SessionRepository,
  type InteractionRepository,
  type ConsentRepository,
  type CreateAttributeResult,
  type RenameAttributeResult,
  type AttributeRepository,
  type MessageRepository,
  type SigningKeyRepository,
  type OAuthRepositories,
  type ProductRepositories,
  type Repositories,
  type MessageTransport,
  type Es256Signer,
  type PasswordHasher,
  type AuditEventType,
  type AuditEvent,
  type AuditLog,
  type UserProfile,
  type UserDirectory,
  type AddressClaim,
  type StandardClaims,
  type PasswordCheck,
  type FetchedClientMetadataDocument,
  type ClientMetadataDocumentFetcher,
} from './ports/index.js';
export { defineSettings, type GatehouseSettings } from './settings.js';
export {
  isHostPattern,
  DEFAULT_UNUSED_CLIENT_TTL_SECONDS,
  type RegistrationPolicy,
  type RegistrationSettings,
  type ClientMetadataDocumentSettings,
} from './registration-settings.js';
export type { Deps } from './deps.js';
export {
  sha256,
  constantTimeEqual,
  randomAlphanumeric,
  randomIdGenerator,
  createScryptPasswordHasher,
  type ScryptParameters,
} from './crypto.js';
export { createKeyRing, type KeyRing, type SigningAlgorithm } from './tokens/key-ring.js';
export type { IdTokenClaims, IdTokenHint, IdTokenInput } from './tokens/id-token.js';
export type { AccessTokenClaims } from './tokens/access-token-claims.js';
export { type AccessTokenExpectations, type VerifiedAccessToken, type UserAccessToken, type ClientAccessToken } from './tokens/access-token.js';
export { cachedClientRepository, DEFAULT_CLIENT_CACHE, type ClientCacheOptions } from './clients/cached-client-repository.js';
export { clientInformation, type RequestedClientMetadata } from './clients/client-metadata.js';
export { clientOrigin, type ClientOrigin } from './clients/client-origin.js';
export {
  clientLinks,
  CLIENT_LINK_FIELDS,
  type ClientLinks,
  type ClientLinksRegistration,
  type ClientPresentation,
} from './clients/client-presentation.js';
export {
  isClientIdUrl,
  CLIENT_METADATA_DOCUMENT_MAX_BYTES,
  CLIENT_METADATA_DOCUMENT_TIMEOUT_MS,
  CLIENT_ID_URL_MAX_LENGTH,
  type MetadataDocumentClients,
  type ClientLookup,
} from './clients/metadata-document-clients.js';
export { type VerifiedTokenCache, type CachedClaims } from './tokens/verified-token-cache.js';
export { type RawParameters, type AuthorizationRequest, type AuthorizationRequestCheck, type AuthorizationCheckOptions } from './use-cases/authorize.js';
export { REAUTHENTICATION_PARAMETER, type AuthorizingUser, type AuthorizationStep } from './use-cases/authorization-step.js';
export { type Prompt, PROMPT_VALUES } from './use-cases/prompt.js';
export { validateRegistration, type ClientRegistration, type ClientWithSecret } from './use-cases/clients.js';
export { type DynamicClientRegistered } from './use-cases/dynamic-registration.js';
export { type ClientCredentialsTokenResponse } from './use-cases/client-credentials.js';
export { type TokenTypeHint, type FoundToken } from './use-cases/revoke.js';
export { type IntrospectionResponse } from './use-cases/introspect.js';
export { type SignedIn } from './use-cases/sessions.js';
export { type ForgottenUser } from './use-cases/forget-user.js';
export { type LoginRequestDetails, type HostLogin, type ConsentRequestDetails } from './use-cases/interactions.js';
export { ownUserDirectory, claimsOfProfile } from './use-cases/user-directory.js';
export { type UserInfo } from './use-cases/userinfo.js';
export { type OpenIdRequestCheck } from './use-cases/openid-request.js';
export {
  openIdClientMetadata,
  type OpenIdClientMetadata,
  type OpenIdClientRegistration,
  ID_TOKEN_SIGNING_ALGORITHMS,
} from './use-cases/openid-client-metadata.js';
export { isEndSessionRequest, postLogoutRedirect, type EndSessionRequest, type EndSessionCheck } from './use-cases/end-session.js';
export { type AuthorizedApp } from './use-cases/authorized-apps.js';
export type { TokenResponse, IdTokenRequest } from './use-cases/token-response.js';
export type { CodeReadAhead, CodeForExchange } from './use-cases/code-read.js';
export type { RefreshReadAhead, RefreshTokenForUse } from './use-cases/refresh-read.js';
export type { OpenIdRequest } from './use-cases/authorization-request.js';
export { createGatehouse, type Gatehouse, type GatehouseOptions, type GatehouseRepositories, type RequestScopedGatehouse } from './gatehouse.js';
// The product part (docs/decisions/0161): users, accounts, attributes, messages, with their own facade.
export { createProductApi, type ProductApiOptions } from './product/create-product-api.js';
export type { ProductApi } from './product/product-api.js';
export { cachedUserRepositories, DEFAULT_USER_CACHE, type UserCacheOptions } from './product/cached-user-repositories.js';
export { phoneNumberTaken, E164, type NewUser, type CurrentUser } from './product/users.js';
export { attributeNameKey, type AttributeScope } from './product/attributes.js';
export { type SendMessageInput } from './product/messages.js';
export { type DeletedUser } from './product/operator.js';
