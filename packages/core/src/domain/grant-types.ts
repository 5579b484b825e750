import { OAuthError } from '../errors.js';
import type { Client, GrantType } from './model.js';

/** The grant types a client may be registered for, in the order they are shown. */
export const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];

/** What a registration without grant types gets: the authorization-code flow with refresh tokens. */
export const DEFAULT_GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];

/**
 * True when `value` names a grant type a client can be registered for.
 *
 * @example
 * isGrantType('client_credentials'); // true
 * isGrantType('password'); // false
 */
export function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(value);
}

/**
 * RFC 6749 §2.1: a public client has no secret (`token_endpoint_auth_method: none`).
 *
 * @example
 * isPublicClient({ ...client, clientSecretHash: null }); // true
 */
export function isPublicClient(client: Pick<Client, 'clientSecretHash'>): boolean {
  return client.clientSecretHash === null;
}

/**
 * RFC 7591 §2: the client's `token_endpoint_auth_method`.
 *
 * @example
 * tokenEndpointAuthMethod(publicClient); // 'none'
 */
export function tokenEndpointAuthMethod(client: Pick<Client, 'clientSecretHash'>): 'none' | 'client_secret_basic' {
  return isPublicClient(client) ? 'none' : 'client_secret_basic';
}

/**
 * RFC 6749 §5.2: a grant type the client is not registered for is `unauthorized_client`.
 *
 * @example
 * assertGrantType(client, 'client_credentials'); // throws OAuthError('unauthorized_client') unless registered
 */
export function assertGrantType(client: Pick<Client, 'clientId' | 'grantTypes'>, grantType: GrantType): void {
  if (!client.grantTypes.includes(grantType)) {
    throw new OAuthError('unauthorized_client', `This client may not use the ${grantType} grant.`, { detail: `client ${client.clientId}` });
  }
}
