import type { Account, AttributeName, Message, Role, User, UserAttributeValue } from '../domain/model.js';
import type { AttributeScope } from './attributes.js';
import type { DeletedUser } from './operator.js';
import type { SendMessageInput } from './messages.js';
import type { CurrentUser, NewUser } from './users.js';

/**
 * The product APIs' use cases bound to their ports (`createProductApi`; docs/decisions/0161): users,
 * accounts, phone numbers, attribute administration, messaging and the operator's commands on
 * users. What the resource routers of `@gatehouse/http-express`, the CLI and the reference server
 * call; an embedder of the OAuth part alone needs none of it. Failures are `DomainError`s.
 *
 * @example
 * const product: ProductApi = createProductApi({ gatehouse, repositories });
 * const me = await product.currentUser(userKey);
 */
export interface ProductApi {
  // Users and accounts
  /** Creates an account. */
  createAccount(input: { name: string }): Promise<Account>;
  /** Creates a user with a password (stored as a hash only). */
  createUser(input: NewUser): Promise<User>;
  /** Sets a user's password and signs them out everywhere: their sessions are ended, their grants revoked. */
  changePassword(input: { userKey: string; newPassword: string }): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }>;
  /** Makes a user a member (or admin) of an account. */
  setMembership(input: { accountKey: string; userKey: string; role: Role }): Promise<void>;
  /** Adds an E.164 phone number to a user. */
  addPhoneNumber(input: { userKey: string; phoneNumber: string }): Promise<void>;
  /** A user (without the password hash) with their memberships. */
  currentUser(userKey: string): Promise<CurrentUser>;
  /** The user with this e-mail (without the password hash); undefined when there is none. */
  findUserByEmail(email: string): Promise<Omit<User, 'passwordHash'> | undefined>;
  /** The account with this key; undefined when there is none. */
  findAccount(accountKey: string): Promise<Account | undefined>;
  /** A user's phone numbers (E.164). */
  listPhoneNumbers(userKey: string): Promise<string[]>;
  /** The key of the user a phone number belongs to; undefined when nobody has it. */
  findPhoneNumberOwner(phoneNumber: string): Promise<string | undefined>;

  // Attribute administration (the actor must be an admin of the account)
  /** Creates an attribute name in an account. */
  createAttribute(input: AttributeScope & { name: string }): Promise<AttributeName>;
  /** A page of an account's attribute names. */
  listAttributes(input: AttributeScope & { offset?: number; pageSize?: number }): Promise<{ results: AttributeName[]; total: number }>;
  /** One attribute name. */
  getAttribute(input: AttributeScope & { key: string }): Promise<AttributeName>;
  /** Renames an attribute. */
  renameAttribute(input: AttributeScope & { key: string; name: string }): Promise<AttributeName>;
  /** Deletes an attribute name with its values. */
  deleteAttribute(input: AttributeScope & { key: string }): Promise<void>;
  /** Sets (or, with `null`, clears) attribute values of a user of the account. */
  setUserAttributes(input: AttributeScope & { userKey: string; values: ReadonlyArray<{ key: string; value: string | null }> }): Promise<void>;
  /** The attribute values of a user of the account. */
  getUserAttributes(input: AttributeScope & { userKey: string }): Promise<UserAttributeValue[]>;

  // Messaging
  /** Sends a message from one of the user's phone numbers through the `MessageTransport`. */
  sendMessage(userKey: string, input: SendMessageInput): Promise<Message>;
  /** A page of the messages sent from one of the user's phone numbers. */
  listMessages(userKey: string, input: { ownerPhoneNumber: string; pageSize?: number; pageMarker?: string }): Promise<{ items: Message[]; nextPageMarker: string | null }>;

  // The operator's command line (product/operator.ts)
  /** A page of users by e-mail (`limit` 1–1000). */
  listUsers(page: { limit: number; offset: number }): Promise<Array<Omit<User, 'passwordHash'>>>;
  /** Disables a user: no sign-in, sessions ended, grants revoked (docs/decisions/0153). */
  disableUser(userKey: string): Promise<{ endedSessionIds: string[]; revokedGrantIds: string[] }>;
  /** Enables a disabled user again. */
  enableUser(userKey: string): Promise<void>;
  /**
   * Deletes a user for good: their user-table records (phone numbers, memberships, attribute
   * values, messages) and everything `forgetUser` deletes; a user owning clients is refused unless
   * `deleteOwnedClients` (docs/decisions/0158).
   */
  deleteUser(userKey: string, options?: { deleteOwnedClients?: boolean }): Promise<DeletedUser>;
}
