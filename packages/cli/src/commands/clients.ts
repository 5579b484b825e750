import { DEFAULT_GRANT_TYPES, DomainError, GRANT_TYPES, isGrantType, parseScope, type Client, type Gatehouse } from '@gatehouse/core';
import type { Command } from '../command.js';
import { listOption, optionalOption, requiredOption, UsageError } from '../usage.js';
import { clientJson, clientText, LINK_OPTIONS, linkLines, linkOptions, OPENID_OPTIONS, openIdJson, openIdLines, openIdOptions, presentationJson, resourceServerJson, resourceServerLine } from './client-output.js';

/** The client `clientId` names, or `DomainError('not_found')`. */
async function clientNamed(gatehouse: Gatehouse, clientId: string): Promise<Client> {
  const client = (await gatehouse.listClients()).find((candidate) => candidate.clientId === clientId);
  if (!client) throw new DomainError('not_found', 'No such client.');
  return client;
}

/** The grant types `--grant-type` names (repeatable), each a known one. */
function grantTypesOf(named: string[]): string[] {
  const unknown = named.find((grantType) => !isGrantType(grantType));
  if (unknown !== undefined) throw new UsageError(`--grant-type ${unknown}: one of ${GRANT_TYPES.join(', ')}`);
  return named;
}

export const clientsCreate: Command = {
  path: ['clients', 'create'],
  usage:
    'gatehouse clients create --name N --redirect-uri U [--redirect-uri U2 …] --scope "s1 s2" [--owner EMAIL] [--pkce-required] [--public] [--grant-type authorization_code|refresh_token|client_credentials …] [--resource-server-for URI …] [--id-token-signed-response-alg RS256|ES256] [--post-logout-redirect-uri U …] [--default-max-age SECONDS] [--require-auth-time] [--client-uri U] [--logo-uri U] [--policy-uri U] [--tos-uri U] [--first-party] [--json]',
  options: {
    ...OPENID_OPTIONS,
    ...LINK_OPTIONS,
    'first-party': { type: 'boolean' },
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
  help: `Registers a client. A confidential client's secret is printed once and only its hash is stored.

Options:
  --name N                       the name users see on the consent page (required)
  --redirect-uri U               an exact redirect URI (repeatable; required with the code flow)
  --scope "s1 s2"                the scopes it may ask for (required)
  --owner EMAIL                  the user who owns it (a portal developer); default: the operator
  --pkce-required                refuse authorization requests without PKCE
  --public                       no secret (single-page or native app; PKCE always)
  --grant-type G                 authorization_code, refresh_token, client_credentials (repeatable;
                                 default authorization_code refresh_token)
  --resource-server-for URI      a configured resource it serves: it may introspect its tokens (repeatable)
  --id-token-signed-response-alg RS256|ES256   OpenID Connect: its ID tokens' algorithm (default RS256)
  --post-logout-redirect-uri U   where RP-initiated logout may send the browser back (repeatable)
  --default-max-age SECONDS      the max_age of its requests that name none
  --require-auth-time            its ID tokens always carry auth_time
  --client-uri U, --logo-uri U, --policy-uri U, --tos-uri U
                                 its home page, logo, privacy policy and terms, shown on the consent page
  --first-party                  marked as the operator's own app on the consent page
  --json                         print {"clientId", "clientSecret", …}

Examples:
  gatehouse clients create --name "Orders" --redirect-uri https://orders.example/callback --scope "openid profile"
  gatehouse clients create --name "CLI" --public --redirect-uri http://127.0.0.1/callback --scope "messaging.v1.read"
  gatehouse clients create --name "Billing job" --grant-type client_credentials --scope "messaging.v1.send" --json`,
  async run({ gatehouse, product }, values) {
    const name = requiredOption(values, 'name');
    const isPublic = values.public === true;
    const named = grantTypesOf(listOption(values, 'grant-type'));
    const grantTypes = named.length === 0 ? [...DEFAULT_GRANT_TYPES] : named;
    const redirectUris = listOption(values, 'redirect-uri');
    // A client without the code flow needs no redirect URI (docs/decisions/0028-grant-types-per-client.md).
    if (redirectUris.length === 0 && grantTypes.includes('authorization_code')) throw new UsageError('--redirect-uri is required');
    const scopes = parseScope(listOption(values, 'scope').join(' '));
    if (scopes.length === 0) throw new UsageError('--scope is required (for example --scope "messaging.v1.send messaging.v1.read")');
    const ownerEmail = optionalOption(values, 'owner');
    let ownerUserKey: string | null = null;
    if (ownerEmail !== undefined) {
      const owner = await product.findUserByEmail(ownerEmail);
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
      resourceServerFor: listOption(values, 'resource-server-for'),
      ...openIdOptions(values, false),
      // Its links, and the operator's first-party mark (docs/decisions/0155).
      ...linkOptions(values),
      ...(values['first-party'] === true ? { firstParty: true } : {}),
    });
    return {
      json: { clientId: client.clientId, clientSecret, name: client.name, redirectUris: client.redirectUris, scopes: client.scopes, grantTypes: client.grantTypes, ...resourceServerJson(client), ...openIdJson(client), ...presentationJson(client) },
      text: [
        `Created ${clientSecret === null ? 'public ' : ''}client "${client.name}"`,
        `  client_id:     ${client.clientId}`,
        clientSecret === null
          ? '  client_secret: none (a public client: client_id alone at the token endpoint, PKCE S256 always)'
          : `  client_secret: ${clientSecret}   (shown once: only its hash is stored)`,
        `  redirect URIs: ${client.redirectUris.length === 0 ? '(none)' : client.redirectUris.join(' ')}`,
        `  scopes:        ${client.scopes.join(' ')}`,
        `  grant types:   ${client.grantTypes.join(' ')}${resourceServerLine(client, '  ')}${openIdLines(client, '  ')}${linkLines(client, '  ')}`,
        ...(client.firstParty === true ? ['  first-party:   yes (marked so on the consent page)'] : []),
      ].join('\n'),
    };
  },
};

export const clientsList: Command = {
  path: ['clients', 'list'],
  usage: 'gatehouse clients list [--json]',
  options: {},
  positionals: [],
  help: `Lists every client: id, name, kind, redirect URIs, scopes (never a secret).

Options:
  --json    print {"clients": [{"clientId", "name", "redirectUris", "scopes", …}]}

Examples:
  gatehouse clients list
  gatehouse clients list --json`,
  async run({ gatehouse }) {
    const clients = await gatehouse.listClients();
    return {
      json: { clients: clients.map(clientJson) },
      text: clients.length === 0 ? 'No clients.' : clients.map(clientText).join('\n'),
    };
  },
};

export const clientsShow: Command = {
  path: ['clients', 'show'],
  usage: 'gatehouse clients show CLIENT_ID [--json]',
  options: {},
  positionals: ['CLIENT_ID'],
  help: `Shows one client: name, owner, kind, redirect URIs, scopes, grant types, links (never its secret).

Options:
  --json    print the client as one JSON object

Examples:
  gatehouse clients show 3fT9kQ2mLx8VbN4pR7sWzA`,
  async run({ gatehouse }, _values, [clientId]) {
    const client = await clientNamed(gatehouse, clientId as string);
    return { json: clientJson(client), text: clientText(client) };
  },
};

export const clientsUpdate: Command = {
  path: ['clients', 'update'],
  usage:
    'gatehouse clients update CLIENT_ID [--name N] [--redirect-uri U …] [--scope "s1 s2"] [--grant-type G …] [--pkce-required|--no-pkce-required] [--json]',
  options: {
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    scope: { type: 'string', multiple: true },
    'grant-type': { type: 'string', multiple: true },
    'pkce-required': { type: 'boolean' },
    'no-pkce-required': { type: 'boolean' },
  },
  positionals: ['CLIENT_ID'],
  help: `Changes a client: what is given changes, the rest stays; the result is checked as at registration.

Options:
  --name N                  a new name
  --redirect-uri U          the redirect URIs, replacing the old ones (repeatable)
  --scope "s1 s2"           the scopes, replacing the old ones
  --grant-type G            the grant types, replacing the old ones (repeatable)
  --pkce-required           refuse authorization requests without PKCE (--no-pkce-required: allow them)
  --json                    print the client as one JSON object

Examples:
  gatehouse clients update 3fT9kQ2mLx8VbN4pR7sWzA --name "Orders (staging)"
  gatehouse clients update 3fT9kQ2mLx8VbN4pR7sWzA --redirect-uri https://a.example/cb --redirect-uri https://b.example/cb`,
  async run({ gatehouse }, values, [clientId]) {
    // What is given changes, the rest stays; the core checks the result as at registration.
    const changes = ['name', 'redirect-uri', 'scope', 'grant-type', 'pkce-required', 'no-pkce-required'];
    if (changes.every((option) => values[option] === undefined)) throw new UsageError('nothing to update: give at least one of --name, --redirect-uri, --scope, --grant-type, --pkce-required');
    const existing = await clientNamed(gatehouse, clientId as string);
    if (values['pkce-required'] === true && values['no-pkce-required'] === true) throw new UsageError('give --pkce-required or --no-pkce-required, not both');
    const name = optionalOption(values, 'name');
    if (name !== undefined && name.trim() === '') throw new UsageError('--name must not be empty');
    const redirectUris = listOption(values, 'redirect-uri');
    const scopes = parseScope(listOption(values, 'scope').join(' '));
    if (values.scope !== undefined && scopes.length === 0) throw new UsageError('--scope must name at least one scope');
    const grantTypes = grantTypesOf(listOption(values, 'grant-type'));
    const client = await gatehouse.updateClient({
      ownerUserKey: null,
      clientId: existing.clientId,
      name: name ?? existing.name,
      redirectUris: redirectUris.length > 0 ? redirectUris : existing.redirectUris,
      scopes: scopes.length > 0 ? scopes : existing.scopes,
      ...(grantTypes.length > 0 ? { grantTypes } : {}),
      ...(values['pkce-required'] === true ? { pkceRequired: true } : values['no-pkce-required'] === true ? { pkceRequired: false } : {}),
    });
    return { json: clientJson(client), text: `Updated client ${client.clientId}:\n${clientText(client)}` };
  },
};

export const clientsDelete: Command = {
  path: ['clients', 'delete'],
  usage: 'gatehouse clients delete CLIENT_ID [--json]',
  options: {},
  positionals: ['CLIENT_ID'],
  help: `Deletes a client with its codes, grants and tokens: they stop working at once.

Options:
  --json    print {"clientId", "deleted": true}

Examples:
  gatehouse clients delete 3fT9kQ2mLx8VbN4pR7sWzA`,
  async run({ gatehouse }, _values, [clientId]) {
    await gatehouse.deleteClient({ ownerUserKey: null, clientId: clientId as string });
    return { json: { clientId, deleted: true }, text: `Deleted client ${clientId} with its grants and tokens.` };
  },
};
