import type { JWK } from 'jose';
import type { Client, Grant, Session } from './domain/model.js';
import type { AuditEventType } from './ports/services.js';
import type { Clock } from './ports/clock.js';
import type { GatehouseSettings } from './settings.js';
import type { AccessTokenExpectations, VerifiedAccessToken } from './tokens/access-token.js';
import type { SigningAlgorithm } from './tokens/key-ring.js';
import type { AuthorizationCheckOptions, AuthorizationRequest, AuthorizationRequestCheck, RawParameters } from './use-cases/authorize.js';
import type { AuthorizedApp } from './use-cases/authorized-apps.js';
import type { AuthorizationStep, AuthorizingUser } from './use-cases/authorization-step.js';
import type { ClientCredentialsTokenResponse } from './use-cases/client-credentials.js';
import type { ClientRegistration, ClientUpdate, ClientWithSecret } from './use-cases/clients.js';
import type { ClientPresentation } from './clients/client-presentation.js';
import type { DynamicClientRegistered } from './use-cases/dynamic-registration.js';
import type { IntrospectionResponse } from './use-cases/introspect.js';
import type { UserProfile } from './ports/users.js';
import type { ConsentRequestDetails, HostLogin, LoginRequestDetails } from './use-cases/interactions.js';
import type { UserInfo } from './use-cases/userinfo.js';
import type { EndSessionCheck } from './use-cases/end-session.js';
import type { SignedIn } from './use-cases/sessions.js';
import type { ForgottenUser } from './use-cases/forget-user.js';
import type { CodeReadAhead } from './use-cases/code-read.js';
import type { RefreshReadAhead } from './use-cases/refresh-read.js';
import type { TokenResponse } from './use-cases/token-response.js';

/**
 * The use cases bound to their ports, as one request sees them (`gatehouse.forRequest(requestId)`):
 * what an adapter, the CLI or an embedder calls: the OAuth part (docs/decisions/0161; the product
 * APIs are `ProductApi`'s). Failures are `OAuthError`s (the OAuth flows) and `DomainError`s (the
 * administration use cases).
 *
 * @example
 * const scoped: RequestScopedGatehouse = gatehouse.forRequest(res.locals.requestId);
 * const tokens = await scoped.refresh({ client, refreshToken, scope: undefined });
 */
export interface RequestScopedGatehouse {
  /** The deployment's settings (issuer, lifetimes, the scope catalogue `settings.scopes`), read-only. */
  readonly settings: Readonly<GatehouseSettings>;
  /** The source of time every use case reads (adapters use it for their own clocks, e.g. rate limits). */
  readonly clock: Clock;

  // Authorization (RFC 6749 §4.1)
  /**
   * RFC 6749 §4.1.1: checks an authorization request; an untrusted client or redirect URI is
   * `show-error`, never a redirect. `options.mayFetchClientMetadataDocument` lets the adapter
   * refuse the fetch of a new client metadata document (its rate limit per address).
   */
  checkAuthorizationRequest(params: RawParameters, options?: AuthorizationCheckOptions): Promise<AuthorizationRequestCheck>;
  /**
   * What happens next with a valid request: sign in (again, with `prompt=login`), ask for consent,
   * or a redirect to the client (a code when the consent is remembered; `prompt=none`'s errors).
   */
  nextAuthorizationStep(input: { request: AuthorizationRequest; user: AuthorizingUser | undefined; returnTo: string }): Promise<AuthorizationStep>;
  /** With `prompt=login` (or a sign-in older than `max_age`), whether the user signed in after the request asked (always true without them). */
  reauthenticated(input: { request: AuthorizationRequest; user: AuthorizingUser | undefined; returnTo: string }): Promise<boolean>;
  /**
   * `reauthenticated`, and the request's marker spent: the fresh sign-in issues one code
   * (docs/decisions/0202). Call it where a code is issued or a consent handed to the host; false
   * sends the browser back to the request, which asks for a sign-in again.
   */
  claimReauthentication(input: { request: AuthorizationRequest; user: AuthorizingUser | undefined; returnTo: string }): Promise<boolean>;
  /** The user allowed: remembers the consent, issues a code and returns the redirect to the client (with `code`, `state`, `iss`). */
  approveAuthorization(input: { request: AuthorizationRequest; userKey: string; sessionId: string | null }): Promise<{ redirectTo: string }>;
  /** The user denied: the `access_denied` redirect (RFC 6749 §4.1.2.1). */
  denyAuthorization(input: { request: AuthorizationRequest; userKey: string }): { redirectTo: string };
  /** "Cancel" on the sign-in page: `access_denied` with `state` to the request's checked redirect URI (RFC 6749 §4.1.2.1); undefined when it has none to trust. */
  cancelAuthorization(params: RawParameters): Promise<{ redirectTo: string } | undefined>;

  // Token endpoint, revocation, introspection
  /**
   * RFC 6749 §2.3.1: the client whose id and secret these are; `clientSecret: null` for a public
   * client (RFC 6749 §2.1, auth method `none`); `OAuthError('invalid_client')` otherwise.
   */
  authenticateClient(credentials: { clientId: string; clientSecret: string | null }): Promise<Client>;
  /**
   * RFC 6749 §4.1.3: exchanges a code (once; a second use revokes the grant). `redirectUri`: the
   * authorization request's, identical; required when that request sent one (docs/decisions/0182).
   * `resource` (RFC 8707 §2.2): the access token's audience, one of the resources asked for at authorize. `readAhead`:
   * the code's read started by `readCodeAhead` while the client was being authenticated.
   */
  exchangeCode(input: {
    client: Client;
    code: string;
    redirectUri: string | undefined;
    codeVerifier: string | undefined;
    resource?: string | undefined;
    readAhead?: CodeReadAhead | undefined;
  }): Promise<TokenResponse>;
  /**
   * Starts the read of a code that `exchangeCode` will be given, before its client is authenticated,
   * so that the two reads overlap (docs/decisions/0172-code-exchange-in-two-round-trips.md). Only
   * a read; never rejects unhandled.
   */
  readCodeAhead(code: string): CodeReadAhead;
  /** RFC 6749 §6: a new access token for a refresh token, optionally narrowed to fewer scopes or to one of the grant's resources (RFC 8707). */
  refresh(input: { client: Client; refreshToken: string; scope: string | undefined; resource?: string | undefined; readAhead?: RefreshReadAhead | undefined }): Promise<TokenResponse>;
  /**
   * Starts the read of a refresh token (with its grant, and Gatehouse's own owner's e-mail) that
   * `refresh` will be given, before its client is authenticated, so that the two reads overlap
   * (docs/decisions/0168-refresh-in-fewer-round-trips.md). Only a read; never rejects unhandled.
   */
  readRefreshTokenAhead(refreshToken: string): RefreshReadAhead;
  /** RFC 6749 §4.4: a token for a confidential client itself (`sub` = its id, no refresh token), optionally narrowed, optionally for a configured resource (RFC 8707). */
  clientCredentials(input: { client: Client; scope: string | undefined; resource?: string | undefined }): Promise<ClientCredentialsTokenResponse>;
  /**
   * RFC 7009: revokes the grant behind a refresh token or an access token of the client, with every
   * token issued under it: revoking either kind of token revokes the whole grant (docs/decisions/0002).
   * An empty token is `invalid_request`; unknown tokens and other clients' tokens are ignored.
   */
  revokeToken(input: { client: Client; token: string; tokenTypeHint: string | undefined }): Promise<void>;
  /**
   * RFC 7662: whether a token of the client is active, with its claims; a resource server
   * (`client.resourceServerFor`) also sees the access tokens of its resources (§2.1).
   */
  introspectToken(input: { client: Client; token: string; tokenTypeHint: string | undefined }): Promise<IntrospectionResponse>;
  /**
   * Verifies a bearer access token: signature, `typ`, `iss`, expiry, that its grant is not revoked,
   * and its `aud`: the default audience, or `expected.resource` (RFC 8707) when given.
   */
  verifyAccessToken(token: string, expected?: AccessTokenExpectations): Promise<VerifiedAccessToken>;
  /** The public signing keys (RFC 7517), retired ones included while their tokens live. */
  jwks(): Promise<{ keys: JWK[] }>;
  /**
   * Stores a new signing key, published at once; it signs from `signsFrom`, once every JWKS a
   * resource server may have cached lists it (docs/operations.md, key rotation). With OpenID
   * Connect, an RS256 key (ID tokens) is rotated with it: `keys` lists every new key, `kid` is
   * the ES256 one (access tokens).
   */
  rotateSigningKey(): Promise<{ kid: string; signsFrom: Date; keys: Array<{ kid: string; alg: SigningAlgorithm }> }>;
  /** The `kid` of the key new tokens are signed with (generated and stored on the very first call). */
  currentSigningKeyId(): Promise<string>;

  // OpenID Connect (SPEC §9; `settings.openid`)
  /**
   * OIDC Core §5.3: the claims about the user of an access token `verifyAccessToken` accepted (for
   * the default audience), by its scopes; `insufficient_scope` without `openid`.
   */
  userInfo(token: Pick<VerifiedAccessToken, 'subjectType' | 'userKey' | 'scopes'>): Promise<UserInfo>;
  /**
   * RP-Initiated Logout 1.0 §2: checks an end-session request against the browser's sign-in
   * `session`: the client, the exact post-logout redirect URI, `state`, and whether a valid
   * `id_token_hint` of this very session makes a confirmation unneeded (`confirmed`).
   */
  checkEndSessionRequest(params: RawParameters, session: Pick<Session, 'sessionId' | 'userKey'> | undefined): Promise<EndSessionCheck>;

  // Sign-in sessions
  /** Checks an e-mail and password and starts a sign-in session (rate limiting is the adapter's). */
  signIn(credentials: { email: string; password: string }): Promise<SignedIn>;
  /** The live session of a session token, with its user; undefined when it ended or never was. */
  resolveSession(sessionToken: string): Promise<{ session: Session; user: UserProfile } | undefined>;
  /** Product logout: ends the session and revokes every grant made under it (`clientId`: the relying party of an RP-initiated logout, for the audit). */
  logout(sessionToken: string, options?: { clientId?: string }): Promise<{ revokedGrantIds: string[] }>;
  /**
   * The login form signed a browser in again: ends the session of `previousToken` (the cookie it
   * held) — product logout for another user's (decision 0191), a hand-over to `next` for the same
   * user's, its live grants and unused codes moved (decision 0194).
   */
  replaceSession(previousToken: string, next: Pick<Session, 'sessionId' | 'userKey'>): Promise<{ revokedGrantIds: string[]; movedGrantIds: string[] }>;
  /** The host's sign-out: ends every session of the user and revokes the grants made under them (docs/decisions/0091). */
  logoutUser(userKey: string): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }>;
  /**
   * Forgets a user the host deleted: their sessions, grants (refresh and access tokens stop
   * working at once), codes in flight, remembered consents and login/consent requests
   * (docs/decisions/0140). The audit event is `user.forgotten`, or the type and reason `because`
   * names (the product part's `user.deleted`, docs/decisions/0161).
   */
  forgetUser(userKey: string, because?: { type: AuditEventType; reason?: string }): Promise<ForgottenUser>;
  /**
   * Ends a user's access everywhere, for the product part's decisions about a user (a password
   * change, a disabled user; docs/decisions/0161): every session ended, every unused code deleted,
   * every grant revoked (not only those made under a session, unlike `logoutUser`); one audit event
   * of the type and reason `because` names.
   */
  endUserAccess(userKey: string, because: { type: AuditEventType; reason?: string }): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }>;

  // Login and consent handed to the host application (docs/decisions/0091)
  /** A single-use, expiring login request for the host's login page; the browser comes back to `returnTo` (a path). */
  startLogin(input: { returnTo: string }): Promise<{ loginRequest: string }>;
  /**
   * What a login request asks of the host's sign-in (client, scopes, `prompt=login`, `max_age`,
   * `login_hint`, and `authenticatedAfter`: how fresh a sign-in it needs; for an OpenID Connect
   * request `ui_locales` and the user its `id_token_hint` names); undefined when the request
   * cannot be used. Does not use it.
   */
  describeLoginRequest(loginRequest: string): Promise<LoginRequestDetails | undefined>;
  /**
   * The host signed `userKey` in at `authenticatedAt` (when the user proved who they are to the
   * host; optionally how, `amr`, and at which level, `acr`, which ID tokens then say): uses the
   * login request once, opens a session, says where the browser goes next. A request that wants a
   * fresher sign-in is refused (`DomainError('unauthenticated')`, field `authenticatedAt`), the
   * login request left unused.
   */
  completeLogin(input: HostLogin): Promise<SignedIn & { redirectTo: string }>;
  /** A single-use, expiring consent request for the host's consent page. */
  startConsent(input: { returnTo: string; userKey: string; sessionId: string | null }): Promise<{ consentRequest: string }>;
  /** What the host's consent page shows (client, scopes); undefined when the request cannot be used. Does not use it. */
  describeConsentRequest(consentRequest: string): Promise<ConsentRequestDetails | undefined>;
  /** The host's consent decision: uses the consent request once; the redirect to the client (code or `access_denied`). */
  completeConsent(input: { consentRequest: string; decision: 'allow' | 'deny' }): Promise<{ redirectTo: string }>;

  // Clients (portal, CLI)
  /** Registers a client (scopes from `settings.scopes`); the secret is returned once, only its hash is stored; a public client has none (`null`). */
  registerClient(input: ClientRegistration): Promise<ClientWithSecret>;
  /** Changes a client's name, redirect URIs, scopes, grant types, PKCE, the resources it serves or its OpenID Connect metadata (each kept unless given); `ownerUserKey: null` is an operator's change. */
  updateClient(input: ClientUpdate): Promise<Client>;
  /** What the consent page shows of a client: who registered it, its links (home page, logo, privacy policy, terms), the operator's first-party mark (docs/decisions/0155). */
  presentClient(client: Client): Promise<ClientPresentation>;
  /** A new secret for a confidential client, returned once; the old one stops working at once. */
  rotateClientSecret(input: { ownerUserKey: string | null; clientId: string }): Promise<ClientWithSecret & { clientSecret: string }>;
  /** Deletes a client with its codes, grants and tokens. */
  deleteClient(input: { ownerUserKey: string | null; clientId: string }): Promise<void>;
  /** A client of `ownerUserKey`; another user's client is `DomainError('not_found')`, like an unknown one. */
  findOwnedClient(ownerUserKey: string, clientId: string): Promise<Client>;
  /** Every client, or those of one owner. */
  listClients(ownerUserKey?: string): Promise<Client[]>;
  /** The apps a user has granted access to ("Authorized apps"). */
  listAuthorizedApps(userKey: string): Promise<AuthorizedApp[]>;
  /** Withdraws the access a user gave an app: its grants are revoked and its consent forgotten. */
  revokeAuthorizedApp(input: { userKey: string; clientId: string }): Promise<{ revokedGrantIds: string[] }>;

  // Dynamic Client Registration (RFC 7591, RFC 7592; docs/decisions/0115-dynamic-client-registration.md)
  /**
   * RFC 7591 §3: registers a client from its metadata under `settings.registration` (`off`, `open`
   * with limits, or `token`); the RFC 7591 §3.2.1 answer with the secret and registration access token, shown once.
   */
  registerDynamicClient(input: { metadata: unknown; initialAccessToken: string | undefined }): Promise<DynamicClientRegistered>;
  /**
   * RFC 7592 §2.1: the registered metadata, for the holder of the registration access token (else
   * `invalid_token`), with a new `registration_access_token` that replaces it (RFC 7592 §3;
   * docs/decisions/0185-registration-access-token-rotated.md).
   */
  readDynamicClient(input: { clientId: string; registrationAccessToken: string }): Promise<Record<string, unknown>>;
  /** RFC 7592 §2.2: replaces the metadata of a dynamic client, and its registration access token with the answer's new one (docs/decisions/0185). */
  updateDynamicClient(input: { clientId: string; registrationAccessToken: string; metadata: unknown }): Promise<Record<string, unknown>>;
  /** RFC 7592 §2.3: deletes a dynamic client with its grants and tokens. */
  deleteDynamicClient(input: { clientId: string; registrationAccessToken: string }): Promise<void>;

  // The operator's command line (use-cases/operator.ts; its users are the product part's, docs/decisions/0161)
  /** A user's live sessions, newest first. */
  listUserSessions(userKey: string): Promise<Session[]>;
  /** Ends one live session and revokes its grants; `not_found` otherwise. */
  endSession(sessionId: string): Promise<{ userKey: string; revokedGrantIds: string[] }>;
  /** The live grants of a user or of a client, newest first. */
  listGrants(of: { userKey: string } | { clientId: string }): Promise<Grant[]>;
  /** Revokes one grant, a user's (for one client or all), or a client's; their tokens stop working at once. */
  revokeGrants(which: { grantId: string } | { userKey: string; clientId?: string } | { clientId: string }): Promise<{ revokedGrantIds: string[] }>;

  // Housekeeping
  /** Deletes expired codes, ended sessions, long-revoked grants, retired keys and never-used self-registered clients; counts per kind. */
  purgeExpired(): Promise<Record<string, number>>;
}

/**
 * Gatehouse: the use cases bound to their ports (see `createGatehouse`), plus `forRequest`.
 * Being an interface, it can be implemented by a fake of your own in a host's tests.
 *
 * @example
 * function ordersRouter(gatehouse: Gatehouse) {
 *   const catalogue = gatehouse.settings.scopes;
 *   // …
 * }
 */
export interface Gatehouse extends RequestScopedGatehouse {
  /**
   * The same use cases, every audit event they record carrying `requestId`, so an audit line
   * can be matched with the request that caused it (an explicit context: no async-local
   * storage, whose promise hooks slow every request down). The ports are shared.
   *
   * @example
   * await gatehouse.forRequest(requestId).exchangeCode({ client, code, redirectUri, codeVerifier });
   */
  forRequest(requestId: string): RequestScopedGatehouse;
}
