import type {
  Account,
  AuthorizationCode,
  Client,
  Grant,
  Interaction,
  Message,
  RefreshToken,
  Session,
  SigningKey,
  User,
} from '../domain/model.js';
import type { OAuthRepositories, Repositories } from '../ports/repositories.js';
import type { ProductRepositories } from '../product/ports.js';

/**
 * The few matchers the contract uses; Vitest's and Jest's `expect` both provide them. `not` gives
 * the same matchers without a `not` of their own, as Jest's types (`@jest/globals`) have it.
 */
export interface ContractMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeUndefined(): void;
  toHaveLength(length: number): void;
  toBeInstanceOf(expected: unknown): void;
  toMatchObject(expected: object): void;
  not: Omit<ContractMatchers, 'not'>;
}

/** The test runner's API: Jest's globals, or Vitest's functions passed explicitly. */
export interface ContractRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void;
  expect(actual: unknown): ContractMatchers;
  beforeEach(body: () => Promise<void>): void;
  afterEach(body: () => Promise<void>): void;
}

/** The repositories the OAuth part of the suite tests; a storage with user tables gives the others too, which its tests seed. */
export type OAuthContractRepositories = OAuthRepositories & Partial<ProductRepositories>;
/** The repositories the product part of the suite tests; the OAuth ones, when given, are seeded (a storage may enforce references). */
export type ProductContractRepositories = ProductRepositories & Partial<OAuthRepositories>;

/** What every part of the suite gets: the runner and the repositories of the running test. */
export interface ContractContext<R = Repositories> {
  runner: ContractRunner;
  repos(): R;
}

/** A fixed instant with a millisecond part, so a store that drops milliseconds fails. */
export const T0 = 1_700_000_000_123;

/** `T0` plus some seconds (and an odd millisecond offset to catch rounding). */
export const at = (seconds: number, ms = 0): Date => new Date(T0 + seconds * 1000 + ms);

export function aUser(n: number, overrides: Partial<User> = {}): User {
  return {
    userKey: `user${n}`,
    email: `person${n}@example.com`,
    givenName: `Given${n}`,
    familyName: `Family ${n} Ünïcode`,
    locale: 'en-US',
    passwordHash: `scrypt$salt${n}$hash${n}`,
    ...overrides,
  };
}

export function aClient(id: string, overrides: Partial<Client> = {}): Client {
  return {
    clientId: id,
    clientSecretHash: `secret-hash-of-${id}`,
    name: `Client ${id}`,
    // Deliberately not sorted: order must round-trip.
    redirectUris: ['https://app.example/cb', 'http://127.0.0.1:8080/callback', 'https://app.example/a?b=c'],
    scopes: ['messaging.v1.send', 'admin.v1.attributes.write', 'messaging.v1.read'],
    grantTypes: ['authorization_code', 'refresh_token'],
    pkceRequired: false,
    ownerUserKey: null,
    createdAt: at(0, 7),
    ...overrides,
  };
}

export function anAccount(n: number): Account {
  return { accountKey: `account${n}`, name: `Account ${n}` };
}

export function aCode(codeHash: string, overrides: Partial<AuthorizationCode> = {}): AuthorizationCode {
  return {
    codeHash,
    clientId: 'clientA',
    userKey: 'user1',
    redirectUri: 'https://app.example/cb',
    scopes: ['messaging.v1.send', 'admin.v1.attributes.read'],
    codeChallenge: null,
    sessionId: null,
    createdAt: at(10, 1),
    expiresAt: at(70, 1),
    consumedAt: null,
    grantId: null,
    ...overrides,
  };
}

export function aGrant(grantId: string, overrides: Partial<Grant> = {}): Grant {
  return {
    grantId,
    clientId: 'clientA',
    userKey: 'user1',
    scopes: ['messaging.v1.send', 'admin.v1.attributes.read'],
    sessionId: null,
    createdAt: at(20, 3),
    revokedAt: null,
    ...overrides,
  };
}

/**
 * A grant made the way a code exchange makes it: saves the code `codeHash` (of the grant's client,
 * user and session), then creates `grant` from it with the refresh token `refreshTokenHash`
 * (`grants.createFromCode`), failing when the exchange did not win.
 */
export async function exchangeACode(repos: OAuthRepositories, codeHash: string, grant: Grant, refreshTokenHash = `r-${grant.grantId}`): Promise<void> {
  await repos.codes.save(aCode(codeHash, { clientId: grant.clientId, userKey: grant.userKey ?? 'user1', sessionId: grant.sessionId }));
  const exchanged = await repos.grants.createFromCode({ grant, codeHash, refreshToken: aRefreshToken(refreshTokenHash, grant.grantId) });
  if (!exchanged) throw new Error(`the code ${codeHash} was not exchanged for the grant ${grant.grantId}`);
}

export function aRefreshToken(tokenHash: string, grantId: string, overrides: Partial<RefreshToken> = {}): RefreshToken {
  return { tokenHash, grantId, createdAt: at(21, 5), lastUsedAt: at(21, 5), rotatedAt: null, supersededAt: null, ...overrides };
}

export function aSession(sessionId: string, overrides: Partial<Session> = {}): Session {
  return { sessionId, userKey: 'user1', createdAt: at(5, 9), authenticatedAt: at(5, 9), expiresAt: at(3605, 9), endedAt: null, ...overrides };
}

export function anInteraction(interactionHash: string, overrides: Partial<Interaction> = {}): Interaction {
  return {
    interactionHash,
    kind: 'login',
    returnTo: `/auth/oauth/authorize?client_id=client1&response_type=code&state=${'é'.repeat(3)}%20x`,
    userKey: null,
    sessionId: null,
    createdAt: at(7, 3),
    expiresAt: at(607, 3),
    consumedAt: null,
    ...overrides,
  };
}

export function aMessage(id: string, timestamp: Date, overrides: Partial<Message> = {}): Message {
  return {
    id,
    ownerPhoneNumber: '+15550000001',
    contactPhoneNumbers: ['+15550000009', '+15550000002', '+15550000005'],
    body: `Hello ${id} — “quoted” 🚀`,
    direction: 'OUT',
    authorUserKey: 'user1',
    timestamp,
    status: 'SENT',
    ...overrides,
  };
}

export function aSigningKey(kid: string, overrides: Partial<SigningKey> = {}): SigningKey {
  return {
    kid,
    alg: 'ES256',
    publicJwk: { kty: 'EC', crv: 'P-256', x: `x-${kid}`, y: `y-${kid}`, kid, alg: 'ES256', use: 'sig', key_ops: ['verify'] },
    privateJwk: { kty: 'EC', crv: 'P-256', x: `x-${kid}`, y: `y-${kid}`, d: `d-${kid}`, kid, alg: 'ES256', ext: true },
    createdAt: at(0, 11),
    retiredAt: null,
    ...overrides,
  };
}

/** The rejection of a promise (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

export const sorted = (values: readonly string[]): string[] => [...values].sort();

/**
 * Seeds the records most tests hang off: users 1 and 2, clients A and B, accounts 1 and 2 (those
 * of the parts the repositories have: docs/decisions/0161). Storage adapters may enforce
 * references (a grant's client must exist), so tests create them first.
 */
export async function seedBasics(repos: Partial<Repositories>): Promise<void> {
  if (repos.users) {
    await repos.users.create(aUser(1));
    await repos.users.create(aUser(2));
  }
  if (repos.clients) {
    await repos.clients.create(aClient('clientA', { ownerUserKey: 'user1' }));
    await repos.clients.create(aClient('clientB', { ownerUserKey: 'user2', createdAt: at(1, 2) }));
  }
  if (repos.accounts) {
    await repos.accounts.create(anAccount(1));
    await repos.accounts.create(anAccount(2));
  }
}
