import { GRANT_TYPES, type GrantType } from '@gatehouse/core';
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import type { GrantHandler } from './handler.js';
import { refreshTokenGrant } from './refresh-token.js';

export type { GrantHandler } from './handler.js';

/**
 * The token endpoint's grants by `grant_type`: one handler per grant the core offers (`GRANT_TYPES`,
 * which the metadata's `grant_types_supported` lists). A new grant is a module and a line here.
 */
export const GRANT_HANDLERS: ReadonlyMap<string, GrantHandler> = new Map(
  [authorizationCodeGrant, refreshTokenGrant, clientCredentialsGrant].map((handler) => [handler.grantType, handler] as const),
);

// Every grant the core offers has its handler, and no other (checked when the module loads).
const missing = GRANT_TYPES.filter((grantType: GrantType) => !GRANT_HANDLERS.has(grantType));
if (missing.length > 0 || GRANT_HANDLERS.size !== GRANT_TYPES.length) throw new Error(`grant handlers out of step with GRANT_TYPES: ${missing.join(', ')}`);
