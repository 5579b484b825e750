import type {
  Account,
  AttributeName,
  AuthorizationCode,
  Client,
  Consent,
  Grant,
  Interaction,
  Message,
  RefreshToken,
  Role,
  Session,
  SigningKey,
  User,
} from '../domain/model.js';
import { DomainError } from '../errors.js';
import { attributeNameKey } from '../product/attributes.js';
import type { ClientChanges, Repositories } from '../ports/repositories.js';
import { copyRecord } from './copy.js';

const copy = copyRecord;

/**
 * A copy of `record` without `key` when it is an empty list: an optional list field is stored as
 * "absent when empty", as the SQL adapters read it back (`resources`, `resourceServerFor`).
 */
function stored<T extends object>(record: T, key: keyof T): T {
  const value = copy(record);
  if (Array.isArray(value[key]) && (value[key] as unknown[]).length === 0) delete value[key];
  return value;
}

/** The OpenID Connect fields of a client, each changed only when given (`ClientRepository.update`). */
const OPENID_CLIENT_FIELDS = ['idTokenSignedResponseAlg', 'postLogoutRedirectUris', 'defaultMaxAge', 'requireAuthTime', 'clientUri', 'logoUri', 'policyUri', 'tosUri', 'firstParty'] as const;

/** A client as the SQL adapters read it back: an OpenID Connect field absent rather than undefined, `[]` or `false`. */
function withoutEmptyOpenIdFields(client: Client): Client {
  const kept = { ...client };
  if (kept.idTokenSignedResponseAlg === undefined) delete kept.idTokenSignedResponseAlg;
  if (kept.postLogoutRedirectUris === undefined || kept.postLogoutRedirectUris.length === 0) delete kept.postLogoutRedirectUris;
  if (kept.defaultMaxAge === undefined) delete kept.defaultMaxAge;
  if (kept.requireAuthTime !== true) delete kept.requireAuthTime;
  // The links and the first-party mark (docs/decisions/0155), the same way.
  for (const key of ['clientUri', 'logoUri', 'policyUri', 'tosUri'] as const) if (kept[key] === undefined) delete kept[key];
  if (kept.firstParty !== true) delete kept.firstParty;
  return kept;
}

/** A code as the SQL adapters read it back: `redirectUriIncluded` absent unless false (absent means true). */
function storedCode(code: AuthorizationCode): AuthorizationCode {
  const value = stored(code, 'resources');
  if (value.redirectUriIncluded !== false) delete value.redirectUriIncluded;
  return value;
}

/** Deletes the entries of `map` whose value is `dead`; returns how many it deleted (what a purge reports). */
function deleteWhere<K, V>(map: Map<K, V>, dead: (value: V) => unknown): number {
  let removed = 0;
  for (const [key, value] of map) {
    if (!dead(value)) continue;
    map.delete(key);
    removed += 1;
  }
  return removed;
}

/**
 * Every repository of the core, in memory: for unit tests and for embedders' tests.
 * It keeps the same rules as the storage adapters (the contract suite proves it).
 *
 * @example
 * const repositories = createMemoryRepositories();
 * const gatehouse = createGatehouse({ repositories, settings: defineSettings({ issuer: 'http://localhost' }), clock: createControllableClock() });
 */
export function createMemoryRepositories(): Repositories {
  const clients = new Map<string, Client>();
  const users = new Map<string, User>();
  const phones = new Map<string, Set<string>>();
  const accounts = new Map<string, Account>();
  const memberships = new Map<string, Map<string, Role>>(); // accountKey → userKey → role
  const codes = new Map<string, AuthorizationCode>();
  const grants = new Map<string, Grant>();
  const refreshTokens = new Map<string, RefreshToken>();
  /** The grants made from a code without a refresh token (docs/decisions/0193). */
  const withoutRefreshTokens = new Set<string>();
  const sessions = new Map<string, Session>();
  const interactions = new Map<string, Interaction>();
  const consents = new Map<string, Consent>(); // `${userKey}\n${clientId}` → consent
  const attributeNames = new Map<string, AttributeName[]>(); // accountKey → names in creation order
  const attributeValues = new Map<string, Map<string, string>>(); // `${accountKey}\n${userKey}` → key → value
  const messages: Message[] = [];
  const signingKeys = new Map<string, SigningKey>();

  const liveGrants = (predicate: (grant: Grant) => boolean): Grant[] =>
    [...grants.values()].filter((grant) => grant.revokedAt === null && predicate(grant));
  const revokeAll = (list: Grant[], at: Date): string[] =>
    list.map((grant) => {
      grant.revokedAt = at;
      return grant.grantId;
    });
  const deleteGrant = (grantId: string): void => {
    grants.delete(grantId);
    withoutRefreshTokens.delete(grantId);
    for (const [hash, token] of refreshTokens) if (token.grantId === grantId) refreshTokens.delete(hash);
    for (const [hash, code] of codes) if (code.grantId === grantId) codes.delete(hash);
  };
  /** Deletes a client with its grants (and their tokens), codes and consents. */
  const deleteClient = (clientId: string): boolean => {
    if (!clients.delete(clientId)) return false;
    for (const grant of [...grants.values()]) if (grant.clientId === clientId) deleteGrant(grant.grantId);
    for (const [hash, code] of codes) if (code.clientId === clientId) codes.delete(hash);
    for (const [id, consent] of consents) if (consent.clientId === clientId) consents.delete(id);
    return true;
  };
  const valuesOf = (accountKey: string, userKey: string): Map<string, string> => {
    const id = `${accountKey}\n${userKey}`;
    let values = attributeValues.get(id);
    if (!values) attributeValues.set(id, (values = new Map()));
    return values;
  };
  const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
  /** `clients.update`: false when there is no such client. */
  const updateClient = (clientId: string, changes: ClientChanges): boolean => {
    const client = clients.get(clientId);
    if (!client) return false;
    const { resourceServerFor, idTokenSignedResponseAlg: _alg, postLogoutRedirectUris: _uris, defaultMaxAge: _maxAge, requireAuthTime: _authTime, clientUri: _home, logoUri: _logo, policyUri: _policy, tosUri: _terms, firstParty: _firstParty, ...fields } = changes;
    Object.assign(client, copy(fields));
    // Changed only when given, as the port says.
    for (const key of OPENID_CLIENT_FIELDS) if (Object.hasOwn(changes, key)) (client as unknown as Record<string, unknown>)[key] = copy(changes[key]);
    clients.set(clientId, withoutEmptyOpenIdFields(client));
    if (resourceServerFor !== undefined) clients.set(clientId, stored({ ...(clients.get(clientId) as Client), resourceServerFor: [...resourceServerFor] }, 'resourceServerFor'));
    return true;
  };

  return {
    clients: {
      async create(client) {
        if (clients.has(client.clientId)) throw new DomainError('conflict', 'client id taken');
        clients.set(client.clientId, withoutEmptyOpenIdFields(stored(client, 'resourceServerFor')));
      },
      // Always as stored: nothing here keeps a copy, so `fresh` changes nothing.
      async findById(clientId) {
        const client = clients.get(clientId);
        return client && copy(client);
      },
      async update(clientId, changes, options) {
        const updated = updateClient(clientId, changes);
        // In the same step (docs/decisions/0195).
        if (updated && options?.forgetConsents === true) for (const [id, consent] of consents) if (consent.clientId === clientId) consents.delete(id);
        return updated;
      },
      async rotateRegistrationAccessToken({ clientId, currentHash, nextHash, previous, changes, forgetConsents }) {
        // No await before the write: the check and the write are one step, as one conditional write is.
        const registration = clients.get(clientId)?.registration;
        if (registration?.kind !== 'dynamic' || registration.registrationAccessTokenHash !== currentHash) return false;
        if (changes !== undefined) {
          const { metadata: _metadata, ...fields } = changes;
          updateClient(clientId, fields);
        }
        const client = clients.get(clientId) as Client;
        client.registration = {
          ...registration,
          ...(changes === undefined ? {} : { metadata: copy(changes.metadata) }),
          registrationAccessTokenHash: nextHash,
          previousRegistrationAccessToken: { hash: previous.hash, replacedAt: new Date(previous.replacedAt.getTime()) },
        };
        // In the same step: the update changed what its users allowed (docs/decisions/0195).
        if (forgetConsents === true) for (const [id, consent] of consents) if (consent.clientId === clientId) consents.delete(id);
        return true;
      },
      async updateSecretHash(clientId, clientSecretHash) {
        const client = clients.get(clientId);
        if (!client) return false;
        client.clientSecretHash = clientSecretHash;
        return true;
      },
      async delete(clientId) {
        return deleteClient(clientId);
      },
      async listByOwner(ownerUserKey) {
        return [...clients.values()].filter((client) => client.ownerUserKey === ownerUserKey).map(copy);
      },
      async listAll() {
        return [...clients.values()].map(copy);
      },
      async saveMetadataDocumentClient(client) {
        const stored = clients.get(client.clientId);
        if (!stored) {
          clients.set(client.clientId, copy(client));
          return 'created';
        }
        if (stored.registration?.kind !== 'metadata-document' || client.registration?.kind !== 'metadata-document') return 'other-client';
        const changed = stored.registration.documentHash !== client.registration.documentHash;
        const firstUsedAt = stored.registration.firstUsedAt;
        clients.set(client.clientId, { ...copy(client), createdAt: stored.createdAt, registration: { ...copy(client.registration), firstUsedAt } });
        if (changed) for (const [id, consent] of consents) if (consent.clientId === client.clientId) consents.delete(id);
        return changed ? 'changed' : 'refreshed';
      },
      async markUsed(clientId, at) {
        const registration = clients.get(clientId)?.registration;
        if (registration && registration.firstUsedAt === null) registration.firstUsedAt = new Date(at.getTime());
      },
      async purgeUnused(createdBefore) {
        const unused = [...clients.values()].filter((client) => client.registration && client.registration.firstUsedAt === null && client.createdAt < createdBefore);
        for (const client of unused) deleteClient(client.clientId);
        return unused.length;
      },
    },

    users: {
      async create(user) {
        if ([...users.values()].some((other) => sameName(other.email, user.email))) {
          throw new DomainError('conflict', 'A user with this e-mail exists.', { field: 'email' });
        }
        users.set(user.userKey, copy(user));
      },
      async findByKey(userKey) {
        const user = users.get(userKey);
        return user && copy(user);
      },
      async findWithMemberships(userKey) {
        const user = users.get(userKey);
        if (!user) return undefined;
        const found = [];
        for (const [accountKey, members] of memberships) {
          const role = members.get(userKey);
          const account = accounts.get(accountKey);
          if (role && account) found.push({ account: copy(account), role });
        }
        found.sort((a, b) => (a.account.accountKey < b.account.accountKey ? -1 : a.account.accountKey > b.account.accountKey ? 1 : 0));
        return { user: copy(user), memberships: found };
      },
      async findByEmail(email) {
        const user = [...users.values()].find((candidate) => sameName(candidate.email, email));
        return user && copy(user);
      },
      async setDisabled(userKey, at) {
        const user = users.get(userKey);
        if (!user) return false;
        if (at === null) delete user.disabledAt;
        else user.disabledAt = at;
        return true;
      },
      async list({ limit, offset }) {
        const byEmail = [...users.values()].sort((a, b) => (a.email.toLowerCase() < b.email.toLowerCase() ? -1 : a.email.toLowerCase() > b.email.toLowerCase() ? 1 : 0));
        return byEmail.slice(offset, offset + limit).map(copy);
      },
      async updatePasswordHash(userKey, passwordHash, options = {}) {
        const user = users.get(userKey);
        if (!user || (options.ifCurrent !== undefined && user.passwordHash !== options.ifCurrent)) return false;
        user.passwordHash = passwordHash;
        return true;
      },
      async addPhoneNumber(userKey, phoneNumber) {
        // As the SQL adapters' unique index: a number belongs to one user.
        for (const [owner, owned] of phones) {
          if (owner !== userKey && owned.has(phoneNumber)) throw new DomainError('conflict', 'The phone number belongs to another user.', { field: 'phone' });
        }
        let numbers = phones.get(userKey);
        if (!numbers) phones.set(userKey, (numbers = new Set()));
        numbers.add(phoneNumber);
      },
      async listPhoneNumbers(userKey) {
        return [...(phones.get(userKey) ?? [])];
      },
      async findByPhoneNumber(phoneNumber) {
        for (const [owner, owned] of phones) {
          const user = users.get(owner);
          if (owned.has(phoneNumber) && user) return copy(user);
        }
        return undefined;
      },
      async delete(userKey) {
        if (!users.delete(userKey)) return undefined;
        const numbers = phones.get(userKey) ?? new Set<string>();
        phones.delete(userKey);
        let memberCount = 0;
        for (const members of memberships.values()) if (members.delete(userKey)) memberCount += 1;
        let attributeValueCount = 0;
        for (const [id, values] of attributeValues) {
          if (id.endsWith(`\n${userKey}`)) {
            attributeValueCount += values.size;
            attributeValues.delete(id);
          }
        }
        const before = messages.length;
        const kept = messages.filter((message) => message.authorUserKey !== userKey && !numbers.has(message.ownerPhoneNumber));
        messages.splice(0, messages.length, ...kept);
        return { phoneNumbers: numbers.size, memberships: memberCount, attributeValues: attributeValueCount, messages: before - kept.length };
      },
    },

    accounts: {
      async create(account) {
        accounts.set(account.accountKey, copy(account));
      },
      async findByKey(accountKey) {
        const account = accounts.get(accountKey);
        return account && copy(account);
      },
      async setMembership(accountKey, userKey, role) {
        let members = memberships.get(accountKey);
        if (!members) memberships.set(accountKey, (members = new Map()));
        members.set(userKey, role);
      },
      async findRole(accountKey, userKey) {
        if (!accounts.has(accountKey)) return undefined;
        return memberships.get(accountKey)?.get(userKey);
      },
    },

    codes: {
      async save(code) {
        codes.set(code.codeHash, storedCode(code));
      },
      async findByHash(codeHash) {
        const code = codes.get(codeHash);
        return code && copy(code);
      },
      async findByHashWithOwnerEmail(codeHash) {
        const code = codes.get(codeHash);
        return code && { code: copy(code), ownerEmail: users.get(code.userKey)?.email };
      },
      async deleteUnused(userKey, clientId) {
        return deleteWhere(codes, (code) => code.consumedAt === null && code.userKey === userKey && (clientId === undefined || code.clientId === clientId));
      },
      async purge(expiredBefore) {
        return deleteWhere(codes, (code) => code.consumedAt === null ? code.expiresAt < expiredBefore : !code.grantId || !grants.has(code.grantId));
      },
    },

    grants: {
      async create(grant) {
        grants.set(grant.grantId, stored(grant, 'resources'));
      },
      async createFromCode({ grant, codeHash, refreshToken }) {
        const code = codes.get(codeHash);
        if (!code || code.consumedAt) return false;
        // Product logout outruns the codes of its session (docs/decisions/0005-codes-die-with-their-session.md).
        if (code.sessionId !== null && sessions.get(code.sessionId)?.endedAt !== null) return false;
        // As the SQL adapters' primary keys do: a refresh token hash is stored once.
        if (refreshToken !== undefined && refreshTokens.has(refreshToken.tokenHash)) throw new Error(`refresh token ${refreshToken.tokenHash} exists`);
        // Checked first, then written without an await in between: all or nothing.
        grants.set(grant.grantId, stored(grant, 'resources'));
        code.consumedAt = grant.createdAt;
        code.grantId = grant.grantId;
        if (refreshToken !== undefined) refreshTokens.set(refreshToken.tokenHash, copy(refreshToken));
        else withoutRefreshTokens.add(grant.grantId);
        return true;
      },
      async findById(grantId) {
        const grant = grants.get(grantId);
        return grant && copy(grant);
      },
      async revoke(grantId, at) {
        const grant = grants.get(grantId);
        if (!grant || grant.revokedAt) return false;
        grant.revokedAt = at;
        return true;
      },
      async revokeBySession(sessionId, at) {
        return revokeAll(liveGrants((grant) => grant.sessionId === sessionId), at);
      },
      async revokeByUser(userKey, at) {
        return revokeAll(liveGrants((grant) => grant.userKey === userKey), at);
      },
      async revokeByUserAndClient(userKey, clientId, at) {
        return revokeAll(liveGrants((grant) => grant.userKey === userKey && grant.clientId === clientId), at);
      },
      async listActiveByUser(userKey) {
        return liveGrants((grant) => grant.userKey === userKey)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map(copy);
      },
      async listActiveByClient(clientId) {
        return liveGrants((grant) => grant.clientId === clientId)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map(copy);
      },
      async deleteByUser(userKey) {
        const ids = [...grants.values()].filter((grant) => grant.userKey !== null && grant.userKey === userKey).map((grant) => grant.grantId);
        ids.forEach(deleteGrant);
        return ids;
      },
      async purge(before) {
        // Revoked grants, and grants made without a refresh token (client credentials, a client
        // that may not refresh) whose one access token has expired (docs/decisions/0193).
        const madeWithoutRefreshToken = (grant: Grant) => grant.userKey === null || withoutRefreshTokens.has(grant.grantId);
        const dead = [...grants.values()].filter((grant) => (grant.revokedAt !== null ? grant.revokedAt : madeWithoutRefreshToken(grant) ? grant.createdAt : before) < before);
        dead.forEach((grant) => deleteGrant(grant.grantId));
        return dead.length;
      },
    },

    refreshTokens: {
      async save(token) {
        refreshTokens.set(token.tokenHash, copy(token));
      },
      async findByHash(tokenHash) {
        const token = refreshTokens.get(tokenHash);
        return token && copy(token);
      },
      async findWithGrant(tokenHash) {
        const token = refreshTokens.get(tokenHash);
        const grant = token && grants.get(token.grantId);
        return token && grant && { token: copy(token), grant: copy(grant) };
      },
      async findWithGrantAndOwnerEmail(tokenHash) {
        const token = refreshTokens.get(tokenHash);
        const grant = token && grants.get(token.grantId);
        return token && grant && { token: copy(token), grant: copy(grant), ownerEmail: grant.userKey === null ? undefined : users.get(grant.userKey)?.email };
      },
      async rotate({ tokenHash, next, at, graceSince }) {
        // Checked, then written without an await in between: one transaction, as the SQL adapters' is.
        const token = refreshTokens.get(tokenHash);
        if (!token || token.supersededAt) return 'reused';
        if (refreshTokens.has(next.tokenHash)) throw new Error(`refresh token ${next.tokenHash} exists`);
        if (token.rotatedAt === null) {
          token.rotatedAt = at;
          refreshTokens.set(next.tokenHash, copy(next));
          return 'rotated';
        }
        if (token.rotatedAt < graceSince) return 'reused';
        // Once the token it was rotated to was used, the response was not lost: a replay (RFC 9700 §4.14.2).
        const rotatedAt = token.rotatedAt;
        if ([...refreshTokens.values()].some((other) => other.grantId === token.grantId && other.tokenHash !== tokenHash && other.rotatedAt !== null && other.rotatedAt >= rotatedAt)) return 'reused';
        for (const other of refreshTokens.values()) {
          if (other.grantId === token.grantId && other.rotatedAt === null && other.supersededAt === null) other.supersededAt = at;
        }
        refreshTokens.set(next.tokenHash, copy(next));
        return 'replaced';
      },
      async touch(tokenHash, at) {
        const token = refreshTokens.get(tokenHash);
        if (token) token.lastUsedAt = at;
      },
    },

    sessions: {
      async create(session) {
        sessions.set(session.sessionId, copy(session));
      },
      async findById(sessionId) {
        const session = sessions.get(sessionId);
        return session && copy(session);
      },
      async end(sessionId, at) {
        const session = sessions.get(sessionId);
        if (!session || session.endedAt) return false;
        session.endedAt = at;
        return true;
      },
      async listActiveByUser(userKey, now) {
        return [...sessions.values()]
          .filter((session) => session.userKey === userKey && session.endedAt === null && session.expiresAt > now)
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
          .map(copy);
      },
      async endByUser(userKey, at) {
        const ended: string[] = [];
        for (const session of sessions.values()) {
          if (session.userKey !== userKey || session.endedAt) continue;
          session.endedAt = at;
          ended.push(session.sessionId);
        }
        return ended;
      },
      async endWithGrants(sessionId, at) {
        const session = sessions.get(sessionId);
        const ended = session !== undefined && session.endedAt === null;
        if (session && ended) session.endedAt = at;
        return { ended, revokedGrantIds: revokeAll(liveGrants((grant) => grant.sessionId === sessionId), at) };
      },
      async handOver(sessionId, nextSessionId, at) {
        const session = sessions.get(sessionId);
        if (session === undefined || session.endedAt !== null) return { ended: false, movedGrantIds: [] };
        session.endedAt = at;
        const moved = liveGrants((grant) => grant.sessionId === sessionId);
        for (const grant of moved) grant.sessionId = nextSessionId;
        return { ended: true, movedGrantIds: moved.map((grant) => grant.grantId) };
      },
      async deleteByUser(userKey) {
        return deleteWhere(sessions, (session) => session.userKey === userKey);
      },
      async purge(before) {
        return deleteWhere(sessions, (session) => session.expiresAt < before || (session.endedAt && session.endedAt < before));
      },
    },

    interactions: {
      async create(interaction) {
        interactions.set(interaction.interactionHash, copy(interaction));
      },
      async findByHash(interactionHash) {
        const interaction = interactions.get(interactionHash);
        return interaction && copy(interaction);
      },
      async consume(interactionHash, kind, at) {
        const interaction = interactions.get(interactionHash);
        if (!interaction || interaction.kind !== kind || interaction.consumedAt || interaction.expiresAt <= at) return undefined;
        interaction.consumedAt = at;
        return copy(interaction);
      },
      async createAnonymous(interaction, cap) {
        if ([...interactions.values()].filter((stored) => stored.userKey === null).length >= cap) return false;
        interactions.set(interaction.interactionHash, copy(interaction));
        return true;
      },
      async deleteByUser(userKey) {
        return deleteWhere(interactions, (interaction) => interaction.userKey !== null && interaction.userKey === userKey);
      },
      async purge(expiredBefore) {
        return deleteWhere(interactions, (interaction) => interaction.expiresAt < expiredBefore);
      },
    },

    consents: {
      async remember(consent) {
        const id = `${consent.userKey}\n${consent.clientId}`;
        const existing = consents.get(id);
        const merged = (a: readonly string[] = [], b: readonly string[] = []) => [...new Set([...a, ...b])].sort();
        const scopes = merged(existing?.scopes, consent.scopes);
        // Per resource (docs/decisions/0200): the scopes allowed at each, added to those before.
        const resourceScopes: Record<string, string[]> = { ...existing?.resourceScopes };
        for (const [resource, allowed] of Object.entries(consent.resourceScopes ?? {})) resourceScopes[resource] = merged(resourceScopes[resource], allowed);
        const grantedAt = existing && existing.grantedAt > consent.grantedAt ? existing.grantedAt : consent.grantedAt;
        const { resourceScopes: _given, ...rest } = consent;
        consents.set(id, copy({ ...rest, scopes, ...(Object.keys(resourceScopes).length === 0 ? {} : { resourceScopes }), grantedAt }));
      },
      async find(userKey, clientId) {
        const consent = consents.get(`${userKey}\n${clientId}`);
        return consent && copy(consent);
      },
      async listByUser(userKey) {
        return [...consents.values()]
          .filter((consent) => consent.userKey === userKey)
          .sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0))
          .map(copy);
      },
      async forget(userKey, clientId) {
        return consents.delete(`${userKey}\n${clientId}`);
      },
      async forgetByUser(userKey) {
        return deleteWhere(consents, (consent) => consent.userKey === userKey);
      },
    },

    attributes: {
      async create(accountKey, attribute, maxPerAccount) {
        const names = attributeNames.get(accountKey) ?? [];
        if (names.some((existing) => attributeNameKey(existing.name) === attributeNameKey(attribute.name))) return 'duplicate-name';
        if (names.length >= maxPerAccount) return 'limit-reached';
        names.push(copy(attribute));
        attributeNames.set(accountKey, names);
        return 'created';
      },
      async list(accountKey, page) {
        const names = attributeNames.get(accountKey) ?? [];
        return { results: names.slice(page.offset, page.offset + page.limit).map(copy), total: names.length };
      },
      async find(accountKey, key) {
        const found = attributeNames.get(accountKey)?.find((attribute) => attribute.key === key);
        return found && copy(found);
      },
      async rename(accountKey, key, name) {
        const names = attributeNames.get(accountKey) ?? [];
        const target = names.find((attribute) => attribute.key === key);
        if (!target) return 'not-found';
        if (names.some((other) => other.key !== key && attributeNameKey(other.name) === attributeNameKey(name))) return 'duplicate-name';
        target.name = name;
        return 'renamed';
      },
      async delete(accountKey, key) {
        const names = attributeNames.get(accountKey) ?? [];
        const index = names.findIndex((attribute) => attribute.key === key);
        if (index < 0) return false;
        names.splice(index, 1);
        for (const [id, values] of attributeValues) if (id.startsWith(`${accountKey}\n`)) values.delete(key);
        return true;
      },
      async setUserValues(accountKey, userKey, changes) {
        const known = new Set((attributeNames.get(accountKey) ?? []).map((attribute) => attribute.key));
        const unknownKeys = changes.map((change) => change.key).filter((key) => !known.has(key));
        if (unknownKeys.length > 0) return { unknownKeys };
        const values = valuesOf(accountKey, userKey);
        for (const change of changes) {
          if (change.value === null) values.delete(change.key);
          else values.set(change.key, change.value);
        }
        return { unknownKeys: [] };
      },
      async listUserValues(accountKey, userKey) {
        const values = valuesOf(accountKey, userKey);
        return (attributeNames.get(accountKey) ?? [])
          .filter((attribute) => values.has(attribute.key))
          .map((attribute) => ({ key: attribute.key, name: attribute.name, value: values.get(attribute.key) as string }));
      },
    },

    messages: {
      async save(message) {
        messages.push(copy(message));
      },
      async listByOwner(ownerPhoneNumber, page) {
        const newestFirst = (a: Message, b: Message): number =>
          b.timestamp.getTime() - a.timestamp.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
        const before = page.before;
        return messages
          .filter((message) => message.ownerPhoneNumber === ownerPhoneNumber)
          .filter((message) => !before || newestFirst(message, { ...message, timestamp: before.timestamp, id: before.id }) > 0)
          .sort(newestFirst)
          .slice(0, page.limit)
          .map(copy);
      },
    },

    signingKeys: {
      async list() {
        return [...signingKeys.values()].map(copy);
      },
      async save(key) {
        signingKeys.set(key.kid, copy(key));
      },
      async retire(kid, at) {
        const key = signingKeys.get(kid);
        if (key && !key.retiredAt) key.retiredAt = at;
      },
      async purgeRetiredBefore(before) {
        return deleteWhere(signingKeys, (key) => key.retiredAt && key.retiredAt < before);
      },
    },
  };
}
