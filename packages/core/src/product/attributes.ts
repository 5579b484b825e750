import type { AttributeName, UserAttributeValue } from '../domain/model.js';
import type { ProductDeps } from './deps.js';
import { DomainError } from '../errors.js';
import { displayNameProblem, JOINERS, LONE_SURROGATE } from '../domain/display-name.js';

export const MAX_ATTRIBUTE_VALUE_LENGTH = 1024;
export const MAX_PAGE_SIZE = 1000;

/**
 * Only an `admin` of the account may administer its attributes. A member without the role is
 * forbidden; a non-member and an unknown account are both "not found", so existence does not leak.
 */
export async function requireAccountAdmin(deps: Pick<ProductDeps, 'repos'>, actorUserKey: string, accountKey: string): Promise<void> {
  const role = await deps.repos.accounts.findRole(accountKey, actorUserKey);
  if (role === undefined) throw new DomainError('not_found', 'No such account.');
  if (role !== 'admin') throw new DomainError('forbidden', 'Only an admin of the account may do this.');
}

/**
 * openapi.yaml (attribute names): composed (NFC), trimmed, 1–64 characters, fit to be shown
 * (`displayNameProblem`: well-formed, no control or invisible format characters but the joiners;
 * docs/decisions/0190-attribute-names-unique-as-read.md).
 */
export function normalizeAttributeName(raw: string): string {
  const name = raw.normalize('NFC').trim();
  if (name.length < 1 || [...name].length > 64) throw new DomainError('invalid', 'name must be 1 to 64 characters.', { field: 'name' });
  const problem = displayNameProblem(name);
  if (problem !== undefined) throw new DomainError('invalid', `name ${problem}.`, { field: 'name' });
  return name;
}

/**
 * The key by which attribute names are unique in an account (SPEC §4, "unique ignoring case"):
 * names a reader cannot tell apart share it. Compatibility-composed (NFKC: `ﬀ` is `ff`, a
 * full-width `Ａ` is `A`), without joiners, and case-folded (`ß` and `SS`, `ς` and `Σ` are one);
 * every `AttributeRepository` compares names by it (docs/decisions/0190-attribute-names-unique-as-read.md).
 *
 * @example
 * attributeNameKey('Straße') === attributeNameKey('STRASSE'); // true
 */
export function attributeNameKey(name: string): string {
  return name.normalize('NFKC').replace(JOINERS, '').toUpperCase().toLowerCase().normalize('NFKC');
}

export interface AttributeScope {
  /** The user the access token belongs to. */
  actorUserKey: string;
  accountKey: string;
}

/**
 * Creates an attribute name, unique in the account ignoring case.
 *
 * @example
 * const { key } = await createAttribute(deps, { actorUserKey, accountKey, name: 'department' });
 */
export async function createAttribute(
  deps: Pick<ProductDeps, 'repos' | 'ids' | 'settings'>,
  input: AttributeScope & { name: string },
): Promise<AttributeName> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  const attribute = { key: deps.ids.id(), name: normalizeAttributeName(input.name) };
  const result = await deps.repos.attributes.create(input.accountKey, attribute, deps.settings.maxAttributesPerAccount);
  if (result === 'duplicate-name') throw duplicate(attribute.name);
  if (result === 'limit-reached') {
    throw new DomainError('conflict', `The account has ${deps.settings.maxAttributesPerAccount} attribute names, the most it may have.`);
  }
  return attribute;
}

export async function listAttributes(
  deps: Pick<ProductDeps, 'repos'>,
  input: AttributeScope & { offset?: number; pageSize?: number },
): Promise<{ results: AttributeName[]; total: number }> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  const offset = input.offset ?? 0;
  const pageSize = input.pageSize ?? 100;
  if (!Number.isInteger(offset) || offset < 0) throw new DomainError('invalid', 'offset must be a whole number, 0 or more.', { field: 'offset' });
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new DomainError('invalid', `pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}.`, { field: 'pageSize' });
  }
  return deps.repos.attributes.list(input.accountKey, { offset, limit: pageSize });
}

export async function getAttribute(deps: Pick<ProductDeps, 'repos'>, input: AttributeScope & { key: string }): Promise<AttributeName> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  const attribute = await deps.repos.attributes.find(input.accountKey, input.key);
  if (!attribute) throw new DomainError('not_found', 'No such attribute.');
  return attribute;
}

export async function renameAttribute(
  deps: Pick<ProductDeps, 'repos'>,
  input: AttributeScope & { key: string; name: string },
): Promise<AttributeName> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  const name = normalizeAttributeName(input.name);
  const result = await deps.repos.attributes.rename(input.accountKey, input.key, name);
  if (result === 'not-found') throw new DomainError('not_found', 'No such attribute.');
  if (result === 'duplicate-name') throw duplicate(name);
  return { key: input.key, name };
}

/** Deletes an attribute name; the values of it on every user go with it. */
export async function deleteAttribute(deps: Pick<ProductDeps, 'repos'>, input: AttributeScope & { key: string }): Promise<void> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  if (!(await deps.repos.attributes.delete(input.accountKey, input.key))) throw new DomainError('not_found', 'No such attribute.');
}

/** Sets a user's values (`null` removes one), all or nothing; an unknown key is named in the error. */
export async function setUserAttributes(
  deps: Pick<ProductDeps, 'repos' | 'settings'>,
  input: AttributeScope & { userKey: string; values: ReadonlyArray<{ key: string; value: string | null }> },
): Promise<void> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  await requireMember(deps, input.accountKey, input.userKey);
  if (input.values.length > deps.settings.maxAttributesPerAccount) {
    throw new DomainError('invalid', `At most ${deps.settings.maxAttributesPerAccount} values at once.`, { field: 'body' });
  }
  const seen = new Set<string>();
  input.values.forEach((entry, index) => {
    if (seen.has(entry.key)) throw new DomainError('invalid', `The key ${entry.key} is listed twice.`, { field: `[${index}].key` });
    seen.add(entry.key);
    if (entry.value !== null && LONE_SURROGATE.test(entry.value)) {
      throw new DomainError('invalid', 'value must be well-formed Unicode (a lone surrogate is not).', { field: `[${index}].value` });
    }
    // Characters (code points), as for names: an emoji counts once.
    if (entry.value !== null && [...entry.value].length > MAX_ATTRIBUTE_VALUE_LENGTH) {
      throw new DomainError('invalid', `value must be at most ${MAX_ATTRIBUTE_VALUE_LENGTH} characters.`, { field: `[${index}].value` });
    }
  });
  const { unknownKeys } = await deps.repos.attributes.setUserValues(input.accountKey, input.userKey, input.values);
  if (unknownKeys.length > 0) {
    throw new DomainError('invalid', `Unknown attribute key: ${unknownKeys.join(', ')}.`, { field: 'key' });
  }
}

export async function getUserAttributes(
  deps: Pick<ProductDeps, 'repos'>,
  input: AttributeScope & { userKey: string },
): Promise<UserAttributeValue[]> {
  await requireAccountAdmin(deps, input.actorUserKey, input.accountKey);
  await requireMember(deps, input.accountKey, input.userKey);
  return deps.repos.attributes.listUserValues(input.accountKey, input.userKey);
}

async function requireMember(deps: Pick<ProductDeps, 'repos'>, accountKey: string, userKey: string): Promise<void> {
  if ((await deps.repos.accounts.findRole(accountKey, userKey)) === undefined) throw new DomainError('not_found', 'No such user in this account.');
}

function duplicate(name: string): DomainError {
  return new DomainError('conflict', `An attribute named ${JSON.stringify(name)} exists already (names ignore case).`, { field: 'name' });
}
