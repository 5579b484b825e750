import { tokenEndpointAuthMethod } from '../domain/grant-types.js';
import type { Client, ClientMetadata } from '../domain/model.js';
import type { ApplicationType } from '../domain/redirect-uri.js';
import { formatScope } from '../domain/scopes.js';
import { OAuthError } from '../errors.js';
import type { OpenIdClientRegistration } from '../use-cases/openid-client-metadata.js';

/**
 * The bounds of RFC 7591 metadata fields (docs/decisions/0115-dynamic-client-registration.md):
 * long enough for every real client, short enough that one registration stays small.
 */
export const METADATA_LIMITS = {
  /** Characters of a URI (`client_uri`, `logo_uri`, `policy_uri`, `tos_uri`, each redirect URI). */
  uri: 1000,
  redirectUris: 20,
  /** Entries of `grant_types` and `response_types`. */
  listEntries: 10,
  scope: 1000,
  contacts: 10,
  contact: 320,
  /** Characters of `software_id` and `software_version`. */
  software: 200,
} as const;

/** The RFC 7591 §2 metadata of a registration request or a metadata document, read but not yet judged. */
export interface RequestedClientMetadata {
  clientName: string | undefined;
  redirectUris: string[];
  grantTypes: string[] | undefined;
  responseTypes: string[] | undefined;
  tokenEndpointAuthMethod: string | undefined;
  scope: string | undefined;
  /**
   * `resource_server_for` (Gatehouse's extension, RFC 7591 §2 allows them): the configured
   * resources the client serves as a resource server (docs/decisions/0112); for a registration
   * with an initial access token only.
   */
  resourceServerFor: string[] | undefined;
  /** `application_type`, `client_uri`, `contacts`…: kept and echoed. */
  metadata: ClientMetadata;
  /**
   * OpenID Connect Dynamic Client Registration §2 and RP-Initiated Logout §3.1:
   * `id_token_signed_response_alg`, `post_logout_redirect_uris`, `default_max_age`,
   * `require_auth_time`, read but not yet judged (`openIdClientMetadata` judges them;
   * docs/decisions/0136-openid-client-metadata.md).
   */
  openid: OpenIdClientRegistration;
}

/**
 * RFC 7591 §3.2.2: a field that cannot be accepted; the description names it. A redirect URI is
 * `invalid_redirect_uri`, anything else `invalid_client_metadata`.
 *
 * @example
 * throw metadataError('scope', 'orders.v1.read is not in the catalogue.');
 */
export function metadataError(field: string, message: string): OAuthError {
  return new OAuthError(field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata', `${field}: ${message}`);
}

/**
 * Reads the RFC 7591 §2 fields Gatehouse knows from a JSON object, checking their types and sizes.
 * Unknown fields are ignored (RFC 7591 §2: "the authorization server MUST ignore any client
 * metadata sent by the client that it does not understand"). Throws `invalid_client_metadata` or
 * `invalid_redirect_uri` naming the field.
 *
 * @example
 * const requested = readClientMetadata({ client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' });
 */
export function readClientMetadata(document: unknown): RequestedClientMetadata {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new OAuthError('invalid_client_metadata', 'The client metadata must be a JSON object.');
  }
  const fields = document as Record<string, unknown>;
  const metadata: ClientMetadata = {};
  const applicationType = optionalString(fields, 'application_type', 10);
  if (applicationType !== undefined) {
    if (applicationType !== 'web' && applicationType !== 'native') throw metadataError('application_type', 'must be web or native.');
    metadata.applicationType = applicationType;
  }
  for (const [field, key] of URI_FIELDS) {
    const uri = optionalString(fields, field, METADATA_LIMITS.uri);
    if (uri === undefined) continue;
    if (!URL.canParse(uri) || !['https:', 'http:'].includes(new URL(uri).protocol)) throw metadataError(field, 'must be an absolute http or https URL.');
    metadata[key] = uri;
  }
  const contacts = optionalStrings(fields, 'contacts', METADATA_LIMITS.contacts, METADATA_LIMITS.contact);
  if (contacts !== undefined) metadata.contacts = contacts;
  const softwareId = optionalString(fields, 'software_id', METADATA_LIMITS.software);
  if (softwareId !== undefined) metadata.softwareId = softwareId;
  const softwareVersion = optionalString(fields, 'software_version', METADATA_LIMITS.software);
  if (softwareVersion !== undefined) metadata.softwareVersion = softwareVersion;
  // The name's own rule (1 to 100 characters, no control characters) is validateRegistration's.
  const clientName = optionalString(fields, 'client_name', 1000);
  const openid: OpenIdClientRegistration = {};
  const alg = optionalString(fields, 'id_token_signed_response_alg', 20);
  if (alg !== undefined) openid.idTokenSignedResponseAlg = alg;
  const postLogoutRedirectUris = optionalStrings(fields, 'post_logout_redirect_uris', METADATA_LIMITS.redirectUris, METADATA_LIMITS.uri);
  if (postLogoutRedirectUris !== undefined) openid.postLogoutRedirectUris = postLogoutRedirectUris;
  const defaultMaxAge = fields.default_max_age;
  if (defaultMaxAge !== undefined && defaultMaxAge !== null) {
    if (typeof defaultMaxAge !== 'number' || !Number.isSafeInteger(defaultMaxAge) || defaultMaxAge < 0) throw metadataError('default_max_age', 'must be a whole number of seconds.');
    openid.defaultMaxAge = defaultMaxAge;
  }
  const requireAuthTime = fields.require_auth_time;
  if (requireAuthTime !== undefined && requireAuthTime !== null) {
    if (typeof requireAuthTime !== 'boolean') throw metadataError('require_auth_time', 'must be true or false.');
    openid.requireAuthTime = requireAuthTime;
  }
  return {
    clientName,
    redirectUris: optionalStrings(fields, 'redirect_uris', METADATA_LIMITS.redirectUris, METADATA_LIMITS.uri) ?? [],
    grantTypes: optionalStrings(fields, 'grant_types', METADATA_LIMITS.listEntries, 100),
    responseTypes: optionalStrings(fields, 'response_types', METADATA_LIMITS.listEntries, 100),
    tokenEndpointAuthMethod: optionalString(fields, 'token_endpoint_auth_method', 100),
    scope: optionalString(fields, 'scope', METADATA_LIMITS.scope),
    resourceServerFor: optionalStrings(fields, 'resource_server_for', METADATA_LIMITS.listEntries, METADATA_LIMITS.uri),
    metadata,
    openid,
  };
}

/**
 * The application type of a client that did not say (OpenID Connect Dynamic Client Registration
 * §2 defaults to `web`, which would refuse the loopback redirect URIs of every agent and CLI that
 * omits it): `native` when a redirect URI is not `https`, else `web`
 * (docs/decisions/0116-native-redirect-uris.md).
 *
 * @example
 * applicationTypeOf(undefined, ['http://127.0.0.1:33418/callback']); // 'native'
 */
export function applicationTypeOf(declared: ApplicationType | undefined, redirectUris: readonly string[]): ApplicationType {
  if (declared !== undefined) return declared;
  // The scheme as a URL parser reads it: `HTTPS://` is https (RFC 3986 §3.1: schemes are case-insensitive).
  return redirectUris.every((uri) => URL.canParse(uri.trim()) && new URL(uri.trim()).protocol === 'https:') ? 'web' : 'native';
}

/**
 * RFC 7591 §3.2.1: the registered metadata of a client, as the registration endpoint answers it
 * (`client_secret`, `registration_access_token` and `registration_client_uri` are added by the caller).
 *
 * @example
 * clientInformation(client); // { client_id, client_id_issued_at, client_name, redirect_uris, grant_types, … }
 */
export function clientInformation(client: Client): Record<string, unknown> {
  const metadata = client.registration?.metadata ?? {};
  const information: Record<string, unknown> = {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    client_name: client.name,
    redirect_uris: [...client.redirectUris],
    grant_types: [...client.grantTypes],
    // RFC 7591 §2.1: the code grant goes with the code response type.
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: metadata.tokenEndpointAuthMethod ?? tokenEndpointAuthMethod(client),
    scope: formatScope(client.scopes),
  };
  if (metadata.applicationType !== undefined) information.application_type = metadata.applicationType;
  for (const [field, key] of URI_FIELDS) if (metadata[key] !== undefined) information[field] = metadata[key];
  if (metadata.contacts !== undefined) information.contacts = [...metadata.contacts];
  if (metadata.softwareId !== undefined) information.software_id = metadata.softwareId;
  if (metadata.softwareVersion !== undefined) information.software_version = metadata.softwareVersion;
  if (client.resourceServerFor !== undefined && client.resourceServerFor.length > 0) information.resource_server_for = [...client.resourceServerFor];
  // OpenID Connect Dynamic Client Registration §2 and RP-Initiated Logout §3.1 (docs/decisions/0136).
  if (client.idTokenSignedResponseAlg !== undefined) information.id_token_signed_response_alg = client.idTokenSignedResponseAlg;
  if (client.postLogoutRedirectUris !== undefined && client.postLogoutRedirectUris.length > 0) information.post_logout_redirect_uris = [...client.postLogoutRedirectUris];
  if (client.defaultMaxAge !== undefined) information.default_max_age = client.defaultMaxAge;
  if (client.requireAuthTime === true) information.require_auth_time = true;
  return information;
}

const URI_FIELDS = [
  ['client_uri', 'clientUri'],
  ['logo_uri', 'logoUri'],
  ['policy_uri', 'policyUri'],
  ['tos_uri', 'tosUri'],
] as const;

function optionalString(fields: Record<string, unknown>, field: string, maxLength: number): string | undefined {
  const value = fields[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw metadataError(field, 'must be a string.');
  if (value.length > maxLength) throw metadataError(field, `must be at most ${maxLength} characters.`);
  return value;
}

function optionalStrings(fields: Record<string, unknown>, field: string, maxEntries: number, maxLength: number): string[] | undefined {
  const value = fields[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) throw metadataError(field, 'must be an array of strings.');
  if (value.length > maxEntries) throw metadataError(field, `must have at most ${maxEntries} entries.`);
  const long = (value as string[]).find((entry) => entry.length > maxLength);
  if (long !== undefined) throw metadataError(field, `each entry must be at most ${maxLength} characters.`);
  return [...(value as string[])];
}
