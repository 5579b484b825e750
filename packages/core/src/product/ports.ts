import type { Account, AttributeName, Membership, Message, Role, User, UserAttributeValue } from '../domain/model.js';

/*
 * The product part's ports (docs/decisions/0161): Gatehouse's own users, their accounts, attribute
 * names and messages. Only the product APIs need them (`createProductApi`); the OAuth part
 * (`createGatehouse`) reads Gatehouse's own users only when no `userDirectory` is given.
 */

export interface UserRepository {
  /** Fails with a `DomainError('conflict')` when the e-mail is taken (ignoring case). */
  create(user: User): Promise<void>;
  findByKey(userKey: string): Promise<User | undefined>;
  /**
   * The user and the accounts they belong to, ordered by account key, in one read (what
   * `GET /identity/v1/Users/me` shows on every call).
   */
  findWithMemberships(userKey: string): Promise<{ user: User; memberships: Membership[] } | undefined>;
  /** E-mails compare ignoring case. */
  findByEmail(email: string): Promise<User | undefined>;
  /** Disables the user from `at`, or enables them again (`null`); false when there is no such user. */
  setDisabled(userKey: string, at: Date | null): Promise<boolean>;
  /** A page of users by e-mail (ignoring case), `limit` of them after the first `offset` (the operator's `users list`). */
  list(options: { limit: number; offset: number }): Promise<User[]>;
  /**
   * Stores a new password hash; false when there is no such user. With `ifCurrent`, only over
   * that stored hash, in one conditional write (false when it changed meanwhile): a re-hash at
   * sign-in never undoes a password change made in between.
   */
  updatePasswordHash(userKey: string, passwordHash: string, options?: { ifCurrent?: string }): Promise<boolean>;
  /**
   * Idempotent for the number's owner. A phone number belongs to one user: when another user has
   * it, fails with a `DomainError('conflict')` (field `phone`), decided by the database
   * (docs/decisions/0006-one-owner-per-phone-number.md).
   */
  addPhoneNumber(userKey: string, phoneNumber: string): Promise<void>;
  /** The user the phone number belongs to. */
  findByPhoneNumber(phoneNumber: string): Promise<User | undefined>;
  listPhoneNumbers(userKey: string): Promise<string[]>;
  /**
   * Deletes the user and, in the same transaction, everything of theirs in the user tables: their
   * phone numbers, memberships, attribute values in every account, and the messages kept under
   * their phone numbers or sent by them (a number given to someone else later shows none of them).
   * Undefined when there is no such user. The authorization side (sessions, grants, codes,
   * consents) is `forgetUser`'s (docs/decisions/0158-deleting-a-user.md).
   */
  delete(userKey: string): Promise<DeletedUserRecords | undefined>;
}

/** How many records of each kind `users.delete` deleted with the user. */
export interface DeletedUserRecords {
  phoneNumbers: number;
  memberships: number;
  attributeValues: number;
  messages: number;
}

export interface AccountRepository {
  create(account: Account): Promise<void>;
  findByKey(accountKey: string): Promise<Account | undefined>;
  /** Adds the membership or changes its role. */
  setMembership(accountKey: string, userKey: string, role: Role): Promise<void>;
  findRole(accountKey: string, userKey: string): Promise<Role | undefined>;
}

export type CreateAttributeResult = 'created' | 'duplicate-name' | 'limit-reached';
export type RenameAttributeResult = 'renamed' | 'not-found' | 'duplicate-name';

export interface AttributeRepository {
  /**
   * Creates the name unless another name of the account has its `attributeNameKey` (equal ignoring
   * case, as read), or the account has `maxPerAccount` names already. `rename` compares alike.
   */
  create(accountKey: string, attribute: AttributeName, maxPerAccount: number): Promise<CreateAttributeResult>;
  /** Names of an account in creation order. */
  list(accountKey: string, page: { offset: number; limit: number }): Promise<{ results: AttributeName[]; total: number }>;
  find(accountKey: string, key: string): Promise<AttributeName | undefined>;
  rename(accountKey: string, key: string, name: string): Promise<RenameAttributeResult>;
  /** Deletes the name and every user's value of it, in one transaction. */
  delete(accountKey: string, key: string): Promise<boolean>;
  /**
   * Sets (`value` a string) or removes (`value` null) a user's values, all or nothing:
   * when a key is not an attribute of the account, nothing is written and the unknown keys are returned.
   */
  setUserValues(
    accountKey: string,
    userKey: string,
    changes: ReadonlyArray<{ key: string; value: string | null }>,
  ): Promise<{ unknownKeys: string[] }>;
  /** A user's values in the account, in the names' creation order. */
  listUserValues(accountKey: string, userKey: string): Promise<UserAttributeValue[]>;
}

export interface MessageRepository {
  save(message: Message): Promise<void>;
  /** Messages of an owner number, newest first, strictly after the `before` cursor when given. */
  listByOwner(
    ownerPhoneNumber: string,
    page: { limit: number; before?: { timestamp: Date; id: string } },
  ): Promise<Message[]>;
}

/**
 * The product part of the storage: what `createProductApi` needs (docs/decisions/0161).
 *
 * @example
 * const product = createProductApi({ gatehouse, repositories: { users, accounts, attributes, messages } });
 */
export interface ProductRepositories {
  users: UserRepository;
  accounts: AccountRepository;
  attributes: AttributeRepository;
  messages: MessageRepository;
}
