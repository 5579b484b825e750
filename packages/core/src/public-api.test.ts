import { describe, expect, it } from 'vitest';
import * as core from './index.js';

// The values @gatehouse/core exports, and nothing else (issue 31 point 2; api/core.api.md lists
// their signatures): a name added here is a decision about the public surface, with its JSDoc and
// an @example. What the core's own modules share stays out of the index.
const VALUES = [
  'ABSENT_REPOSITORY',
  'attributeNameKey',
  'cachedClientRepository',
  'cachedUserRepositories',
  'canonicalResourceUri',
  'claimsOfProfile',
  'CLIENT_ID_URL_MAX_LENGTH',
  'CLIENT_LINK_FIELDS',
  'CLIENT_METADATA_DOCUMENT_MAX_BYTES',
  'CLIENT_METADATA_DOCUMENT_TIMEOUT_MS',
  'clientInformation',
  'clientLinks',
  'clientOrigin',
  'constantTimeEqual',
  'createGatehouse',
  'createKeyRing',
  'createProductApi',
  'createScryptPasswordHasher',
  'DEFAULT_CLIENT_CACHE',
  'DEFAULT_GRANT_TYPES',
  'DEFAULT_SCOPES',
  'DEFAULT_UNUSED_CLIENT_TTL_SECONDS',
  'DEFAULT_USER_CACHE',
  'defineSettings',
  'describeScope',
  'DomainError',
  'E164',
  'findResource',
  'GRANT_TYPES',
  'ID_TOKEN_SIGNING_ALGORITHMS',
  'isCataloguedScope',
  'isClientIdUrl',
  'isEndSessionRequest',
  'isGrantType',
  'isHostPattern',
  'isLoopbackHost',
  'isOpenIdConnectScope',
  'isPublicClient',
  'OAuthError',
  'openIdClientMetadata',
  'ownUserDirectory',
  'parseScope',
  'phoneNumberTaken',
  'postLogoutRedirect',
  'PROMPT_VALUES',
  'randomAlphanumeric',
  'randomIdGenerator',
  'REAUTHENTICATION_PARAMETER',
  'redirectUriProblem',
  'resourceCatalogueProblem',
  'scopeCatalogueProblem',
  'sha256',
  'StorageUnavailableError',
  'storedSecretHash',
  'SUPPORTED_CLAIMS',
  'timeOrderedId',
  'timeOrderedSecret',
  'tokenEndpointAuthMethod',
  'userMayServe',
  'validateRegistration',
];

describe('@gatehouse/core public surface', () => {
  it('exports exactly these values', () => {
    expect(Object.keys(core).sort((a, b) => a.localeCompare(b))).toEqual(VALUES);
  });
});
