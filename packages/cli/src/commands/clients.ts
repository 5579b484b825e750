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
  async run({ gatehouse }, values, [clientId]) {
    // What is given changes, the rest stays; the core checks the result as at registration.
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
  async run({ gatehouse }, _values, [clientId]) {
    await gatehouse.deleteClient({ ownerUserKey: null, clientId: clientId as string });
    return { json: { clientId, deleted: true }, text: `Deleted client ${clientId} with its grants and tokens.` };
  },
};
