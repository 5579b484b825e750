import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DomainError, type Grant, type ProductApi, type Session } from '@gatehouse/core';
import type { Command, OptionValues } from './commands.js';
import { knownClient, userByEmail } from './lookups.js';
import { given, limitOption, wholeNumber } from './options.js';
import { UsageError } from './usage.js';

// The operator's commands on users, sessions and grants, and `health` (issue 33; docs/operations.md
// "Command line for operators"). Users are named by e-mail, as everywhere on the command line.

/** The user the required `--email` names (the commands that act on one user). */
async function userOfEmailOption(product: ProductApi, values: OptionValues) {
  const email = given(values, 'email');
  if (email === undefined) throw new UsageError('--email is required');
  return userByEmail(product, email);
}

const sessionJson = (session: Session) => ({
  sessionId: session.sessionId,
  userKey: session.userKey,
  createdAt: session.createdAt.toISOString(),
  authenticatedAt: session.authenticatedAt.toISOString(),
  expiresAt: session.expiresAt.toISOString(),
  ...(session.amr === undefined ? {} : { amr: session.amr }),
});

const grantJson = (grant: Grant) => ({
  grantId: grant.grantId,
  clientId: grant.clientId,
  userKey: grant.userKey,
  scopes: grant.scopes,
  ...(grant.resources === undefined || grant.resources.length === 0 ? {} : { resources: grant.resources }),
  sessionId: grant.sessionId,
  createdAt: grant.createdAt.toISOString(),
});

const grantLine = (grant: Grant) =>
  `${grant.grantId}  client ${grant.clientId}  ${grant.userKey === null ? 'client credentials' : `user ${grant.userKey}`}  since ${grant.createdAt.toISOString()}\n  scopes: ${grant.scopes.join(' ')}`;

/** Where `health` asks: the server this configuration serves, on loopback when it listens on every address. */
function readinessUrl(host: string | undefined, port: number): string {
  const reachable = host === undefined || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}/readyz`;
}

class ReadinessTimeout extends Error {}

/**
 * GET of the readiness URL with node:http(s), not fetch: fetch refuses the ports browsers block
 * (6000, 6665–6669, 10080…), on which an operator may well run the server.
 */
function askReadiness(url: URL, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { headers: { Accept: 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    request.setTimeout(timeoutMs, () => request.destroy(new ReadinessTimeout()));
    request.on('error', reject);
    request.end();
  });
}

export const OPERATOR_COMMANDS: readonly Command[] = [
  {
    path: ['users', 'list'],
    usage: 'gatehouse users list [--limit N] [--offset N] [--json]',
    options: { limit: { type: 'string' }, offset: { type: 'string' } },
    positionals: [],
    async run({ product }, values) {
      const users = await product.listUsers({ limit: limitOption(values), offset: wholeNumber(values, 'offset', { min: 0, max: 1_000_000_000, fallback: 0 }) });
      return {
        json: { users: users.map((user) => ({ userKey: user.userKey, email: user.email, givenName: user.givenName, familyName: user.familyName, disabled: user.disabledAt !== undefined })) },
        text:
          users.length === 0
            ? 'No users.'
            : users
                .map((user) => [user.userKey, user.email, [user.givenName, user.familyName].filter((name) => name !== '').join(' '), user.disabledAt === undefined ? '' : '(disabled)'].filter((part) => part !== '').join('  '))
                .join('\n'),
      };
    },
  },
  {
    path: ['users', 'show'],
    usage: 'gatehouse users show --email E [--json]',
    options: { email: { type: 'string' } },
    positionals: [],
    async run({ gatehouse, product }, values) {
      const { user, memberships } = await product.currentUser((await userOfEmailOption(product, values)).userKey);
      const phones = await product.listPhoneNumbers(user.userKey);
      const sessions = await gatehouse.listUserSessions(user.userKey);
      const grants = await gatehouse.listGrants({ userKey: user.userKey });
      const accounts = memberships.map(({ account, role }) => ({ accountKey: account.accountKey, name: account.name, role }));
      return {
        json: { userKey: user.userKey, email: user.email, givenName: user.givenName, familyName: user.familyName, disabledAt: user.disabledAt?.toISOString() ?? null, phoneNumbers: phones, accounts, activeSessions: sessions.length, activeGrants: grants.length },
        text: [
          `${user.email}  (userKey ${user.userKey})${user.disabledAt === undefined ? '' : `  DISABLED since ${user.disabledAt.toISOString()}`}`,
          `  name:     ${[user.givenName, user.familyName].filter((name) => name !== '').join(' ') || '(none)'}`,
          `  phones:   ${phones.length === 0 ? '(none)' : phones.join(' ')}`,
          `  accounts: ${accounts.length === 0 ? '(none)' : accounts.map((account) => `${account.name} (${account.accountKey}, ${account.role})`).join('; ')}`,
          `  ${sessions.length} live sign-in session(s), ${grants.length} live grant(s)`,
        ].join('\n'),
      };
    },
  },
  {
    path: ['users', 'disable'],
    usage: 'gatehouse users disable --email E [--json]',
    options: { email: { type: 'string' } },
    positionals: [],
    async run({ product }, values) {
      const user = await userOfEmailOption(product, values);
      // No sign-in from now on; sessions ended, grants revoked (docs/decisions/0153).
      const { endedSessionIds, revokedGrantIds } = await product.disableUser(user.userKey);
      return {
        json: { userKey: user.userKey, disabled: true, endedSessions: endedSessionIds.length, revokedGrants: revokedGrantIds.length },
        text: `Disabled ${user.email} (userKey ${user.userKey}): no sign-in from now on; ${endedSessionIds.length} session(s) ended, ${revokedGrantIds.length} grant(s) revoked (their tokens no longer work).`,
      };
    },
  },
  {
    path: ['users', 'enable'],
    usage: 'gatehouse users enable --email E [--json]',
    options: { email: { type: 'string' } },
    positionals: [],
    async run({ product }, values) {
      const user = await userOfEmailOption(product, values);
      await product.enableUser(user.userKey);
      return { json: { userKey: user.userKey, disabled: false }, text: `Enabled ${user.email} (userKey ${user.userKey}): they may sign in again.` };
    },
  },
  {
    path: ['users', 'delete'],
    usage: 'gatehouse users delete --email E [--with-clients] --yes [--json]',
    options: { email: { type: 'string' }, 'with-clients': { type: 'boolean' }, yes: { type: 'boolean' } },
    positionals: [],
    async run({ product }, values) {
      const user = await userOfEmailOption(product, values);
      // Nothing of a deletion can be undone: the command says what it deletes until asked for sure.
      if (values.yes !== true) {
        throw new UsageError(`this deletes ${user.email} (userKey ${user.userKey}) for good, with their phone numbers, memberships, attribute values, messages, sessions, grants and consents; add --yes (gatehouse users disable stops them without deleting)`);
      }
      // docs/decisions/0158-deleting-a-user.md: a user who owns clients is refused unless --with-clients.
      const deleted = await product.deleteUser(user.userKey, { deleteOwnedClients: values['with-clients'] === true });
      const counts = [
        `${deleted.sessions} session(s)`,
        `${deleted.grants} grant(s)`,
        `${deleted.consents} consent(s)`,
        `${deleted.phoneNumbers} phone number(s)`,
        `${deleted.memberships} membership(s)`,
        `${deleted.attributeValues} attribute value(s)`,
        `${deleted.messages} message(s)`,
        ...(deleted.clientIds.length === 0 ? [] : [`client(s) ${deleted.clientIds.join(', ')}`]),
      ];
      return {
        json: { userKey: user.userKey, deleted: true, ...deleted },
        text: `Deleted ${user.email} (userKey ${user.userKey}) with ${counts.join(', ')}; their tokens no longer work.`,
      };
    },
  },
  {
    path: ['sessions', 'list'],
    usage: 'gatehouse sessions list --email E [--json]',
    options: { email: { type: 'string' } },
    positionals: [],
    async run({ gatehouse, product }, values) {
      const user = await userOfEmailOption(product, values);
      const sessions = await gatehouse.listUserSessions(user.userKey);
      return {
        json: { userKey: user.userKey, sessions: sessions.map(sessionJson) },
        text:
          sessions.length === 0
            ? `${user.email} has no live sign-in session.`
            : sessions.map((session) => `${session.sessionId}  signed in ${session.authenticatedAt.toISOString()}  expires ${session.expiresAt.toISOString()}`).join('\n'),
      };
    },
  },
  {
    path: ['sessions', 'end'],
    usage: 'gatehouse sessions end --session SESSION_ID | --email E [--json]',
    options: { session: { type: 'string' }, email: { type: 'string' } },
    positionals: [],
    async run({ gatehouse, product }, values) {
      const sessionId = given(values, 'session');
      const email = given(values, 'email');
      if ((sessionId === undefined) === (email === undefined)) throw new UsageError('give --session or --email (one of them)');
      if (sessionId !== undefined) {
        const { userKey, revokedGrantIds } = await gatehouse.endSession(sessionId);
        return { json: { endedSessions: 1, userKey, revokedGrants: revokedGrantIds.length }, text: `Ended session ${sessionId} of user ${userKey}; ${revokedGrantIds.length} grant(s) made under it revoked.` };
      }
      const user = await userByEmail(product, email as string);
      // Every session, as the host's sign-out does (docs/decisions/0091).
      const { endedSessionIds, revokedGrantIds } = await gatehouse.logoutUser(user.userKey);
      return {
        json: { endedSessions: endedSessionIds.length, userKey: user.userKey, revokedGrants: revokedGrantIds.length },
        text: `Ended ${endedSessionIds.length} session(s) of ${user.email}; ${revokedGrantIds.length} grant(s) made under them revoked.`,
      };
    },
  },
  {
    path: ['grants', 'list'],
    usage: 'gatehouse grants list --email E | --client CLIENT_ID [--json]',
    options: { email: { type: 'string' }, client: { type: 'string' } },
    positionals: [],
    async run({ gatehouse, product }, values) {
      const email = given(values, 'email');
      const clientId = given(values, 'client');
      if ((email === undefined) === (clientId === undefined)) throw new UsageError('give --email or --client (one of them)');
      if (clientId !== undefined) await knownClient(gatehouse, clientId);
      const grants = await gatehouse.listGrants(email !== undefined ? { userKey: (await userByEmail(product, email)).userKey } : { clientId: clientId as string });
      return { json: { grants: grants.map(grantJson) }, text: grants.length === 0 ? 'No live grants.' : grants.map(grantLine).join('\n') };
    },
  },
  {
    path: ['grants', 'revoke'],
    usage: 'gatehouse grants revoke --grant GRANT_ID | --email E [--client CLIENT_ID] | --client CLIENT_ID [--json]',
    options: { grant: { type: 'string' }, email: { type: 'string' }, client: { type: 'string' } },
    positionals: [],
    async run({ gatehouse, product }, values) {
      const grantId = given(values, 'grant');
      const email = given(values, 'email');
      const clientId = given(values, 'client');
      if (grantId !== undefined && (email !== undefined || clientId !== undefined)) throw new UsageError('--grant names one grant: give it alone');
      if (grantId === undefined && email === undefined && clientId === undefined) throw new UsageError('give --grant, --email or --client');
      if (clientId !== undefined) await knownClient(gatehouse, clientId);
      const userKey = email === undefined ? undefined : (await userByEmail(product, email)).userKey;
      const { revokedGrantIds } = await gatehouse.revokeGrants(
        grantId !== undefined ? { grantId } : userKey !== undefined ? { userKey, ...(clientId === undefined ? {} : { clientId }) } : { clientId: clientId as string },
      );
      return {
        json: { revokedGrantIds },
        text: `Revoked ${revokedGrantIds.length} grant(s); their access and refresh tokens no longer work.${revokedGrantIds.length === 0 ? '' : `\n  ${revokedGrantIds.join('\n  ')}`}`,
      };
    },
  },
  {
    path: ['health'],
    usage: 'gatehouse health [--url URL] [--timeout SECONDS] [--json]',
    options: { url: { type: 'string' }, timeout: { type: 'string' } },
    positionals: [],
    database: false,
    async run({ config }, values) {
      const url = given(values, 'url') ?? readinessUrl(config.host, config.port);
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError('--url must be an http(s) URL, such as http://127.0.0.1:3000/readyz');
      const seconds = wholeNumber(values, 'timeout', { min: 0, max: 300, fallback: 5 });
      let status: number;
      let body: unknown;
      try {
        ({ status, body } = await askReadiness(new URL(url), Math.max(1, seconds) * 1000));
      } catch (error) {
        const reason = error instanceof ReadinessTimeout ? `no answer within ${seconds} s` : String((error as { code?: unknown }).code ?? (error as Error).message ?? 'unreachable');
        throw new DomainError('unavailable', `${url}: ${reason}`);
      }
      const state = typeof body === 'object' && body !== null && typeof (body as { status?: unknown }).status === 'string' ? (body as { status: string }).status : `HTTP ${status}`;
      if (status !== 200) throw new DomainError('unavailable', `${url}: not ready (${state})`);
      return { json: { url, status: state }, text: `${url}: ${state}` };
    },
  },
];
