import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Client, Role, User } from '../domain/model.js';
import { isPublicClient } from '../domain/grant-types.js';
import { createGatehouse, type Gatehouse } from '../gatehouse.js';
import { createProductApi } from '../product/create-product-api.js';
import type { ProductApi } from '../product/product-api.js';
import type { Repositories } from '../ports/repositories.js';
import type { PasswordCheck, UserDirectory, UserProfile } from '../ports/users.js';
import type { Es256Signer, PasswordHasher } from '../ports/services.js';
import type { ClientMetadataDocumentFetcher } from '../ports/client-metadata-documents.js';
import { defineSettings, type GatehouseSettings } from '../settings.js';
import type { TokenResponse } from '../use-cases/token-response.js';
import { accessTokenHash, type IdTokenClaims } from '../tokens/id-token.js';
import { createControllableClock, type ControllableClock } from './clock.js';
import { createFastPasswordHasher, createRecordingAuditLog, createRecordingTransport, createSequentialIds, type RecordingAuditLog, type RecordingTransport } from './doubles.js';
import { createMemoryRepositories } from './memory-repositories.js';

/** What `authorize` and `obtainTokens` take: whose code, for which client, asking what. */
export interface TestAuthorizationInput {
  client: Client;
  /** The user who approves: only the key counts, so a `userDirectory` profile fits as it is. */
  user: Pick<User, 'userKey'>;
  scope?: string;
  sessionId?: string | null;
  /** RFC 8707, one or several, sent at authorize. */
  resource?: string | string[];
  nonce?: string;
  /**
   * The PKCE verifier (RFC 7636) whose S256 challenge is sent. Default: a challenge is sent only for a
   * client that requires PKCE or is public, of a verifier the kit makes (`test-code-verifier-…`, 43 characters).
   */
  codeVerifier?: string;
}

/** A code issued by `authorize`, not exchanged yet. */
export interface TestAuthorizationCode {
  code: string;
  /** The redirect URI it was issued for: the client's first; `exchangeCode`'s `redirectUri`. */
  redirectUri: string;
  /** The PKCE verifier to send at the exchange, when a challenge was sent. */
  codeVerifier?: string;
}

export interface TestGatehouse {
  gatehouse: Gatehouse;
  /** The product APIs beside it (users, accounts, attributes, messages; docs/decisions/0161), on the same repositories, hasher, audit and transport. */
  product: ProductApi;
  repositories: Repositories;
  clock: ControllableClock;
  audit: RecordingAuditLog;
  transport: RecordingTransport;
  settings: GatehouseSettings;
  /**
   * A user with a password (`password123` unless given; e-mail `user<n>@example.com`, names `Test`
   * `User<n>` unless given), optionally in an account with a role and with a phone number.
   *
   * With a `userDirectory` (docs/decisions/0091) Gatehouse finds users there, not among its own: a
   * directory of `createMemoryUserDirectory` gets the new user's profile (key, e-mail, names) added
   * too, so tokens and sessions find it (Gatehouse's login page still checks passwords only with the
   * `passwordCheck` given); any other directory makes `seedUser` throw, since the user would be one
   * the directory never sees: add the user to your directory and pass `{ userKey }` as the `user`.
   */
  seedUser(input?: Partial<Pick<User, 'email' | 'givenName' | 'familyName'>> & { password?: string; accountKey?: string; role?: Role; phone?: string }): Promise<User>;
  seedAccount(name?: string): Promise<{ accountKey: string; name: string }>;
  /** A confidential client (a public one: `gatehouse.registerClient({ …, public: true })`). */
  seedClient(
    input?: Partial<Pick<Client, 'name' | 'redirectUris' | 'scopes' | 'pkceRequired' | 'ownerUserKey' | 'grantTypes' | 'resourceServerFor' | 'idTokenSignedResponseAlg' | 'postLogoutRedirectUris' | 'defaultMaxAge' | 'requireAuthTime'>>,
  ): Promise<{ client: Client; clientSecret: string }>;
  /**
   * Runs authorize → consent (Allow) for a user and stops before the exchange: returns the code, the
   * redirect URI and the PKCE verifier (sent for a client that requires PKCE or is public, or when
   * `codeVerifier` is given), for a test of the exchange itself (a code that expired, a replay).
   *
   * @example
   * const { code, redirectUri, codeVerifier } = await t.authorize({ client, user });
   * t.clock.advance(61); // past the code's lifetime (60 seconds by default)
   * await t.gatehouse.exchangeCode({ client, code, redirectUri, codeVerifier }); // rejects: invalid_grant
   */
  authorize(input: TestAuthorizationInput): Promise<TestAuthorizationCode>;
  /**
   * Runs authorize → consent → code exchange for a user (`authorize`, then `exchangeCode` with its
   * verifier) and returns the token response. `resource` (RFC 8707, one or several) is sent at
   * authorize; the exchange names none, so a single resource is the token's audience.
   */
  obtainTokens(input: TestAuthorizationInput): Promise<TokenResponse>;
  /**
   * The flow of a login handed to the host application (docs/decisions/0091): authorize →
   * `startLogin` → the host's `completeLogin` for `userKey`, who signed in to the host at
   * `authenticatedAt` (default: the clock's now) → consent (Allow) under the new session → code
   * exchange, with PKCE for a client that requires it or is public. Returns the tokens and the sign-in session token.
   */
  obtainTokensViaHostLogin(input: { client: Client; userKey: string; scope?: string; authenticatedAt?: Date; nonce?: string; amr?: string[] }): Promise<{ tokens: TokenResponse; sessionToken: string }>;
  /**
   * Checks an ID token as a relying party would (OIDC Core §3.1.3.7): signed by a key of the
   * gatehouse's JWKS with the client's algorithm (RS256 unless it asked for ES256), `iss` the
   * issuer, `aud` the client, not expired by the test clock, `nonce` the one sent (none when none
   * was), `at_hash` that of `accessToken` when given. Returns its claims; throws otherwise.
   *
   * @example
   * const tokens = await t.obtainTokens({ client, user, scope: 'openid email', nonce: 'n-1' });
   * const claims = await t.checkIdToken(tokens.id_token, { client, nonce: 'n-1', accessToken: tokens.access_token });
   * claims.sub; // user.userKey
   */
  checkIdToken(idToken: string | undefined, expected: { client: Client; nonce?: string; accessToken?: string }): Promise<IdTokenClaims>;
}

/** A `UserDirectory` in memory, for an embedder's tests of "bring your own users". */
export interface MemoryUserDirectory extends UserDirectory {
  /** Adds (or replaces) a user. */
  add(user: UserProfile): void;
  /** Forgets a user (the host deleted it). */
  remove(userKey: string): void;
}

/** The directories `createMemoryUserDirectory` made: `seedUser` adds its users to these. */
const memoryUserDirectories = new WeakSet<UserDirectory>();

function isMemoryUserDirectory(directory: UserDirectory): directory is MemoryUserDirectory {
  return memoryUserDirectories.has(directory);
}

/**
 * A `UserDirectory` over a list of users; logins (the `email` field) compare ignoring case.
 *
 * @example
 * const users = createMemoryUserDirectory([{ userKey: 'u-1', email: 'ada@orders.example', givenName: 'Ada', familyName: 'Lovelace' }]);
 * const t = await createTestGatehouse({ userDirectory: users });
 */
export function createMemoryUserDirectory(initial: readonly UserProfile[] = []): MemoryUserDirectory {
  const users = new Map<string, UserProfile>(initial.map((user) => [user.userKey, { ...user }]));
  const directory: MemoryUserDirectory = {
    add: (user) => void users.set(user.userKey, { ...user }),
    remove: (userKey) => void users.delete(userKey),
    findByKey: async (userKey) => {
      const user = users.get(userKey);
      return user && { ...user };
    },
    findByLogin: async (login) => {
      const user = [...users.values()].find((candidate) => candidate.email.toLowerCase() === login.toLowerCase());
      return user && { ...user };
    },
  };
  memoryUserDirectories.add(directory);
  return directory;
}

/**
 * A Gatehouse on in-memory repositories with a controllable clock: the quickest way to test
 * your token and attribute rules.
 *
 * @example
 * const t = await createTestGatehouse();
 * const user = await t.seedUser();
 * const { client } = await t.seedClient();
 * const tokens = await t.obtainTokens({ client, user });
 * t.clock.advance(3601); // the access token has expired now
 */
export async function createTestGatehouse(
  options: {
    repositories?: Repositories;
    settings?: Omit<Parameters<typeof defineSettings>[0], 'issuer'> & { issuer?: string };
    /** The host's users (`createMemoryUserDirectory`); default: Gatehouse's own users. */
    userDirectory?: UserDirectory;
    /** The host's password check for Gatehouse's login page. */
    passwordCheck?: PasswordCheck;
    /** The password hasher (default: `createFastPasswordHasher()`). */
    passwords?: PasswordHasher;
    /** Where access tokens are signed (default: on the calling thread). */
    signer?: Es256Signer;
    /** Fetches Client ID Metadata Documents (a fake of your own), for `settings.clientMetadataDocuments`. */
    clientMetadataDocumentFetcher?: ClientMetadataDocumentFetcher;
  } = {},
): Promise<TestGatehouse> {
  const repositories = options.repositories ?? createMemoryRepositories();
  const clock = createControllableClock();
  const audit = createRecordingAuditLog();
  const transport = createRecordingTransport();
  const settings = defineSettings({ issuer: 'http://localhost:3000', ...options.settings });
  const ids = createSequentialIds(`t${Math.floor(clock.now().getTime() % 1000)}x`);
  const passwords = options.passwords ?? createFastPasswordHasher();
  const gatehouse = createGatehouse({
    repositories,
    settings,
    clock,
    audit,
    ids,
    passwords,
    ...(options.userDirectory === undefined ? {} : { userDirectory: options.userDirectory }),
    ...(options.passwordCheck === undefined ? {} : { passwordCheck: options.passwordCheck }),
    ...(options.signer === undefined ? {} : { signer: options.signer }),
    ...(options.clientMetadataDocumentFetcher === undefined ? {} : { clientMetadataDocumentFetcher: options.clientMetadataDocumentFetcher }),
  });
  const product = createProductApi({ gatehouse, repositories, ids, passwords, transport, audit });
  let users = 0;
  let verifiers = 0;
  /** The PKCE parameters of an authorization request: none unless asked for or the client needs them. */
  const pkceFor = (client: Client, codeVerifier: string | undefined): { codeVerifier?: string; params: Record<string, string> } => {
    if (codeVerifier === undefined && !client.pkceRequired && !isPublicClient(client)) return { params: {} };
    const verifier = codeVerifier ?? `test-code-verifier-${String((verifiers += 1)).padStart(24, '0')}`;
    return { codeVerifier: verifier, params: { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' } };
  };

  const t: TestGatehouse = {
    gatehouse,
    product,
    repositories,
    clock,
    audit,
    transport,
    settings,
    async seedUser(input = {}) {
      const directory = options.userDirectory;
      if (directory !== undefined && !isMemoryUserDirectory(directory)) {
        throw new Error(
          'seedUser cannot add a user to the userDirectory given to createTestGatehouse: Gatehouse finds users only there, so the user would never sign in or get tokens. ' +
            'Add the user to your directory instead and pass { userKey } as the user (obtainTokens({ client, user: { userKey } })), or use createMemoryUserDirectory, to which seedUser adds its users.',
        );
      }
      users += 1;
      const user = await product.createUser({
        email: input.email ?? `user${users}@example.com`,
        password: input.password ?? 'password123',
        givenName: input.givenName ?? 'Test',
        familyName: input.familyName ?? `User${users}`,
      });
      if (input.accountKey) await product.setMembership({ accountKey: input.accountKey, userKey: user.userKey, role: input.role ?? 'member' });
      if (input.phone) await product.addPhoneNumber({ userKey: user.userKey, phoneNumber: input.phone });
      directory?.add({ userKey: user.userKey, email: user.email, givenName: user.givenName, familyName: user.familyName });
      return user;
    },
    seedAccount: (name = 'Test account') => product.createAccount({ name }),
    async seedClient(input = {}) {
      const { client, clientSecret } = await gatehouse.registerClient({
        name: input.name ?? 'Test client',
        redirectUris: input.redirectUris ?? ['https://client.example/callback'],
        scopes: input.scopes ?? settings.scopes.map((entry) => entry.scope),
        pkceRequired: input.pkceRequired ?? false,
        ownerUserKey: input.ownerUserKey ?? null,
        ...(input.grantTypes === undefined ? {} : { grantTypes: input.grantTypes }),
        ...(input.resourceServerFor === undefined ? {} : { resourceServerFor: input.resourceServerFor }),
        idTokenSignedResponseAlg: input.idTokenSignedResponseAlg,
        postLogoutRedirectUris: input.postLogoutRedirectUris,
        defaultMaxAge: input.defaultMaxAge,
        requireAuthTime: input.requireAuthTime,
      });
      if (clientSecret === null) throw new Error('a confidential client has a secret');
      return { client, clientSecret };
    },
    async authorize({ client, user, scope, sessionId = null, resource, nonce, codeVerifier }) {
      const pkce = pkceFor(client, codeVerifier);
      const check = await gatehouse.checkAuthorizationRequest({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: client.redirectUris[0],
        ...(scope === undefined ? {} : { scope }),
        ...(resource === undefined ? {} : { resource }),
        ...(nonce === undefined ? {} : { nonce }),
        ...pkce.params,
      });
      if (check.kind !== 'valid') throw check.error;
      const { redirectTo } = await gatehouse.approveAuthorization({ request: check.request, userKey: user.userKey, sessionId });
      const code = new URL(redirectTo).searchParams.get('code') as string;
      return { code, redirectUri: check.request.redirectUri, ...(pkce.codeVerifier === undefined ? {} : { codeVerifier: pkce.codeVerifier }) };
    },
    async obtainTokens(input) {
      const { code, redirectUri, codeVerifier } = await t.authorize(input);
      return gatehouse.exchangeCode({ client: input.client, code, redirectUri, codeVerifier });
    },
    async obtainTokensViaHostLogin({ client, userKey, scope, authenticatedAt = gatehouse.clock.now(), nonce, amr }) {
      const pkce = pkceFor(client, undefined);
      const query = new URLSearchParams({
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: client.redirectUris[0] as string,
        ...(scope === undefined ? {} : { scope }),
        ...(nonce === undefined ? {} : { nonce }),
        ...pkce.params,
      });
      // The authorize endpoint is under the issuer's path, where the router is mounted (docs/decisions/0090).
      const authorizePath = `${new URL(settings.issuer).pathname.replace(/\/+$/, '')}/oauth/authorize`;
      const { loginRequest } = await gatehouse.startLogin({ returnTo: `${authorizePath}?${query.toString()}` });
      const { sessionToken, session, redirectTo } = await gatehouse.completeLogin({ loginRequest, userKey, authenticatedAt, ...(amr === undefined ? {} : { amr }) });
      const check = await gatehouse.checkAuthorizationRequest(Object.fromEntries(new URL(redirectTo, settings.issuer).searchParams));
      if (check.kind !== 'valid') throw check.error;
      const approved = await gatehouse.approveAuthorization({ request: check.request, userKey, sessionId: session.sessionId });
      const code = new URL(approved.redirectTo).searchParams.get('code') as string;
      const tokens = await gatehouse.exchangeCode({ client, code, redirectUri: check.request.redirectUri, codeVerifier: pkce.codeVerifier });
      return { tokens, sessionToken };
    },
    async checkIdToken(idToken, expected) {
      if (idToken === undefined) throw new Error('The token response has no id_token.');
      const { payload } = await jwtVerify(idToken, createLocalJWKSet(await gatehouse.jwks()), {
        algorithms: [expected.client.idTokenSignedResponseAlg ?? 'RS256'],
        issuer: settings.issuer,
        audience: expected.client.clientId,
        currentDate: clock.now(),
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'at_hash'],
      });
      const claims = payload as unknown as IdTokenClaims;
      if (claims.nonce !== expected.nonce) throw new Error(`The ID token's nonce is ${JSON.stringify(claims.nonce)}, not ${JSON.stringify(expected.nonce)}.`);
      if (expected.accessToken !== undefined && claims.at_hash !== accessTokenHash(expected.accessToken)) throw new Error("The ID token's at_hash is not the access token's.");
      return claims;
    },
  };
  return t;
}

/** RFC 7636 §4.2: the S256 challenge of a verifier. */
export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
