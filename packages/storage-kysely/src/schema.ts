/**
 * The tables, as kysely sees them. Times are integer epoch milliseconds; lists and JWKs are
 * JSON text; booleans are 0/1 integers: one encoding for SQLite and PostgreSQL alike
 * (docs/decisions/0012-time-and-list-encoding.md).
 */
export interface Database {
  clients: ClientTable;
  users: UserTable;
  user_phone_numbers: UserPhoneNumberTable;
  accounts: AccountTable;
  memberships: MembershipTable;
  authorization_codes: AuthorizationCodeTable;
  grants: GrantTable;
  refresh_tokens: RefreshTokenTable;
  sessions: SessionTable;
  interactions: InteractionTable;
  consents: ConsentTable;
  attribute_names: AttributeNameTable;
  user_attribute_values: UserAttributeValueTable;
  messages: MessageTable;
  signing_keys: SigningKeyTable;
  readiness_probe: ReadinessProbeTable;
}

/** Epoch milliseconds (SQLite INTEGER, PostgreSQL int8 parsed to a number). */
export type EpochMs = number;
/** `JSON.stringify` of a list or object. */
export type JsonText = string;

export interface ClientTable {
  client_id: string;
  /** The secret's SHA-256; `''` (never a hash) for a public client, whose `clientSecretHash` is null. */
  client_secret_hash: string;
  name: string;
  redirect_uris: JsonText;
  scopes: JsonText;
  /** The client's grant types, in their usual order (migration 0004). */
  grant_types: JsonText;
  pkce_required: number;
  owner_user_key: string | null;
  created_at: EpochMs;
  /** The resources the client serves as a resource server, `[]` for none (migration 0007). */
  resource_server_for: JsonText;
  /** OpenID Connect client metadata (migration 0010): `RS256`, `ES256` or null (the default, RS256)… */
  id_token_signed_response_alg: string | null;
  /** …the post-logout redirect URIs, `[]` for none… */
  post_logout_redirect_uris: JsonText;
  /** …the default `max_age` in seconds, or null… */
  default_max_age: number | null;
  /** …and `require_auth_time`, 0/1. */
  require_auth_time: number;
  /** RFC 7591 §2 links of a client registered by the operator, a portal user or the host (migration 0013), null when absent… */
  client_uri: string | null;
  logo_uri: string | null;
  policy_uri: string | null;
  tos_uri: string | null;
  /** …and the operator's first-party mark, 0/1. */
  first_party: number;
  /** How the client came to be: `static`, `dynamic` (RFC 7591) or `metadata-document` (migration 0008). */
  registration: string;
  /** A self-registered client's details (`registrationDetails` in repositories/clients.ts); null for a static client. */
  registration_details: JsonText | null;
  /** When a code or token was first issued to a self-registered client; null while never used. */
  first_used_at: EpochMs | null;
}

export interface UserTable {
  user_key: string;
  email: string;
  /** `email.toLowerCase()`: the unique, case-insensitive look-up key. */
  email_folded: string;
  given_name: string;
  family_name: string;
  locale: string;
  password_hash: string;
  /** When the operator disabled the user; null while enabled (migration 0012). */
  disabled_at: EpochMs | null;
}

export interface UserPhoneNumberTable {
  user_key: string;
  phone_number: string;
}

export interface AccountTable {
  account_key: string;
  name: string;
}

export interface MembershipTable {
  account_key: string;
  user_key: string;
  role: string;
}

export interface AuthorizationCodeTable {
  code_hash: string;
  client_id: string;
  user_key: string;
  redirect_uri: string;
  /**
   * 1 when the authorization request sent `redirect_uri`, 0 when it was the client's only
   * registered one (migration 0016; docs/decisions/0182); 1 for the rows written before it.
   */
  redirect_uri_included: number;
  scopes: JsonText;
  /** The RFC 8707 resources requested at authorize, `[]` for none (migration 0007). */
  resources: JsonText;
  code_challenge: string | null;
  session_id: string | null;
  /** An OpenID Connect request's sign-in and nonce (`OpenIdJson`), null for an OAuth one (migration 0010). */
  openid: JsonText | null;
  created_at: EpochMs;
  expires_at: EpochMs;
  consumed_at: EpochMs | null;
  grant_id: string | null;
}

export interface GrantTable {
  grant_id: string;
  client_id: string;
  /** `''` (never a user key) for a client-credentials grant, whose `userKey` is null. */
  user_key: string;
  scopes: JsonText;
  /** The RFC 8707 resources the grant covers, `[]` for none (migration 0007). */
  resources: JsonText;
  session_id: string | null;
  /** An OpenID Connect grant's sign-in (`OpenIdJson`), null for an OAuth one (migration 0010). */
  openid: JsonText | null;
  created_at: EpochMs;
  revoked_at: EpochMs | null;
  /**
   * 1 when the grant was made with a refresh token, 0 when it can mint no access token after its
   * first (a client not registered for the refresh_token grant; migration 0018, docs/decisions/0193).
   */
  refreshable: 0 | 1;
}

export interface RefreshTokenTable {
  token_hash: string;
  grant_id: string;
  created_at: EpochMs;
  last_used_at: EpochMs;
  rotated_at: EpochMs | null;
  /** Set when a retry within the rotation grace replaced the token (migration 0006). */
  superseded_at: EpochMs | null;
}

export interface SessionTable {
  session_id: string;
  user_key: string;
  created_at: EpochMs;
  /** When the user last proved who they are; null for sessions made before migration 0006: `created_at`. */
  authenticated_at: EpochMs | null;
  /** RFC 8176 authentication methods, `[]` when not known (migration 0010). */
  amr: JsonText;
  /** The authentication context class, when known (migration 0010). */
  acr: string | null;
  expires_at: EpochMs;
  ended_at: EpochMs | null;
}

export interface InteractionTable {
  interaction_hash: string;
  kind: 'login' | 'consent' | 'reauthentication';
  return_to: string;
  user_key: string | null;
  session_id: string | null;
  created_at: EpochMs;
  expires_at: EpochMs;
  consumed_at: EpochMs | null;
}

/** One row per scope a user allowed a client (docs/decisions/0095-remembered-consent.md). */
export interface ConsentTable {
  user_key: string;
  client_id: string;
  scope: string;
  granted_at: EpochMs;
}

export interface AttributeNameTable {
  account_key: string;
  attribute_key: string;
  name: string;
  /** `name.toLowerCase()`: unique per account, so names are unique ignoring case. */
  name_folded: string;
  /** Creation order within the account (1, 2, …). */
  position: number;
}

export interface UserAttributeValueTable {
  account_key: string;
  user_key: string;
  attribute_key: string;
  value: string;
}

export interface MessageTable {
  id: string;
  owner_phone_number: string;
  contact_phone_numbers: JsonText;
  body: string;
  direction: string;
  author_user_key: string;
  sent_at: EpochMs;
  status: string;
}

export interface SigningKeyTable {
  kid: string;
  alg: string;
  public_jwk: JsonText;
  private_jwk: JsonText;
  created_at: EpochMs;
  retired_at: EpochMs | null;
}

/** The row the readiness probe writes (`Storage.checkWrites`, docs/decisions/0103-readiness-checks-writes.md). */
export interface ReadinessProbeTable {
  probe_key: string;
  written_at: EpochMs;
  /** Incompressible filler of `checkWrites({ bytes })`: a write that needs room, as after a full disk. */
  padding: string;
}
