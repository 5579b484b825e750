/** The records of the domain. Times are `Date`s taken from the `Clock` port. */

export type Role = 'admin' | 'member';

export interface Account {
  accountKey: string;
  name: string;
}

export interface User {
  userKey: string;
  email: string;
  givenName: string;
  familyName: string;
  locale: string;
  passwordHash: string;
  /** When the operator disabled the user, who cannot sign in since (docs/decisions/0153); absent while enabled. */
  disabledAt?: Date;
}

export interface Membership {
  account: Account;
  role: Role;
}

/** RFC 6749 grant types a client may be registered for (docs/decisions/0028-grant-types-per-client.md). */
export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

export interface Client {
  clientId: string;
  /**
   * SHA-256 of the secret (base64url); the secret itself is never stored. `null` for a public
   * client (RFC 6749 §2.1: `token_endpoint_auth_method: none`; docs/decisions/0027-public-clients.md).
   */
  clientSecretHash: string | null;
  name: string;
  /** Empty for a client without the `authorization_code` grant. */
  redirectUris: string[];
  scopes: string[];
  /** The grants the client may use at the token endpoint (and `authorization_code` at authorize). */
  grantTypes: GrantType[];
  pkceRequired: boolean;
  ownerUserKey: string | null;
  createdAt: Date;
  /**
   * The resources (configured URIs, canonical form) this client serves as a resource server: it
   * may introspect access tokens whose `aud` is one of them, whichever client they were issued to
   * (RFC 7662 §2.1; docs/decisions/0112-introspection-by-resource-servers.md). Absent or empty: none.
   */
  resourceServerFor?: string[];
  /**
   * How a client that registered itself came to be: by Dynamic Client Registration (RFC 7591) or
   * as the client of a Client ID Metadata Document. Absent for a client that an operator, a portal
   * user or the host registered (docs/decisions/0115-dynamic-client-registration.md).
   */
  registration?: SelfRegistration;
  /**
   * OpenID Connect client metadata (OIDC Dynamic Client Registration 1.0 §2; RP-Initiated Logout
   * 1.0 §3.1), all optional (docs/decisions/0136-openid-client-metadata.md):
   * the algorithm of its ID tokens (absent: RS256, OIDC Core §15.1)…
   */
  idTokenSignedResponseAlg?: IdTokenSigningAlgorithm;
  /** …where RP-initiated logout may send the browser back to (exact match; absent or empty: nowhere)… */
  postLogoutRedirectUris?: string[];
  /** …the `max_age` of its OpenID requests that send none (seconds)… */
  defaultMaxAge?: number;
  /** …and whether its ID tokens must carry `auth_time` (Gatehouse's always do). */
  requireAuthTime?: boolean;
  /**
   * What the consent page shows of a client an operator, a portal user or the host registered
   * (RFC 7591 §2 `client_uri`, `logo_uri`, `policy_uri`, `tos_uri`; a self-registered client keeps
   * them in `registration.metadata`; docs/decisions/0155-who-is-asking-on-the-consent-page.md):
   * its home page…
   */
  clientUri?: string;
  /** …its logo (`https` only)… */
  logoUri?: string;
  /** …its privacy policy… */
  policyUri?: string;
  /** …and its terms of service. */
  tosUri?: string;
  /** A first-party app the operator vouches for, marked so on the consent page; set by the operator only (CLI), never by the portal or by the client itself. */
  firstParty?: boolean;
}

/** The algorithms an ID token may be signed with (OIDC Core §15.1: RS256 by default). */
export type IdTokenSigningAlgorithm = 'RS256' | 'ES256';

/**
 * How the user proved who they are, as an ID token says it (OIDC Core §2): when (`auth_time`), by
 * which methods (`amr`, RFC 8176 values) and at which level (`acr`), the last two when known.
 */
export interface OpenIdAuthentication {
  authTime: Date;
  amr?: string[];
  acr?: string;
}

/** RFC 7591 §2 metadata kept for a self-registered client beyond what every client has. */
export interface ClientMetadata {
  /** OpenID Connect Dynamic Client Registration §2: `web` (https redirect URIs) or `native` (RFC 8252). */
  applicationType?: 'web' | 'native';
  /** RFC 7591 §2: `client_secret_post` is remembered to be echoed; Gatehouse accepts both secret methods. */
  tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post';
  clientUri?: string;
  logoUri?: string;
  policyUri?: string;
  tosUri?: string;
  contacts?: string[];
  softwareId?: string;
  softwareVersion?: string;
}

/** What a self-registered client carries besides the client itself (docs/decisions/0115, 0117). */
export type SelfRegistration =
  | {
      /** RFC 7591: the client registered itself at the registration endpoint. */
      kind: 'dynamic';
      /** RFC 7592 §1: SHA-256 of the registration access token (base64url); the token itself is never stored. */
      registrationAccessTokenHash: string;
      /**
       * The token the current one replaced (its SHA-256) and when: every successful read and update
       * issues a new token (RFC 7592 §2.1, §2.2), and the one it replaced still counts for a short
       * grace, a retry after a lost answer (docs/decisions/0185-registration-access-token-rotated.md).
       * Absent until the first read or update.
       */
      previousRegistrationAccessToken?: { hash: string; replacedAt: Date };
      /** True when it registered without an initial access token, under the limits of open registration. */
      anonymous: boolean;
      metadata: ClientMetadata;
      /** When a code or token was first issued to it; `null` while never used (unused ones are purged). */
      firstUsedAt: Date | null;
    }
  | {
      /** Client ID Metadata Document: the client id is the https URL of its metadata, fetched by Gatehouse. */
      kind: 'metadata-document';
      /** SHA-256 (base64url) of the document as last fetched: a changed document forgets remembered consent. */
      documentHash: string;
      /** Until when the document may be used without fetching it again (its HTTP caching, within bounds). */
      documentExpiresAt: Date;
      metadata: ClientMetadata;
      firstUsedAt: Date | null;
    };

/** How a client came to be, as `clients list` and the portal show it. */
export type ClientRegistrationKind = 'static' | SelfRegistration['kind'];

export interface AuthorizationCode {
  /** SHA-256 of the code (base64url). */
  codeHash: string;
  clientId: string;
  userKey: string;
  /** The redirect URI of the authorization request: the one it sent, or the client's only registered one. */
  redirectUri: string;
  /**
   * False when the authorization request sent no `redirect_uri` (the client's only registered one
   * was used, RFC 6749 §3.1.2.3): the token request may then omit it (RFC 6749 §4.1.3;
   * docs/decisions/0182-redirect-uri-at-the-token-endpoint.md). Absent means true: the token
   * request must repeat it, identical.
   */
  redirectUriIncluded?: boolean;
  scopes: string[];
  /**
   * The resources requested at authorize (RFC 8707 §2.1, canonical form): the tokens of the code's
   * grant may be for one of them. Absent or empty: none requested (tokens for the default audience).
   */
  resources?: string[];
  codeChallenge: string | null;
  sessionId: string | null;
  /**
   * Present for an OpenID Connect request (`openid` among the scopes): the sign-in its ID token
   * describes, and the request's `nonce` (OIDC Core §3.1.2.1), echoed in the ID token.
   */
  openid?: OpenIdAuthentication & { nonce?: string };
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
  /** The grant created by the exchange that consumed the code. */
  grantId: string | null;
}

export interface Grant {
  grantId: string;
  clientId: string;
  /**
   * The user who granted access; `null` for a client-credentials grant, where the client acts for
   * itself (RFC 6749 §4.4; docs/decisions/0029-client-credentials-grants.md).
   */
  userKey: string | null;
  scopes: string[];
  /**
   * The resources the grant's access tokens may be for (RFC 8707; canonical form): those of its
   * code, or the one of a client-credentials request. Absent or empty: the default audience only.
   */
  resources?: string[];
  /** Sign-in session the grant was made under; product logout revokes it. */
  sessionId: string | null;
  /**
   * Present for a grant made by an OpenID Connect request: the sign-in its ID tokens describe,
   * those of a refresh included (OIDC Core §12.2: the `auth_time` of the original sign-in).
   */
  openid?: OpenIdAuthentication;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface RefreshToken {
  /** SHA-256 of the token (base64url). */
  tokenHash: string;
  grantId: string;
  createdAt: Date;
  lastUsedAt: Date;
  /** Set when the token was exchanged under rotation. */
  rotatedAt: Date | null;
  /**
   * Set when a retry of an older token of the grant, within the rotation grace, replaced this one
   * (RFC 9700 §4.14.2): a superseded token is never accepted again, and presenting it revokes the
   * grant (docs/decisions/0106-one-live-refresh-token-under-rotation.md).
   */
  supersededAt: Date | null;
}

/**
 * What a user allowed a client, remembered so that a later request for the same or fewer scopes
 * does not ask again (docs/decisions/0095-remembered-consent.md). Scopes allowed later are added.
 */
export interface Consent {
  userKey: string;
  clientId: string;
  /** Every scope the user allowed the client for its default audience (a request without `resource`), sorted. */
  scopes: string[];
  /**
   * RFC 8707: the scopes the user allowed the client at each resource the consent page named
   * (canonical resource → scopes, sorted), for requests that name resources: a consent to one
   * MCP server is not one to another (docs/decisions/0200-consent-remembered-per-resource.md).
   * Absent when there is none; a store that keeps none asks again for every such request.
   */
  resourceScopes?: Record<string, string[]>;
  /** When the user last allowed the client something. */
  grantedAt: Date;
}

export interface Session {
  /** Opaque id of the sign-in session (a random value the cookie carries is hashed into it). */
  sessionId: string;
  userKey: string;
  createdAt: Date;
  /**
   * When the user last proved who they are: the password sign-in that opened the session, or the
   * host's own sign-in (`completeLogin`'s `authenticatedAt`), which may be older than the session
   * (docs/decisions/0107-fresh-sign-in-through-the-host.md). `prompt=login` and `max_age` read it.
   */
  authenticatedAt: Date;
  /** How the user authenticated (RFC 8176 `amr` values): `pwd` on Gatehouse's login page, what the host says otherwise. Absent: not known. */
  amr?: string[];
  /** The authentication context class the host says the sign-in meets (OIDC Core §2 `acr`); absent: not known. */
  acr?: string;
  expiresAt: Date;
  endedAt: Date | null;
}

export interface AttributeName {
  key: string;
  name: string;
}

export interface UserAttributeValue {
  key: string;
  name: string;
  value: string;
}

export interface Message {
  id: string;
  ownerPhoneNumber: string;
  contactPhoneNumbers: string[];
  body: string;
  direction: 'OUT';
  authorUserKey: string;
  timestamp: Date;
  status: MessageStatus;
}

export type MessageStatus = 'QUEUED' | 'SENT' | 'FAILED';

export interface SigningKey {
  kid: string;
  /** ES256 (P-256: access tokens, and ID tokens of clients that ask for it) or RS256 (RSA: ID tokens; docs/decisions/0131). */
  alg: 'ES256' | 'RS256';
  /** Public JWK (no private members). */
  publicJwk: Record<string, unknown>;
  /** Private JWK. An adapter may encrypt it at rest. */
  privateJwk: Record<string, unknown>;
  createdAt: Date;
  /** When it stopped signing; it stays published until its last token expires. */
  retiredAt: Date | null;
}

/**
 * A step of the authorization flow handed to the host application (docs/decisions/0091): a login
 * request (the host signs the user in) or a consent request (the host asks for consent); or the
 * marker of a `prompt=login` request, which a sign-in newer than it satisfies
 * (docs/decisions/0096-prompt-login-marker.md). The browser carries an opaque random id; only its
 * hash is stored. Login and consent requests are single use; all are short-lived.
 */
export interface Interaction {
  /** SHA-256 of the id (base64url). */
  interactionHash: string;
  kind: 'login' | 'consent' | 'reauthentication';
  /** The authorization request it belongs to: the authorize path and query, under Gatehouse's mount path. */
  returnTo: string;
  /** Consent: the signed-in user asked; login: null. */
  userKey: string | null;
  /** Consent: the sign-in session the code will be bound to; login: null. */
  sessionId: string | null;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
}
