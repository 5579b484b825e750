import { DomainError, E164, phoneNumberTaken, type Role } from '@gatehouse/core';
// The commands @gatehouse/cli publishes are written once there; this CLI runs the same ones (docs/decisions/0147).
import {
  clientsCreate,
  clientsDelete,
  clientsList,
  clientsShow,
  clientsUpdate,
  keysList,
  keysRotate,
  LINK_OPTIONS,
  linkLines,
  linkOptions,
  listOption as list,
  migrate,
  openIdJson,
  openIdLines,
  OPENID_OPTIONS,
  openIdOptions,
  optionalOption as optional,
  presentationJson,
  requiredOption as required,
  type CommandContext as SharedCommandContext,
  type CommandOutput,
  type OptionSpec,
  type OptionValues,
} from '@gatehouse/cli';
import type { Config } from '../config.js';
import { userByEmail } from './lookups.js';
import { UsageError } from './usage.js';

export type { CommandOutput, OptionSpec, OptionValues };

export interface CommandContext extends SharedCommandContext {
  config: Config;
}

export interface Command {
  path: readonly string[];
  usage: string;
  options: Record<string, OptionSpec>;
  /** Names of the positional arguments after the command path, all required. */
  positionals: readonly string[];
  /** False: the command opens no database (`health`); by default every command opens and migrates it. */
  database?: false;
  /** What `--help` prints after the usage line (the commands of @gatehouse/cli carry theirs). */
  help?: string;
  run(context: CommandContext, values: OptionValues, positionals: string[]): Promise<CommandOutput>;
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

export const COMMANDS: readonly Command[] = [
  migrate,
  {
    path: ['accounts', 'create'],
    usage: 'gatehouse accounts create --name N [--json]',
    options: { name: { type: 'string' } },
    positionals: [],
    async run({ product }, values) {
      const account = await product.createAccount({ name: required(values, 'name') });
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
    async run({ product, readStdin }, values) {
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
      if (accountKey !== undefined && !(await product.findAccount(accountKey))) {
        throw new UsageError(`--account ${accountKey}: no such account`);
      }
      // A number belongs to one user (docs/decisions/0006-one-owner-per-phone-number.md). The
      // database decides; this look-up only keeps a refused number from leaving a user behind.
      for (const phoneNumber of phones) {
        if ((await product.findPhoneNumberOwner(phoneNumber)) !== undefined) throw phoneNumberTaken(phoneNumber);
      }
      const user = await product.createUser({
        email,
        password,
        givenName: optional(values, 'given-name'),
        familyName: optional(values, 'family-name'),
      });
      if (accountKey !== undefined) await product.setMembership({ accountKey, userKey: user.userKey, role: (role ?? 'member') as Role });
      for (const phoneNumber of phones) await product.addPhoneNumber({ userKey: user.userKey, phoneNumber });
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
    async run({ product, readStdin }, values) {
      const email = required(values, 'email');
      const password = await passwordFrom(values, readStdin);
      // An unknown e-mail is `not_found` (exit 1), as in every command (docs/operations.md, "Command line for operators").
      const user = await userByEmail(product, email);
      // The user is signed out everywhere: sessions ended, grants revoked (docs/decisions/0074-password-reset-by-the-operator.md).
      const { endedSessionIds, revokedGrantIds } = await product.changePassword({ userKey: user.userKey, newPassword: password });
      return {
        json: { userKey: user.userKey, email: user.email, endedSessions: endedSessionIds.length, revokedGrants: revokedGrantIds.length },
        text: `New password for ${user.email} (userKey ${user.userKey}): ${endedSessionIds.length} sign-in session(s) ended, ${revokedGrantIds.length} grant(s) revoked.`,
      };
    },
  },
  clientsCreate,
  clientsList,
  clientsShow,
  clientsUpdate,
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
    path: ['clients', 'set-links'],
    usage: "gatehouse clients set-links CLIENT_ID [--client-uri U] [--logo-uri U] [--policy-uri U] [--tos-uri U] [--json]   (an empty value, '', removes one)",
    options: LINK_OPTIONS,
    positionals: ['CLIENT_ID'],
    async run({ gatehouse }, values, [clientId]) {
      // What the consent page links to (docs/decisions/0155): what is given changes, the rest stays.
      const existing = (await gatehouse.listClients()).find((client) => client.clientId === clientId);
      if (!existing) throw new DomainError('not_found', 'No such client.');
      const client = await gatehouse.updateClient({ ownerUserKey: null, clientId: existing.clientId, name: existing.name, redirectUris: existing.redirectUris, scopes: existing.scopes, ...linkOptions(values) });
      return { json: { clientId: client.clientId, ...presentationJson(client) }, text: `Client ${client.clientId}:${linkLines(client, '  ') || '\n  (no links)'}` };
    },
  },
  {
    path: ['clients', 'set-first-party'],
    usage: 'gatehouse clients set-first-party CLIENT_ID [--off] [--json]',
    options: { off: { type: 'boolean' } },
    positionals: ['CLIENT_ID'],
    async run({ gatehouse }, values, [clientId]) {
      // The operator vouches for the client: the consent page marks it first-party (docs/decisions/0155). Only here and at `clients create`.
      const existing = (await gatehouse.listClients()).find((client) => client.clientId === clientId);
      if (!existing) throw new DomainError('not_found', 'No such client.');
      if (existing.registration !== undefined) throw new UsageError('a client that registered itself cannot be first-party');
      const firstParty = values.off !== true;
      const client = await gatehouse.updateClient({ ownerUserKey: null, clientId: existing.clientId, name: existing.name, redirectUris: existing.redirectUris, scopes: existing.scopes, firstParty });
      return {
        json: { clientId: client.clientId, firstParty: client.firstParty === true },
        text: client.firstParty === true ? `Client ${client.clientId} is marked first-party on the consent page.` : `Client ${client.clientId} is not marked first-party.`,
      };
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
  clientsDelete,
  keysList,
  keysRotate,
];
