export { accessTokenOf, bearerAuth, requireScope, userKeyOf, type BearerAuthOptions, type BearerLocals, type RequireScopeOptions } from './bearer.js';
export { BEARER_REALM, bearerChallenge, checkedRealm, type BearerErrorCode } from './challenge.js';
export { bearerErrorHandler } from './error-handler.js';
