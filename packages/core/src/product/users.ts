import type { Account, Membership, Role, User } from '../domain/model.js';
import type { ProductDeps } from './deps.js';
import { DomainError } from '../errors.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** E.164: a plus, then up to 15 digits, not starting with 0. */
export const E164 = /^\+[1-9]\d{1,14}$/;

export async function createAccount(deps: Pick<ProductDeps, 'repos' | 'ids'>, input: { name: string }): Promise<Account> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) throw new DomainError('invalid', 'The account name must be 1 to 200 characters.', { field: 'name' });
  const account = { accountKey: deps.ids.id(), name };
  await deps.repos.accounts.create(account);
  return account;
}

export interface NewUser {
  email: string;
  password: string;
  givenName?: string;
  familyName?: string;
  locale?: string;
}

/**
 * Creates a user with a hashed password.
 *
 * @example
 * const user = await createUser(deps, { email: 'ada@example.com', password: 'correct horse', givenName: 'Ada' });
 */
export async function createUser(deps: Pick<ProductDeps, 'repos' | 'ids' | 'passwords'>, input: NewUser): Promise<User> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 254) throw new DomainError('invalid', 'The e-mail address is not valid.', { field: 'email' });
  checkPassword(input.password);
  if (await deps.repos.users.findByEmail(email)) throw new DomainError('conflict', 'A user with this e-mail exists.', { field: 'email' });
  const user: User = {
    userKey: deps.ids.id(),
    email,
    givenName: input.givenName?.trim() ?? '',
    familyName: input.familyName?.trim() ?? '',
    locale: input.locale ?? 'en-US',
    passwordHash: await deps.passwords.hash(input.password),
  };
  await deps.repos.users.create(user);
  return user;
}

function checkPassword(password: string): void {
  if (password.length < 8 || password.length > 1024) {
    throw new DomainError('invalid', 'The password must be 8 to 1024 characters.', { field: 'password' });
  }
}

/**
 * Changes a password and signs the user out everywhere: every sign-in session of the user is
 * ended and every grant revoked (docs/security.md, RFC 9700 §4.14 row), so whoever knew the old
 * password keeps nothing it gave them.
 *
 * @example
 * const { endedSessionIds, revokedGrantIds } = await product.changePassword({ userKey, newPassword: 'correct horse battery' });
 */
export async function changePassword(
  deps: Pick<ProductDeps, 'repos' | 'passwords' | 'gatehouse'>,
  input: { userKey: string; newPassword: string },
): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }> {
  checkPassword(input.newPassword);
  const updated = await deps.repos.users.updatePasswordHash(input.userKey, await deps.passwords.hash(input.newPassword));
  if (!updated) throw new DomainError('not_found', 'No such user.');
  // The OAuth part ends the sessions first (once ended, no code of theirs becomes a grant:
  // docs/decisions/0005), deletes every unused code (0105) and revokes every grant.
  return deps.gatehouse.endUserAccess(input.userKey, { type: 'password.changed' });
}

export async function setMembership(
  deps: Pick<ProductDeps, 'repos'>,
  input: { accountKey: string; userKey: string; role: Role },
): Promise<void> {
  if (!(await deps.repos.accounts.findByKey(input.accountKey))) throw new DomainError('not_found', 'No such account.', { field: 'account' });
  if (!(await deps.repos.users.findByKey(input.userKey))) throw new DomainError('not_found', 'No such user.');
  await deps.repos.accounts.setMembership(input.accountKey, input.userKey, input.role);
}

/**
 * Gives a user a phone number (E.164). A number belongs to one user, who alone reads its
 * messages: another user's number is a `DomainError('conflict')`, decided by the database
 * (docs/decisions/0006-one-owner-per-phone-number.md). Adding one's own number again is a no-op.
 *
 * @example
 * await addPhoneNumber(deps, { userKey: user.userKey, phoneNumber: '+15551234567' });
 */
export async function addPhoneNumber(deps: Pick<ProductDeps, 'repos'>, input: { userKey: string; phoneNumber: string }): Promise<void> {
  if (!E164.test(input.phoneNumber)) throw new DomainError('invalid', 'The phone number must be in E.164 form (+15551234567).', { field: 'phone' });
  try {
    await deps.repos.users.addPhoneNumber(input.userKey, input.phoneNumber);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'conflict') throw phoneNumberTaken(input.phoneNumber, error);
    throw error;
  }
}

/**
 * The refusal of a phone number that belongs to another user.
 *
 * @example
 * if (await repos.users.findByPhoneNumber(phone)) throw phoneNumberTaken(phone);
 */
export function phoneNumberTaken(phoneNumber: string, cause?: unknown): DomainError {
  return new DomainError('conflict', `The phone number ${phoneNumber} belongs to another user.`, { field: 'phone', ...(cause === undefined ? {} : { cause }) });
}

/** What `GET /identity/v1/Users/me` shows. */
export interface CurrentUser {
  user: Omit<User, 'passwordHash'>;
  memberships: Membership[];
}

export async function currentUser(deps: Pick<ProductDeps, 'repos'>, userKey: string): Promise<CurrentUser> {
  const found = await deps.repos.users.findWithMemberships(userKey);
  if (!found) throw new DomainError('not_found', 'No such user.');
  const { passwordHash: _omitted, ...visible } = found.user;
  return { user: visible, memberships: found.memberships };
}
