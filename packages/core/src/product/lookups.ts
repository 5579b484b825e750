import type { Account, User } from '../domain/model.js';
import type { ProductDeps } from './deps.js';

/**
 * The user with this e-mail address (trimmed, as at sign-in), without the password hash; undefined when there is none.
 *
 * @example
 * const owner = await findUserByEmail(deps, 'ada@example.com');
 */
export async function findUserByEmail(deps: Pick<ProductDeps, 'repos'>, email: string): Promise<Omit<User, 'passwordHash'> | undefined> {
  const found = await deps.repos.users.findByEmail(email.trim());
  if (!found) return undefined;
  const { passwordHash: _omitted, ...visible } = found;
  return visible;
}

/**
 * The account with this key; undefined when there is none.
 *
 * @example
 * if (!(await findAccount(deps, accountKey))) throw new Error('no such account');
 */
export function findAccount(deps: Pick<ProductDeps, 'repos'>, accountKey: string): Promise<Account | undefined> {
  return deps.repos.accounts.findByKey(accountKey);
}

/**
 * The phone numbers (E.164) of a user, the ones messages may be sent from.
 *
 * @example
 * await listPhoneNumbers(deps, user.userKey); // ['+15551234567']
 */
export function listPhoneNumbers(deps: Pick<ProductDeps, 'repos'>, userKey: string): Promise<string[]> {
  return deps.repos.users.listPhoneNumbers(userKey);
}

/**
 * The key of the user a phone number (E.164) belongs to; undefined when nobody has it
 * (a number belongs to one user: docs/decisions/0006-one-owner-per-phone-number.md).
 *
 * @example
 * if (await findPhoneNumberOwner(deps, '+15551234567')) throw phoneNumberTaken('+15551234567');
 */
export async function findPhoneNumberOwner(deps: Pick<ProductDeps, 'repos'>, phoneNumber: string): Promise<string | undefined> {
  return (await deps.repos.users.findByPhoneNumber(phoneNumber))?.userKey;
}
