import type { AuthorizationCode, Client, ClientMetadata, Consent, Grant, Interaction, RefreshToken, Session, SigningKey } from '../domain/model.js';
import type { ProductRepositories } from '../product/ports.js';

/** What `ClientRepository.update` changes. */
export type ClientChanges = Pick<Client, 'name' | 'redirectUris' | 'scopes' | 'grantTypes' | 'pkceRequired' | 'resourceServerFor'> &
  Partial<Pick<Client, 'idTokenSignedResponseAlg' | 'postLogoutRedirectUris' | 'defaultMaxAge' | 'requireAuthTime' | 'clientUri' | 'logoUri' | 'policyUri' | 'tosUri' | 'firstParty'>>;

/** What `ClientRepository.rotateRegistrationAccessToken` writes (docs/decisions/0185-registration-access-token-rotated.md). */
export interface RegistrationAccessTokenRotation {
  clientId: string;
  /** The hash of the client's registration access token as the caller read it: the write happens only while it still is. */
  currentHash: string;
  /** The hash of the new token, which becomes the client's. */
  nextHash: string;
  /** The token that still counts for a retry's grace, and since when (`SelfRegistration.previousRegistrationAccessToken`). */
  previous: { hash: string; replacedAt: Date };
  /**
   * An RFC 7592 §2.2 update, in the same write: the client's fields as `update` changes them, and
   * the registration's new metadata (its other details are kept).
   */
  changes?: ClientChanges & { metadata: ClientMetadata };
  /**
   * With an update's `changes`: every user's remembered consent to the client is deleted in the
   * same write, so that the next authorization asks again — the update changed what the consent
   * page showed or where codes go (docs/decisions/0195-client-updates-forget-remembered-consent.md).
   * Nothing is deleted when the write does not happen.
   */
  forgetConsents?: boolean;
}

export interface ClientRepository {
  /** Stores a new client, its `registration` (if any) included; a taken id is a `DomainError('conflict')`. */
  create(client: Client): Promise<void>;
  /**
   * The client, or undefined. With `fresh`, the caller needs it as stored now: a cache in front of
   * the repository (`cachedClientRepository`) reads through (RFC 7592 management, whose token
   * another instance may have replaced a moment ago; docs/decisions/0185). A repository that
   * keeps no copy ignores it.
   */
  findById(clientId: string, options?: { fresh?: boolean }): Promise<Client | undefined>;
  /**
   * Returns false when there is no such client. `resourceServerFor` is changed only when given.
   * A self-registered client's registration is never changed here: its RFC 7592 update goes
   * through `rotateRegistrationAccessToken`, conditional on its token. Each OpenID Connect field (`idTokenSignedResponseAlg`,
   * `postLogoutRedirectUris`, `defaultMaxAge`, `requireAuthTime`) is changed only when its key is
   * given; present with `undefined`, `[]` or `false`, it is removed. So is each link (`clientUri`,
   * `logoUri`, `policyUri`, `tosUri`) and `firstParty` (docs/decisions/0155). With
   * `forgetConsents`, every user's remembered consent to the client is deleted in the same write
   * (an edit in the portal or the CLI that changed what the consent page showed or where codes go;
   * docs/decisions/0195-client-updates-forget-remembered-consent.md); nothing is deleted when there
   * is no such client.
   */
  update(clientId: string, changes: ClientChanges, options?: { forgetConsents?: boolean }): Promise<boolean>;
  /**
   * RFC 7592 §2.1, §2.2: replaces a dynamic client's registration access token, in one conditional
   * write (compare-and-set): only while its token's hash is still `currentHash`, it becomes
   * `nextHash`, `previous` is kept beside it, and an update's `changes` are made in the same write
   * (with `forgetConsents`, the client's remembered consents deleted in it too).
   * Of concurrent calls with the same `currentHash`, exactly one wins; false, with nothing written,
   * for every other, and for an unknown client or one that did not register itself by RFC 7591
   * (docs/decisions/0185-registration-access-token-rotated.md).
   */
  rotateRegistrationAccessToken(rotation: RegistrationAccessTokenRotation): Promise<boolean>;
  updateSecretHash(clientId: string, clientSecretHash: string): Promise<boolean>;
  /** Deletes the client with its codes, grants, refresh tokens and remembered consents. */
  delete(clientId: string): Promise<boolean>;
  listByOwner(ownerUserKey: string): Promise<Client[]>;
  listAll(): Promise<Client[]>;
  /**
   * Stores the client a Client ID Metadata Document describes (`registration.kind`
   * `metadata-document`), in one transaction: created when new; otherwise its name, redirect URIs,
   * scopes, grant types and registration replaced, its `createdAt` and `firstUsedAt` kept. When the
   * stored document hash differs, the client's remembered consents are deleted with it: a changed
   * document is asked about again (docs/decisions/0117-client-id-metadata-documents.md). Never
   * touches a client of another kind (`'other-client'`).
   */
  saveMetadataDocumentClient(client: Client): Promise<'created' | 'refreshed' | 'changed' | 'other-client'>;
  /**
   * Marks a self-registered client used at `at` (a code or token was issued to it), only if it
   * was not marked before: one conditional write.
   */
  markUsed(clientId: string, at: Date): Promise<void>;
  /** Deletes the self-registered clients created before `createdBefore` and never used; returns how many. */
  purgeUnused(createdBefore: Date): Promise<number>;
}

export interface AuthorizationCodeRepository {
  save(code: AuthorizationCode): Promise<void>;
  findByHash(codeHash: string): Promise<AuthorizationCode | undefined>;
  /**
   * The code and the e-mail of its owner among Gatehouse's own users (`undefined` when that user is
   * gone), in one read: what a code exchange needs before its write when there is no host
   * `userDirectory` (docs/decisions/0172-code-exchange-in-two-round-trips.md). Optional: without it,
   * or with a host directory, the exchange reads the code, then the owner.
   */
  findByHashWithOwnerEmail?(codeHash: string): Promise<{ code: AuthorizationCode; ownerEmail: string | undefined } | undefined>;
  /**
   * Deletes the user's unused codes (of `clientId`, or of every client) in one write, returning how
   * many: a code in flight when the user revokes an app, changes their password or is signed out
   * by the host then changes no row at its exchange, whose own conditional write
   * (`grants.createFromCode`) refuses it (docs/decisions/0105-withdrawn-access-stops-codes-in-flight.md).
   * Consumed codes stay (they detect a late replay while their grant lives).
   */
  deleteUnused(userKey: string, clientId?: string): Promise<number>;
  /** Deletes unused codes that expired before `expiredBefore`, and consumed codes whose grant no longer exists. */
  purge(expiredBefore: Date): Promise<number>;
}

export interface GrantRepository {
  /** Stores a grant that comes from no code: a client-credentials grant (no user). */
  create(grant: Grant): Promise<void>;
  /**
   * The writes of a successful code exchange, all or nothing, in one transaction (one commit):
   * creates `grant`, consumes the code `codeHash` by it only if the code is not consumed yet
   * (RFC 6749 §4.1.2: a code is used once; one conditional write, at `grant.createdAt`, so the
   * database lets exactly one caller win) and saves `refreshToken` when there is one (none for a
   * client not registered for the refresh_token grant, docs/decisions/0188). True for
   * the one caller that won; false, with nothing written, when the code is unknown or was consumed,
   * or when the code was issued under a sign-in session that has ended (or no longer exists):
   * product logout outruns the codes of its session (docs/decisions/0005-codes-die-with-their-session.md).
   */
  createFromCode(input: { grant: Grant; codeHash: string; refreshToken?: RefreshToken | undefined }): Promise<boolean>;
  findById(grantId: string): Promise<Grant | undefined>;
  /** True when this call revoked it (false when unknown or already revoked). */
  revoke(grantId: string, at: Date): Promise<boolean>;
  /** Revokes every live grant of the session; returns their ids. */
  revokeBySession(sessionId: string, at: Date): Promise<string[]>;
  revokeByUser(userKey: string, at: Date): Promise<string[]>;
  revokeByUserAndClient(userKey: string, clientId: string, at: Date): Promise<string[]>;
  /** Live grants of a user, newest first. */
  listActiveByUser(userKey: string): Promise<Grant[]>;
  /** Live grants of a client (its users' and its client-credentials grants), newest first. */
  listActiveByClient(clientId: string): Promise<Grant[]>;
  /**
   * Deletes every grant of the user (live or revoked) with its refresh tokens and consumed codes,
   * in one write, returning their ids: their access tokens are refused at once, as a revoked
   * grant's are (`forgetUser`). Never a client-credentials grant.
   */
  deleteByUser(userKey: string): Promise<string[]>;
  /**
   * Deletes grants revoked before `before`, and the grants made without a refresh token created
   * before it (their one access token has expired): client-credentials grants (no user) and those
   * `createFromCode` made without one (docs/decisions/0193-grants-without-refresh-tokens-purged.md);
   * with their refresh tokens and codes.
   */
  purge(before: Date): Promise<number>;
}

export interface RefreshTokenRepository {
  save(token: RefreshToken): Promise<void>;
  findByHash(tokenHash: string): Promise<RefreshToken | undefined>;
  /**
   * The token with its grant, in one read: a refresh request needs both (docs/performance.md).
   * Undefined when the token is unknown (a token never outlives its grant).
   */
  findWithGrant(tokenHash: string): Promise<{ token: RefreshToken; grant: Grant } | undefined>;
  /**
   * The same, with the e-mail of the grant's owner among Gatehouse's own users (`undefined` when
   * that user is gone, and for a client-credentials grant), in one read: what a refresh
   * needs when there is no host `userDirectory` (docs/decisions/0168-refresh-in-fewer-round-trips.md).
   * Optional: without it, or with a host directory, the refresh reads the token, then the owner.
   */
  findWithGrantAndOwnerEmail?(tokenHash: string): Promise<{ token: RefreshToken; grant: Grant; ownerEmail: string | undefined } | undefined>;
  /**
   * Refresh-token rotation (RFC 9700 §4.14.2), in one transaction that the grant's other rotations
   * wait for, so a grant under rotation keeps exactly one live refresh token
   * (docs/decisions/0106-one-live-refresh-token-under-rotation.md):
   * - `'rotated'`: the token was live (neither rotated nor superseded); it is marked rotated at `at`
   *   (one conditional write: of concurrent rotations exactly one wins) and `next` is saved;
   * - `'replaced'`: the token was rotated at or after `graceSince`, not superseded, and no other token
   *   of the grant has rotated since (the one it was rotated to was never used: a retry after a
   *   lost response): every live token of the grant is superseded at `at` and `next` is saved;
   * - `'reused'`: anything else (rotated before the grace, superseded, unknown): nothing is written,
   *   and the caller revokes the grant.
   */
  rotate(input: { tokenHash: string; next: RefreshToken; at: Date; graceSince: Date }): Promise<'rotated' | 'replaced' | 'reused'>;
  touch(tokenHash: string, at: Date): Promise<void>;
}

export interface SessionRepository {
  create(session: Session): Promise<void>;
  findById(sessionId: string): Promise<Session | undefined>;
  /** True when this call ended it. */
  end(sessionId: string, at: Date): Promise<boolean>;
  /** Ends every live session of the user; returns the ids of those this call ended. */
  endByUser(userKey: string, at: Date): Promise<string[]>;
  /** The user's sessions neither ended nor expired at `now`, newest first. */
  listActiveByUser(userKey: string, now: Date): Promise<Session[]>;
  /**
   * Product logout, all or nothing in one transaction: ends the session (`ended` is true when this
   * call ended it) and revokes every live grant made under it, returning their ids. Together with
   * `grants.createFromCode`, which refuses a code whose session has ended, no live grant is left
   * under an ended session, whichever of a logout and an exchange commits first.
   */
  endWithGrants(sessionId: string, at: Date): Promise<{ ended: boolean; revokedGrantIds: string[] }>;
  /**
   * The same user signed in again in the browser that held `sessionId` (`prompt=login`,
   * `max_age`), all or nothing in one transaction: ends `sessionId` and moves its live grants to
   * `nextSessionId`, the user's new session, returning the moved grants' ids (none, and `ended`
   * false, when this call did not end it): the new session's sign-out then ends them, and nobody
   * holds a live session this browser can no longer end
   * (docs/decisions/0194-signing-in-again-hands-the-session-over.md). Its unused codes die with it,
   * as with `endWithGrants`, in the same order: an exchange of a code of `sessionId` either commits
   * first (its grant is moved) or writes nothing.
   * Optional: without it, the previous session stays live until it expires.
   */
  handOver?(sessionId: string, nextSessionId: string, at: Date): Promise<{ ended: boolean; movedGrantIds: string[] }>;
  /** Deletes every session of the user, live or ended, returning how many (`forgetUser`). */
  deleteByUser(userKey: string): Promise<number>;
  /** Deletes sessions that expired or ended before `before`. */
  purge(before: Date): Promise<number>;
}

/** Login and consent requests handed to the host application (docs/decisions/0091). */
export interface InteractionRepository {
  create(interaction: Interaction): Promise<void>;
  findByHash(interactionHash: string): Promise<Interaction | undefined>;
  /**
   * Single use: marks the interaction of `kind` consumed at `at` only if it is not consumed yet
   * and has not expired at `at`, in one conditional write; the interaction for the one caller
   * that won, undefined for every other (unknown, expired, of another kind, or already used).
   */
  consume(interactionHash: string, kind: Interaction['kind'], at: Date): Promise<Interaction | undefined>;
  /**
   * Stores an interaction of nobody (`userKey` null: made for a browser that is not signed in)
   * unless the table already holds `cap` of them, used and expired ones included, in one
   * conditional write: what caps the table against anonymous floods
   * (docs/decisions/0108-anonymous-requests-store-bounded-state.md). False when it was full.
   */
  createAnonymous(interaction: Interaction & { userKey: null }, cap: number): Promise<boolean>;
  /** Deletes every interaction made for the user, used or not, returning how many (`forgetUser`). */
  deleteByUser(userKey: string): Promise<number>;
  /** Deletes interactions that expired before `expiredBefore`. */
  purge(expiredBefore: Date): Promise<number>;
}

/**
 * Remembered consent per user and client (docs/decisions/0095-remembered-consent.md). A client's
 * consents are deleted with it (`clients.delete`), and when what the user allowed changed: a changed
 * metadata document (`clients.saveMetadataDocumentClient`, docs/decisions/0117) or an RFC 7592 update
 * (`clients.rotateRegistrationAccessToken` with `forgetConsents`, docs/decisions/0195).
 */
export interface ConsentRepository {
  /**
   * Remembers that `userKey` allowed `clientId` the `scopes` (and, per resource, `resourceScopes`)
   * at `grantedAt`, adding them to those already remembered, in one write (no read first): two
   * Allows at once both count.
   */
  remember(consent: Consent): Promise<void>;
  /** The consent the user gave the client (every scope, sorted; the latest `grantedAt`); undefined when none. */
  find(userKey: string, clientId: string): Promise<Consent | undefined>;
  /** The consents the user gave, one per client, ordered by client id. */
  listByUser(userKey: string): Promise<Consent[]>;
  /** Forgets the consent the user gave the client; true when there was one. */
  forget(userKey: string, clientId: string): Promise<boolean>;
  /** Forgets every consent the user gave, returning to how many clients (`forgetUser`). */
  forgetByUser(userKey: string): Promise<number>;
}

export interface SigningKeyRepository {
  list(): Promise<SigningKey[]>;
  save(key: SigningKey): Promise<void>;
  retire(kid: string, at: Date): Promise<void>;
  /** Deletes keys retired before `before`. */
  purgeRetiredBefore(before: Date): Promise<number>;
}

/**
 * The OAuth part of the storage: what `createGatehouse` needs (docs/decisions/0161). An embedder's
 * storage implements only these; Gatehouse's own users (`users`) are optional beside them.
 *
 * @example
 * const oauth: OAuthRepositories = { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys };
 * createGatehouse({ repositories: oauth, settings, clock, userDirectory });
 */
export interface OAuthRepositories {
  clients: ClientRepository;
  codes: AuthorizationCodeRepository;
  grants: GrantRepository;
  refreshTokens: RefreshTokenRepository;
  sessions: SessionRepository;
  interactions: InteractionRepository;
  consents: ConsentRepository;
  signingKeys: SigningKeyRepository;
}

/**
 * The whole storage: the OAuth part and the product part (users, accounts, attributes, messages),
 * as Gatehouse's storage adapters and `createMemoryRepositories` return it (docs/decisions/0161).
 *
 * @example
 * const repositories: Repositories = storage.repositories;
 * const gatehouse = createGatehouse({ repositories, settings, clock });
 * const product = createProductApi({ gatehouse, repositories });
 */
export interface Repositories extends OAuthRepositories, ProductRepositories {}
