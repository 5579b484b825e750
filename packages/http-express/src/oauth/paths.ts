import type { PagePaths } from '../pages/paths.js';
import { ICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from '../pages/styles.js';

/** The prefix of every OAuth endpoint and page but the metadata (relative to the issuer). */
export const OAUTH_PATH_PREFIX = '/oauth';

/** Paths of the OAuth endpoints (relative to the issuer). */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  decision: '/oauth/authorize/decision',
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  introspect: '/oauth/introspect',
  jwks: '/oauth/jwks',
  login: '/oauth/login',
  logout: '/oauth/logout',
  /** OIDC Core §5.3 (with `settings.openid`). */
  userinfo: '/oauth/userinfo',
  metadata: '/.well-known/oauth-authorization-server',
  /** OpenID Connect Discovery 1.0 §4: appended to the issuer (with `settings.openid`). */
  openidConfiguration: '/.well-known/openid-configuration',
  /** RFC 7591 registration endpoint; RFC 7592 management at `/oauth/register/<client_id>`. Served when registration is not off. */
  register: '/oauth/register',
} as const;

/** The endpoints that take only POST: token (RFC 6749 §3.2), revocation (RFC 7009 §2.1), introspection (RFC 7662 §2.1). */
export const OAUTH_POST_PATHS: readonly string[] = [OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.introspect];

/** The endpoints whose errors are OAuth JSON (RFC 6749 §5.2) rather than a page. */
export const OAUTH_JSON_PATHS: readonly string[] = [...OAUTH_POST_PATHS, OAUTH_PATHS.jwks, OAUTH_PATHS.metadata, OAUTH_PATHS.register, OAUTH_PATHS.openidConfiguration, OAUTH_PATHS.userinfo];

/** The absolute paths (as the browser sees them) of everything Gatehouse's router serves. */
export interface GatehousePaths extends PagePaths {
  /** The path Gatehouse is mounted at: the issuer's path, `''` at the root. */
  base: string;
  authorize: string;
  decision: string;
  token: string;
  revoke: string;
  introspect: string;
  jwks: string;
  userinfo: string;
}

/**
 * The path of an issuer identifier without its trailing slashes: `https://host.example/auth` →
 * `/auth`, `https://auth.example.com/` → `''`. Gatehouse's router is mounted there (docs/decisions/0090).
 *
 * @example
 * issuerPath('https://host.example/auth'); // '/auth'
 */
export function issuerPath(issuer: string): string {
  return new URL(issuer).pathname.replace(/\/+$/, '');
}

/**
 * Every path of Gatehouse's router under `base` (`''` or `/auth`: `issuerPath(issuer)`).
 *
 * @example
 * gatehousePaths('/auth').stylesheet; // '/auth/assets/gatehouse.css'
 */
export function gatehousePaths(base: string): GatehousePaths {
  return {
    base,
    authorize: `${base}${OAUTH_PATHS.authorize}`,
    decision: `${base}${OAUTH_PATHS.decision}`,
    token: `${base}${OAUTH_PATHS.token}`,
    revoke: `${base}${OAUTH_PATHS.revoke}`,
    introspect: `${base}${OAUTH_PATHS.introspect}`,
    jwks: `${base}${OAUTH_PATHS.jwks}`,
    userinfo: `${base}${OAUTH_PATHS.userinfo}`,
    login: `${base}${OAUTH_PATHS.login}`,
    logout: `${base}${OAUTH_PATHS.logout}`,
    stylesheet: `${base}${STYLESHEET_PATH}`,
    script: `${base}${SCRIPT_PATH}`,
    icon: `${base}${ICON_PATH}`,
  };
}

/**
 * RFC 8414 §3.1: the metadata of an issuer with a path is at the well-known path with the
 * issuer's path appended: `https://host.example/auth` → `/.well-known/oauth-authorization-server/auth`.
 *
 * @example
 * wellKnownMetadataPath('https://host.example/auth'); // '/.well-known/oauth-authorization-server/auth'
 */
export function wellKnownMetadataPath(issuer: string): string {
  return `${OAUTH_PATHS.metadata}${issuerPath(issuer)}`;
}

/**
 * The OpenID Connect Discovery document with the issuer's path inserted, as RFC 8414 §3.1 does
 * (`https://host.example/auth` → `/.well-known/openid-configuration/auth`): where clients that
 * try every form (the MCP authorization spec's) also look. Discovery 1.0 §4's own location is the
 * issuer with `/.well-known/openid-configuration` appended, which Gatehouse's router serves.
 *
 * @example
 * wellKnownOpenIdConfigurationPath('https://host.example/auth'); // '/.well-known/openid-configuration/auth'
 */
export function wellKnownOpenIdConfigurationPath(issuer: string): string {
  return `${OAUTH_PATHS.openidConfiguration}${issuerPath(issuer)}`;
}
