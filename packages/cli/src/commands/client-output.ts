import { CLIENT_LINK_FIELDS, clientOrigin, isPublicClient, tokenEndpointAuthMethod, type Client } from '@gatehouse/core';
import { listOption, optionalOption, UsageError, type OptionValues } from '../usage.js';
import type { OptionSpec } from '../command.js';

/** The resources a client serves as a resource server (docs/decisions/0112), only when it serves any. */
export const resourceServerJson = (client: Client) => (client.resourceServerFor === undefined || client.resourceServerFor.length === 0 ? {} : { resourceServerFor: client.resourceServerFor });

/** The readable line of the resources a client serves, or none. */
export const resourceServerLine = (client: Client, indent: string) => (client.resourceServerFor === undefined || client.resourceServerFor.length === 0 ? '' : `\n${indent}resource server of: ${client.resourceServerFor.join(' ')}`);

/** A client's OpenID Connect metadata (docs/decisions/0136), only the fields it has. */
export const openIdJson = (client: Client) => ({
  ...(client.idTokenSignedResponseAlg === undefined ? {} : { idTokenSignedResponseAlg: client.idTokenSignedResponseAlg }),
  ...(client.postLogoutRedirectUris === undefined || client.postLogoutRedirectUris.length === 0 ? {} : { postLogoutRedirectUris: client.postLogoutRedirectUris }),
  ...(client.defaultMaxAge === undefined ? {} : { defaultMaxAge: client.defaultMaxAge }),
  ...(client.requireAuthTime === true ? { requireAuthTime: true } : {}),
});

/**
 * The readable lines of a client's OpenID Connect metadata, or none.
 *
 * @example
 * const text = `Client ${client.clientId}:${openIdLines(client, '  ')}`;
 */
export function openIdLines(client: Client, indent: string): string {
  const lines = [
    client.idTokenSignedResponseAlg === undefined ? undefined : `ID tokens: ${client.idTokenSignedResponseAlg}`,
    client.postLogoutRedirectUris === undefined || client.postLogoutRedirectUris.length === 0 ? undefined : `post-logout redirect URIs: ${client.postLogoutRedirectUris.join(' ')}`,
    client.defaultMaxAge === undefined ? undefined : `default max age: ${client.defaultMaxAge} s`,
    client.requireAuthTime === true ? 'requires auth_time' : undefined,
  ].filter((line) => line !== undefined);
  return lines.map((line) => `\n${indent}${line}`).join('');
}

/** The OpenID Connect options of `clients create` and `clients set-openid`, as a registration reads them. */
export const OPENID_OPTIONS: Record<string, OptionSpec> = {
  'id-token-signed-response-alg': { type: 'string' },
  'post-logout-redirect-uri': { type: 'string', multiple: true },
  'default-max-age': { type: 'string' },
  'require-auth-time': { type: 'boolean' },
};

/**
 * The OpenID Connect metadata the options give; on an update, `--no-post-logout-redirect-uris`
 * and `--default-max-age none` remove, and what is not given stays.
 *
 * @example
 * await gatehouse.updateClient({ ownerUserKey: null, clientId, ...openIdOptions(values, true) });
 */
export function openIdOptions(values: OptionValues, update: boolean) {
  const alg = optionalOption(values, 'id-token-signed-response-alg');
  const maxAge = optionalOption(values, 'default-max-age');
  if (maxAge !== undefined && !/^(\d{1,9}|none)$/.test(maxAge)) throw new UsageError('--default-max-age must be a whole number of seconds (or none)');
  if (maxAge === 'none' && !update) throw new UsageError('--default-max-age must be a whole number of seconds');
  const uris = listOption(values, 'post-logout-redirect-uri');
  return {
    ...(alg === undefined ? {} : { idTokenSignedResponseAlg: alg }),
    ...(uris.length > 0 ? { postLogoutRedirectUris: uris } : values['no-post-logout-redirect-uris'] === true ? { postLogoutRedirectUris: [] } : {}),
    ...(maxAge === undefined ? {} : { defaultMaxAge: maxAge === 'none' ? null : Number(maxAge) }),
    ...(values['require-auth-time'] === true ? { requireAuthTime: true } : values['no-require-auth-time'] === true ? { requireAuthTime: false } : {}),
  };
}

/** The options of a client's links (docs/decisions/0155): `--client-uri` and so on, the RFC 7591 names. */
export const LINK_OPTIONS: Record<string, OptionSpec> = { 'client-uri': { type: 'string' }, 'logo-uri': { type: 'string' }, 'policy-uri': { type: 'string' }, 'tos-uri': { type: 'string' } };
const LINK_OPTION_OF = { clientUri: 'client-uri', logoUri: 'logo-uri', policyUri: 'policy-uri', tosUri: 'tos-uri' } as const;

/**
 * The links the options give; `--logo-uri ''` removes one (`clients set-links`), one not given stays.
 *
 * @example
 * await gatehouse.updateClient({ ownerUserKey: null, clientId, name, redirectUris, scopes, ...linkOptions(values) });
 */
export function linkOptions(values: OptionValues) {
  return Object.fromEntries(
    CLIENT_LINK_FIELDS.flatMap((field) => {
      const value = optionalOption(values, LINK_OPTION_OF[field]);
      return value === undefined ? [] : [[field, value]];
    }),
  );
}

/** A client's links and first-party mark (docs/decisions/0155), only what it has. */
export const presentationJson = (client: Client) => ({
  ...Object.fromEntries(CLIENT_LINK_FIELDS.flatMap((field) => (client[field] === undefined ? [] : [[field, client[field]]]))),
  ...(client.firstParty === true ? { firstParty: true } : {}),
});

/**
 * The readable lines of a client's links, or none.
 *
 * @example
 * const text = `Client ${client.clientId}:${linkLines(client, '  ')}`;
 */
export function linkLines(client: Client, indent: string): string {
  return CLIENT_LINK_FIELDS.flatMap((field) => (client[field] === undefined ? [] : [`\n${indent}${LINK_OPTION_OF[field].replace('-uri', '')}: ${client[field]}`])).join('');
}

/**
 * A client as `clients list --json` and `clients show --json` print it (never a secret).
 *
 * @example
 * process.stdout.write(JSON.stringify(clientJson(client)));
 */
export const clientJson = (client: Client) => ({
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
  ...presentationJson(client),
});

/** What `clients list` adds after a client's name: its type, and how a self-registered one came to be. */
export function clientMarks(client: Client): string {
  const marks = [isPublicClient(client) ? 'public' : undefined, client.firstParty === true ? 'first-party' : undefined];
  const origin = clientOrigin(client);
  if (origin.registration === 'dynamic') marks.push('registered itself');
  if (origin.registration === 'metadata-document') marks.push(`metadata document at ${origin.documentHost ?? ''}`);
  if (client.registration !== undefined && client.registration.firstUsedAt === null) marks.push('never used');
  const shown = marks.filter((mark) => mark !== undefined);
  return shown.length === 0 ? '' : `  (${shown.join(', ')})`;
}

/** The readable lines of one client in `clients list` and `clients show`. */
export function clientText(client: Client): string {
  // The owner is the user key the JSON gives as `ownerUserKey`; "none" for a client of the operator (docs/operations.md).
  return `${client.clientId}  ${client.name}${clientMarks(client)}\n  owner: ${client.ownerUserKey ?? 'none'}\n  redirect URIs: ${client.redirectUris.join(' ')}\n  scopes: ${client.scopes.join(' ')}\n  grant types: ${client.grantTypes.join(' ')}${resourceServerLine(client, '  ')}${openIdLines(client, '  ')}${linkLines(client, '  ')}`;
}
