export { accessTokenOf, bearerAuth, requireScope, type BearerLocals } from './bearer.js';
export { BEARER_REALM, bearerChallenge, type BearerErrorCode } from './challenge.js';
