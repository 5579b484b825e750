import type { Session, User } from '../domain/model.js';
import type { Deps } from '../deps.js';
import { secondsAfter } from '../domain/time.js';
import { DomainError } from '../errors.js';
import type { AuditEventType, PasswordHasher } from '../ports/services.js';
import type { UserProfile } from '../ports/users.js';
import { sha256 } from '../crypto.js';
import { ownUsersOf, profileOf, userDirectoryOf } from './user-directory.js';

/** A signed-in browser: `sessionToken` goes in the cookie; only its hash is stored. */
export interface SignedIn {
  sessionToken: string;
  session: Session;
  user: UserProfile;
}

/**
 * Per hasher, a hash that takes as long to check as a real one, so unknown e-mails cost the same time.
 * Keyed by hasher: a decoy made by another hasher (another format) would be refused without any work.
 */
const decoyHashes = new WeakMap<PasswordHasher, Promise<string>>();

function decoyHashOf(passwords: PasswordHasher): Promise<string> {
  let decoy = decoyHashes.get(passwords);
  if (!decoy) decoyHashes.set(passwords, (decoy = passwords.hash('decoy password')));
  return decoy;
}

/**
 * A hash of an older cost (or algorithm) is replaced by one of the current cost once the password
 * is known to be right (docs/security.md). Not a password change: the grants stay. Stored only over
 * the hash just checked, so a password changed meanwhile wins.
 */
async function rehashIfOutdated(deps: Pick<Deps, 'repos' | 'passwords'>, user: User, password: string): Promise<User> {
  if (!deps.passwords.needsRehash(user.passwordHash)) return user;
  const passwordHash = await deps.passwords.hash(password);
  const replaced = await ownUsersOf(deps).updatePasswordHash(user.userKey, passwordHash, { ifCurrent: user.passwordHash });
  return replaced ? { ...user, passwordHash } : user;
}

/**
 * Signs a user in with e-mail (the login name) and password. Throws `DomainError('unauthenticated')`
 * with the same message whether the e-mail or the password was wrong. The password is checked by
 * the embedder's `passwordCheck` when there is one (docs/decisions/0091); else against Gatehouse's
 * own users, verifying exactly one password hash of the current cost (a decoy for an unknown
 * e-mail), so the answer takes as long; a right password over a hash of an older cost stores a new
 * hash (`needsRehash`).
 *
 * @example
 * const { sessionToken } = await signIn(deps, { email: 'ada@example.com', password: 'correct horse' });
 */
export async function signIn(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'passwords' | 'settings' | 'audit' | 'userDirectory' | 'passwordCheck'>,
  credentials: { email: string; password: string },
): Promise<SignedIn> {
  if (deps.passwordCheck) return signInWithPasswordCheck(deps, credentials);
  const user = await ownUsersOf(deps).findByEmail(credentials.email.trim());
  const ok = user
    ? await deps.passwords.verify(credentials.password, user.passwordHash)
    : await deps.passwords.verify(credentials.password, await decoyHashOf(deps.passwords)).then(() => false);
  const now = deps.clock.now();
  if (!user || !ok) {
    deps.audit.record({ type: 'sign_in.failed', at: now, ...(user ? { userKey: user.userKey } : {}), reason: user ? 'wrong password' : 'unknown e-mail' });
    throw new DomainError('unauthenticated', 'The e-mail or password is not right.');
  }
  // A disabled user is refused with the same answer (docs/decisions/0153): only the audit says why.
  if (user.disabledAt !== undefined) {
    deps.audit.record({ type: 'sign_in.failed', at: now, userKey: user.userKey, reason: 'user disabled' });
    throw new DomainError('unauthenticated', 'The e-mail or password is not right.');
  }
  const signedInUser = await rehashIfOutdated(deps, user, credentials.password);
  // RFC 8176 §2: a password sign-in.
  return startSession(deps, profileOf(signedInUser), { amr: ['pwd'] });
}

/** `signIn` with the embedder's `PasswordCheck`; the user's profile comes from the user directory. */
async function signInWithPasswordCheck(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit' | 'userDirectory' | 'passwordCheck'>,
  credentials: { email: string; password: string },
): Promise<SignedIn> {
  const login = credentials.email.trim();
  const directory = userDirectoryOf(deps);
  const userKey = await deps.passwordCheck?.verify(login, credentials.password);
  const user = userKey === undefined ? undefined : await directory.findByKey(userKey);
  if (!user) {
    // The audit names the user whose password was wrong, as with Gatehouse's own users.
    const known = userKey === undefined ? await directory.findByLogin(login) : undefined;
    const failedKey = userKey ?? known?.userKey;
    const reason = userKey !== undefined ? 'user not in the directory' : known ? 'wrong password' : 'unknown login';
    deps.audit.record({ type: 'sign_in.failed', at: deps.clock.now(), ...(failedKey === undefined ? {} : { userKey: failedKey }), reason });
    throw new DomainError('unauthenticated', 'The e-mail or password is not right.');
  }
  return startSession(deps, user, { amr: ['pwd'] });
}

/**
 * Opens a sign-in session for a user already authenticated (by password, or by the host
 * application: `completeLogin`, which says when: `authenticatedAt`, default now). Only the hash of
 * the session token is stored.
 */
export async function startSession(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit'>,
  user: UserProfile,
  options: { reason?: string; authenticatedAt?: Date; amr?: string[]; acr?: string } = {},
): Promise<SignedIn> {
  const now = deps.clock.now();
  const { reason, authenticatedAt = now, amr, acr } = options;
  const sessionToken = deps.ids.secret();
  const session: Session = {
    sessionId: sha256(sessionToken),
    userKey: user.userKey,
    createdAt: now,
    authenticatedAt,
    ...(amr === undefined || amr.length === 0 ? {} : { amr }),
    ...(acr === undefined ? {} : { acr }),
    expiresAt: secondsAfter(now, deps.settings.sessionTtlSeconds),
    endedAt: null,
  };
  await deps.repos.sessions.create(session);
  deps.audit.record({ type: 'sign_in.succeeded', at: now, userKey: user.userKey, ...(reason === undefined ? {} : { reason }) });
  return { sessionToken, session, user };
}

/** The live session behind a cookie value, with its user; undefined when ended, expired or unknown. */
export async function resolveSession(
  deps: Pick<Deps, 'repos' | 'clock' | 'userDirectory'>,
  sessionToken: string,
): Promise<{ session: Session; user: UserProfile } | undefined> {
  if (sessionToken === '') return undefined;
  const session = await deps.repos.sessions.findById(sha256(sessionToken));
  if (!session || session.endedAt || session.expiresAt.getTime() <= deps.clock.now().getTime()) return undefined;
  const user = await userDirectoryOf(deps).findByKey(session.userKey);
  return user ? { session, user } : undefined;
}

/**
 * Product logout: ends the sign-in session and revokes every grant made under it, so their
 * refresh tokens (valid "until product logout") and access tokens stop working. Both in one
 * transaction; a code issued under the session can no longer be exchanged
 * (docs/decisions/0005-codes-die-with-their-session.md).
 *
 * @example
 * const { revokedGrantIds } = await logout(deps, sessionToken);
 */
export async function logout(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  sessionToken: string,
  options: { clientId?: string } = {},
): Promise<{ revokedGrantIds: string[] }> {
  const sessionId = sha256(sessionToken);
  const session = await deps.repos.sessions.findById(sessionId);
  if (!session) return { revokedGrantIds: [] };
  const now = deps.clock.now();
  const { revokedGrantIds } = await deps.repos.sessions.endWithGrants(sessionId, now);
  // RP-Initiated Logout 1.0: the audit names the relying party that asked (docs/decisions/0135).
  deps.audit.record({
    type: 'logout',
    at: now,
    userKey: session.userKey,
    grantIds: revokedGrantIds,
    ...(options.clientId === undefined ? {} : { clientId: options.clientId, reason: 'RP-initiated logout' }),
  });
  return { revokedGrantIds };
}

/**
 * A browser that held a live sign-in session signed in again (the login form): the previous session
 * must not stay live with nobody able to end it. Another user's gets product logout (ended, its
 * grants revoked; docs/decisions/0191-signing-in-as-another-user-signs-out.md); the same user's is
 * handed over to `next` (ended, its live grants and unused codes moved to it), so the user keeps
 * their apps and the new session's sign-out ends them
 * (docs/decisions/0194-signing-in-again-hands-the-session-over.md). Nothing is done for a token of
 * no live session, or of `next` itself; nor, for the same user, when the store has no `handOver`
 * (the previous session then stays live until it expires).
 *
 * @example
 * const signedIn = await gatehouse.signIn({ email, password });
 * if (previousCookie !== undefined) await gatehouse.replaceSession(previousCookie, signedIn.session);
 */
export async function replaceSession(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  previousToken: string,
  next: Pick<Session, 'sessionId' | 'userKey'>,
): Promise<{ revokedGrantIds: string[]; movedGrantIds: string[] }> {
  const nothing = { revokedGrantIds: [], movedGrantIds: [] };
  const previousId = sha256(previousToken);
  if (previousToken === '' || previousId === next.sessionId) return nothing;
  const previous = await deps.repos.sessions.findById(previousId);
  const now = deps.clock.now();
  if (!previous || previous.endedAt !== null || previous.expiresAt.getTime() <= now.getTime()) return nothing;
  if (previous.userKey !== next.userKey) return { revokedGrantIds: (await logout(deps, previousToken)).revokedGrantIds, movedGrantIds: [] };
  if (deps.repos.sessions.handOver === undefined) return nothing;
  const { movedGrantIds } = await deps.repos.sessions.handOver(previousId, next.sessionId, now);
  return { revokedGrantIds: [], movedGrantIds };
}

/**
 * Signs a user out everywhere, for a host application whose own sign-out should end Gatehouse's
 * too (docs/decisions/0091): ends every live sign-in session of the user and revokes every grant
 * made under them, as product logout does for one session.
 *
 * @example
 * app.post('/logout', async (req, res) => { await gatehouse.logoutUser(req.user.id); ... });
 */
export async function logoutUser(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  userKey: string,
): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }> {
  const now = deps.clock.now();
  // Sessions first: once ended, no code of theirs becomes a grant (docs/decisions/0005), so the
  // revocation below leaves no live grant under them.
  const endedSessionIds = await deps.repos.sessions.endByUser(userKey, now);
  // A code issued outside a session (an embedder's own approval) dies too (docs/decisions/0105).
  await deps.repos.codes.deleteUnused(userKey);
  const revokedGrantIds: string[] = [];
  for (const sessionId of endedSessionIds) revokedGrantIds.push(...(await deps.repos.grants.revokeBySession(sessionId, now)));
  deps.audit.record({ type: 'logout', at: now, userKey, grantIds: revokedGrantIds, reason: 'every session of the user' });
  return { endedSessionIds, revokedGrantIds };
}

/**
 * Ends a user's access everywhere, for what the product part decides about a user (a password
 * change, a disabled user; docs/decisions/0161): ends every live sign-in session of the user
 * (first: once ended, no code of theirs becomes a grant, docs/decisions/0005), deletes their unused
 * codes (0105) and revokes every grant of theirs, made under a session or not (unlike
 * `logoutUser`). One audit event, of the type and reason `because` names.
 *
 * @example
 * const { endedSessionIds, revokedGrantIds } = await endUserAccess(deps, userKey, { type: 'password.changed' });
 */
export async function endUserAccess(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  userKey: string,
  because: { type: AuditEventType; reason?: string },
): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }> {
  const now = deps.clock.now();
  const endedSessionIds = await deps.repos.sessions.endByUser(userKey, now);
  await deps.repos.codes.deleteUnused(userKey);
  const revokedGrantIds = await deps.repos.grants.revokeByUser(userKey, now);
  deps.audit.record({ type: because.type, at: now, userKey, grantIds: revokedGrantIds, ...(because.reason === undefined ? {} : { reason: because.reason }) });
  return { endedSessionIds, revokedGrantIds };
}
