import { clientOrigin, DEFAULT_GRANT_TYPES, DomainError, E164, GRANT_TYPES, isGrantType, isPublicClient, parseScope, phoneNumberTaken, tokenEndpointAuthMethod, type Client, type Gatehouse, type Role } from '@gatehouse/core';
import { describeDatabase, type Config } from '../config.js';
import { UsageError } from './usage.js';

/** What a command prints: one JSON object for `--json`, readable lines otherwise. */
export interface CommandOutput {
  json: Record<string, unknown>;
  text: string;
}

export interface CommandContext {
  gatehouse: Gatehouse;
  config: Config;
  /** All of standard input, as text (read only when a command asks, e.g. `--password-stdin`). */
  readStdin(): Promise<string>;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

export interface Command {
  path: readonly string[];
  usage: string;
  options: Record<string, OptionSpec>;
  /** Names of the positional arguments after the command path, all required. */
  positionals: readonly string[];
  /** False: the command opens no database (`health`); by default every command opens and migrates it. */
  database?: false;
  run(context: CommandContext, values: OptionValues, positionals: string[]): Promise<CommandOutput>;
}

function required(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function list(values: OptionValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/**
 * `--password P` or `--password-stdin` (exactly one): a password on the command line shows in
 * `ps` and the shell history, one read from standard input does not. One trailing newline (from
 * `echo` or a file) is not part of the password.
 */
async function passwordFrom(values: OptionValues, readStdin: () => Promise<string>): Promise<string> {
  const fromStdin = values['password-stdin'] === true;
  if (fromStdin && values.password !== undefined) throw new UsageError('give --password or --password-stdin, not both');
  if (!fromStdin) {
    if (values.password === undefined) throw new UsageError('--password or --password-stdin is required');
    return required(values, 'password');
  }
  const password = (await readStdin()).replace(/\r?\n$/, '');
  if (password === '') throw new UsageError('--password-stdin: standard input held no password');
  return password;
}

/** The resources a client serves as a resource server (docs/decisions/0112), only when it serves any. */
const resourceServerJson = (client: Client) => (client.resourceServerFor === undefined || client.resourceServerFor.length === 0 ? {} : { resourceServerFor: client.resourceServerFor });

/** The readable line of the resources a client serves, or none. */
const resourceServerLine = (client: Client, indent: string) => (client.resourceServerFor === undefined || client.resourceServerFor.length === 0 ? '' : `\n${indent}resource server of: ${client.resourceServerFor.join(' ')}`);

/** A client's OpenID Connect metadata (docs/decisions/0136), only the fields it has. */
const openIdJson = (client: Client) => ({
  ...(client.idTokenSignedResponseAlg === undefined ? {} : { idTokenSignedResponseAlg: client.idTokenSignedResponseAlg }),
  ...(client.postLogoutRedirectUris === undefined || client.postLogoutRedirectUris.length === 0 ? {} : { postLogoutRedirectUris: client.postLogoutRedirectUris }),
  ...(client.defaultMaxAge === undefined ? {} : { defaultMaxAge: client.defaultMaxAge }),
  ...(client.requireAuthTime === true ? { requireAuthTime: true } : {}),
});

/** The readable lines of a client's OpenID Connect metadata, or none. */
function openIdLines(client: Client, indent: string): string {
  const lines = [
    client.idTokenSignedResponseAlg === undefined ? undefined : `ID tokens: ${client.idTokenSignedResponseAlg}`,
    client.postLogoutRedirectUris === undefined || client.postLogoutRedirectUris.length === 0 ? undefined : `post-logout redirect URIs: ${client.postLogoutRedirectUris.join(' ')}`,
    client.defaultMaxAge === undefined ? undefined : `default max age: ${client.defaultMaxAge} s`,
    client.requireAuthTime === true ? 'requires auth_time' : undefined,
  ].filter((line) => line !== undefined);
  return lines.map((line) => `\n${indent}${line}`).join('');
}

/** The OpenID Connect options of `clients create` and `clients set-openid`, as a registration reads them. */
const OPENID_OPTIONS: Record<string, OptionSpec> = {
  'id-token-signed-response-alg': { type: 'string' },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'default-max-age': { type: 'string' },
  'require-auth-time': { type: 'boolean' },
};

/**
 * The OpenID Connect metadata the options give; on `set-openid` (`update`), `--no-post-logout-redirect-uris`
 * and `--default-max-age none` remove, and what is not given stays.
 */
function openIdOptions(values: OptionValues, update: boolean) {
  const alg = optional(values, 'id-token-signed-response-alg');
  const maxAge = optional(values, 'default-max-age');
  if (maxAge !== undefined && !/^(\d{1,9}|none)$/.test(maxAge)) throw new UsageError('--default-max-age must be a whole number of seconds (or none)');
  if (maxAge === 'none' && !update) throw new UsageError('--default-max-age must be a whole number of seconds');
  const uris = list(values, 'post-logout-redirect-uri');
  return {
    ...(alg === undefined ? {} : { idTokenSignedResponseAlg: alg }),
    ...(uris.length > 0 ? { postLogoutRedirectUris: uris } : values['no-post-logout-redirect-uris'] === true ? { postLogoutRedirectUris: [] } : {}),
    ...(maxAge === undefined ? {} : { defaultMaxAge: maxAge === 'none' ? null : Number(maxAge) }),
    ...(values['require-auth-time'] === true ? { requireAuthTime: true } : values['no-require-auth-time'] === true ? { requireAuthTime: false } : {}),
  };
}

const clientJson = (client: Client) => ({
  clientId: client.clientId,
  name: client.name,
  tokenEndpointAuthMethod: tokenEndpointAuthMethod(client),
  redirectUris: client.redirectUris,
  scopes: client.scopes,
  grantTypes: client.grantTypes,
  pkceRequired: client.pkceRequired,
  ownerUserKey: client.ownerUserKey,
  createdAt: client.createdAt.toISOString(),
  ...resourceServerJson(client),
  // How it came to be (docs/decisions/0115, 0117): static, dynamic or metadata-document, and when a self-registered one was first used.
  registration: clientOrigin(client).registration,
  ...(client.registration === undefined ? {} : { firstUsedAt: client.registration.firstUsedAt?.toISOString() ?? null }),
  ...openIdJson(client),
});

/** What `clients list` adds after a client's name: its type, and how a self-registered one came to be. */
function clientMarks(client: Client): string {
  const marks = [isPublicClient(client) ? 'public' : undefined];
  const origin = clientOrigin(client);
  if (origin.registration === 'dynamic') marks.push('registered itself');
  if (origin.registration === 'metadata-document') marks.push(`metadata document at ${origin.documentHost ?? ''}`);
  if (client.registration !== undefined && client.registration.firstUsedAt === null) marks.push('never used');
  const shown = marks.filter((mark) => mark !== undefined);
  return shown.length === 0 ? '' : `  (${shown.join(', ')})`;
}

export const COMMANDS: readonly Command[] = [
  {
    path: ['migrate'],
    usage: 'gatehouse migrate [--json]',
    options: {},
    positionals: [],
    // The runner migrates before every command: nothing is left to do here.
    run: async ({ config }) => ({
      json: { migrated: true, database: config.database.kind },
      text: `Database is up to date (${describeDatabase(config)}).`,
    }),
  },
  {
    path: ['accounts', 'create'],
    usage: 'gatehouse accounts create --name N [--json]',
    options: { name: { type: 'string' } },
    positionals: [],
    async run({ gatehouse }, values) {
      const account = await gatehouse.createAccount({ name: required(values, 'name') });
      return { json: { accountKey: account.accountKey, name: account.name }, text: `Created account "${account.name}": accountKey ${account.accountKey}` };
    },
  },
  {
    path: ['users', 'create'],
    usage:
      'gatehouse users create --email E --password P|--password-stdin [--given-name G] [--family-name F] [--account KEY [--role admin|member]] [--phone +15551234567] [--json]',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'given-name': { type: 'string' },
      'family-name': { type: 'string' },
      account: { type: 'string' },
      role: { type: 'string' },
      phone: { type: 'string', multiple: true },
    },
    positionals: [],
    async run({ gatehouse, readStdin }, values) {
      const email = required(values, 'email');
      const password = await passwordFrom(values, readStdin);
      const accountKey = optional(values, 'account');
      const role = optional(values, 'role');
      if (role !== undefined && role !== 'admin' && role !== 'member') throw new UsageError('--role must be admin or member');
      if (role !== undefined && accountKey === undefined) throw new UsageError('--role needs --account');
      const phones = list(values, 'phone');
      const badPhone = phones.find((phone) => !E164.test(phone));
      if (badPhone !== undefined) throw new UsageError(`--phone ${badPhone} is not an E.164 number (like +15551234567)`);
      // Check the account before writing anything, so a typo leaves no half-made user behind.
      if (accountKey !== undefined && !(await gatehouse.findAccount(accountKey))) {
        throw new UsageError(`--account ${accountKey}: no such account`);
      }
      // A number belongs to one user (docs/decisions/0006-one-owner-per-phone-number.md). The
      // database decides; this look-up only keeps a refused number from leaving a user behind.
      for (const phoneNumber of phones) {
        if ((await gatehouse.findPhoneNumberOwner(phoneNumber)) !== undefined) throw phoneNumberTaken(phoneNumber);
      }
      const user = await gatehouse.createUser({
        email,
        password,
        givenName: optional(values, 'given-name'),
        familyName: optional(values, 'family-name'),
      });
      if (accountKey !== undefined) await gatehouse.setMembership({ accountKey, userKey: user.userKey, role: (role ?? 'member') as Role });
      for (const phoneNumber of phones) await gatehouse.addPhoneNumber({ userKey: user.userKey, phoneNumber });
      const extras = [
        accountKey === undefined ? undefined : `${role ?? 'member'} of account ${accountKey}`,
        phones.length === 0 ? undefined : `phone ${phones.join(', ')}`,
      ].filter((part) => part !== undefined);
      return {
        json: { userKey: user.userKey, email: user.email },
        text: `Created user ${user.email}: userKey ${user.userKey}${extras.length ? ` (${extras.join('; ')})` : ''}`,
      };
    },
  },
  {
    path: ['users', 'set-password'],
    usage: 'gatehouse users set-password --email E --password P|--password-stdin [--json]',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
    positionals: [],
    async run({ gatehouse, readStdin }, values) {
      const email = required(values, 'email');
      const password = await passwordFrom(values, readStdin);
      const user = await gatehouse.findUserByEmail(email);
      if (!user) throw new UsageError(`--email ${email}: no user with this e-mail`);
      // The user is signed out everywhere: sessions ended, grants revoked (docs/decisions/0074-password-reset-by-the-operator.md).
      const { endedSessionIds, revokedGrantIds } = await gatehouse.changePassword({ userKey: user.userKey, newPassword: password });
      return {
        json: { userKey: user.userKey, email: user.email, endedSessions: endedSessionIds.length, revokedGrants: revokedGrantIds.length },
        text: `New password for ${user.email} (userKey ${user.userKey}): ${endedSessionIds.length} sign-in session(s) ended, ${revokedGrantIds.length} grant(s) revoked.`,
      };
    },
  },
  {
    path: ['clients', 'create'],
    usage:
      'gatehouse clients create --name N --redirect-uri U [--redirect-uri U2 …] --scope "s1 s2" [--owner EMAIL] [--pkce-required] [--public] [--grant-type authorization_code|refresh_token|client_credentials …] [--resource-server-for URI …] [--id-token-signed-response-alg RS256|ES256] [--post-logout-redirect-uri U …] [--default-max-age SECONDS] [--require-auth-time] [--json]',
    options: {
      ...OPENID_OPTIONS,
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      owner: { type: 'string' },
      'pkce-required': { type: 'boolean' },
      public: { type: 'boolean' },
      'grant-type': { type: 'string', multiple: true },
      'resource-server-for': { type: 'string', multiple: true },
    },
    positionals: [],
    async run({ gatehouse }, values) {
      const name = required(values, 'name');
      const isPublic = values.public === true;
      const named = list(values, 'grant-type');
      const unknown = named.find((grantType) => !isGrantType(grantType));
      if (unknown !== undefined) throw new UsageError(`--grant-type ${unknown}: one of ${GRANT_TYPES.join(', ')}`);
      const grantTypes = named.length === 0 ? [...DEFAULT_GRANT_TYPES] : named;
      const redirectUris = list(values, 'redirect-uri');
      // A client without the code flow needs no redirect URI (docs/decisions/0028-grant-types-per-client.md).
      if (redirectUris.length === 0 && grantTypes.includes('authorization_code')) throw new UsageError('--redirect-uri is required');
      const scopes = parseScope(list(values, 'scope').join(' '));
      if (scopes.length === 0) throw new UsageError('--scope is required (for example --scope "messaging.v1.send messaging.v1.read")');
      const ownerEmail = optional(values, 'owner');
      let ownerUserKey: string | null = null;
      if (ownerEmail !== undefined) {
        const owner = await gatehouse.findUserByEmail(ownerEmail);
        if (!owner) throw new UsageError(`--owner ${ownerEmail}: no user with this e-mail`);
        ownerUserKey = owner.userKey;
      }
      const { client, clientSecret } = await gatehouse.registerClient({
        name,
        redirectUris,
        scopes,
        ownerUserKey,
        pkceRequired: values['pkce-required'] === true,
        public: isPublic,
        grantTypes,
        resourceServerFor: list(values, 'resource-server-for'),
        ...openIdOptions(values, false),
      });
      return {
        json: { clientId: client.clientId, clientSecret, name: client.name, redirectUris: client.redirectUris, scopes: client.scopes, grantTypes: client.grantTypes, ...resourceServerJson(client), ...openIdJson(client) },
        text: [
          `Created ${clientSecret === null ? 'public ' : ''}client "${client.name}"`,
          `  client_id:     ${client.clientId}`,
          clientSecret === null
            ? '  client_secret: none (a public client: client_id alone at the token endpoint, PKCE S256 always)'
            : `  client_secret: ${clientSecret}   (shown once: only its hash is stored)`,
          `  redirect URIs: ${client.redirectUris.length === 0 ? '(none)' : client.redirectUris.join(' ')}`,
          `  scopes:        ${client.scopes.join(' ')}`,
          `  grant types:   ${client.grantTypes.join(' ')}${resourceServerLine(client, '  ')}${openIdLines(client, '  ')}`,
        ].join('\n'),
      };
    },
  },
  {
    path: ['clients', 'list'],
    usage: 'gatehouse clients list [--json]',
    options: {},
    positionals: [],
    async run({ gatehouse }) {
      const clients = await gatehouse.listClients();
      return {
        json: { clients: clients.map(clientJson) },
        text:
          clients.length === 0
            ? 'No clients.'
            : clients
                .map(
                  (client) =>
                    `${client.clientId}  ${client.name}${clientMarks(client)}\n  redirect URIs: ${client.redirectUris.join(' ')}\n  scopes: ${client.scopes.join(' ')}\n  grant types: ${client.grantTypes.join(' ')}${resourceServerLine(client, '  ')}${openIdLines(client, '  ')}`,
                )
                .join('\n'),
      };
    },
  },
  {
    path: ['clients', 'set-resource-server'],
    usage: 'gatehouse clients set-resource-server CLIENT_ID [--resource-server-for URI …] [--json]',
    options: { 'resource-server-for': { type: 'string', multiple: true } },
    positionals: ['CLIENT_ID'],
    async run({ gatehouse }, values, [clientId]) {
      // The resources the client serves as a resource server (RFC 7662 §2.1; docs/decisions/0112); none: it serves none.
      const existing = (await gatehouse.listClients()).find((client) => client.clientId === clientId);
      if (!existing) throw new DomainError('not_found', 'No such client.');
      const client = await gatehouse.updateClient({
        ownerUserKey: null,
        clientId: existing.clientId,
        name: existing.name,
        redirectUris: existing.redirectUris,
        scopes: existing.scopes,
        resourceServerFor: list(values, 'resource-server-for'),
      });
      const served = client.resourceServerFor ?? [];
      return {
        json: { clientId: client.clientId, resourceServerFor: served },
        text: served.length === 0 ? `Client ${client.clientId} is no resource server now.` : `Client ${client.clientId} is the resource server of: ${served.join(' ')}`,
      };
    },
  },
  {
    path: ['clients', 'set-openid'],
    usage:
      'gatehouse clients set-openid CLIENT_ID [--id-token-signed-response-alg RS256|ES256] [--post-logout-redirect-uri U …|--no-post-logout-redirect-uris] [--default-max-age SECONDS|none] [--require-auth-time|--no-require-auth-time] [--json]',
    options: { ...OPENID_OPTIONS, 'no-post-logout-redirect-uris': { type: 'boolean' }, 'no-require-auth-time': { type: 'boolean' } },
    positionals: ['CLIENT_ID'],
    async run({ gatehouse }, values, [clientId]) {
      // A client's OpenID Connect metadata (docs/decisions/0136): what is given changes, the rest stays.
      const existing = (await gatehouse.listClients()).find((client) => client.clientId === clientId);
      if (!existing) throw new DomainError('not_found', 'No such client.');
      const client = await gatehouse.updateClient({
        ownerUserKey: null,
        clientId: existing.clientId,
        name: existing.name,
        redirectUris: existing.redirectUris,
        scopes: existing.scopes,
        ...openIdOptions(values, true),
      });
      return { json: { clientId: client.clientId, ...openIdJson(client) }, text: `Client ${client.clientId}:${openIdLines(client, '  ') || '\n  (no OpenID Connect metadata: RS256 ID tokens, no post-logout redirect URI)'}` };
    },
  },
  {
    path: ['clients', 'rotate-secret'],
    usage: 'gatehouse clients rotate-secret CLIENT_ID [--json]',
    options: {},
    positionals: ['CLIENT_ID'],
    async run({ gatehouse }, _values, [clientId]) {
      const { client, clientSecret } = await gatehouse.rotateClientSecret({ ownerUserKey: null, clientId: clientId as string });
      return {
        json: { clientId: client.clientId, clientSecret },
        text: `New secret for client ${client.clientId} (the old one no longer works):\n  client_secret: ${clientSecret}   (shown once)`,
      };
    },
  },
  {
    path: ['clients', 'delete'],
    usage: 'gatehouse clients delete CLIENT_ID [--json]',
    options: {},
    positionals: ['CLIENT_ID'],
    async run({ gatehouse }, _values, [clientId]) {
      await gatehouse.deleteClient({ ownerUserKey: null, clientId: clientId as string });
      return { json: { clientId, deleted: true }, text: `Deleted client ${clientId} with its grants and tokens.` };
    },
  },
  {
    path: ['keys', 'rotate'],
    usage: 'gatehouse keys rotate [--json]',
    options: {},
    positionals: [],
    async run({ gatehouse, config }) {
      // With OpenID Connect, an RS256 key (ID tokens) is rotated with the ES256 one (docs/decisions/0131).
      const { kid, signsFrom, keys } = await gatehouse.rotateSigningKey();
      // docs/operations.md (key rotation): a new key signs only once every cached JWKS lists it.
      const waitSeconds = Math.round((signsFrom.getTime() - gatehouse.clock.now().getTime()) / 1000);
      const { jwksMaxAgeSeconds } = gatehouse.settings;
      return {
        json: { kid, signsFrom: signsFrom.toISOString(), keys },
        text:
          `New signing key ${kid}${keys.length > 1 ? ` (with ${keys.filter((key) => key.kid !== kid).map((key) => `${key.alg} key ${key.kid}`).join(', ')} for ID tokens)` : ''}. ` +
          `Running servers publish it within 5 s and sign with it from ${signsFrom.toISOString()} ` +
          `(in ${waitSeconds} s: the JWKS may be cached ${jwksMaxAgeSeconds} s); the previous key signs until then and stays in the JWKS ` +
          `until its tokens expire (${config.accessTokenTtlSeconds} s after the hand-over).`,
      };
    },
  },
];
