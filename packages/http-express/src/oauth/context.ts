import type { Gatehouse } from '@gatehouse/core';
import type { Request } from 'express';
import type { HttpLogger } from '../logger.js';
import type { CsrfSettings } from '../security/csrf.js';
import type { AttemptLimits } from '../security/rate-limit.js';
import type { StorageOutages } from '../storage-outages.js';
import type { GatehousePaths } from './paths.js';
import type { PasswordHelp } from './pages/login.js';

/** What the OAuth routes share. */
export interface OAuthContext {
  gatehouse: Gatehouse;
  logger: HttpLogger;
  /** Where a request that fails because the storage is unavailable is reported (docs/decisions/0100). */
  storageOutages: StorageOutages;
  limits: AttemptLimits;
  /** `settings.issuer` without a trailing slash: the base of every published URL. */
  issuer: string;
  /** Where the browser finds each endpoint and page: under the issuer's path (docs/decisions/0090). */
  paths: GatehousePaths;
  /** The host's login page, when the host signs users in (docs/decisions/0091). */
  loginUrl: string | undefined;
  /** The host's consent page, when the host asks for consent. */
  consentUrl: string | undefined;
  /** Where a sign-in without `return_to` lands (`options.afterSignIn`), if not on the login page. */
  afterSignIn: string | undefined;
  /** The way back offered by the error pages (`options.startPage`), if any. */
  startPage: string | undefined;
  /** How the forms' CSRF tokens are made and checked (docs/decisions/0025). */
  csrf: CsrfSettings;
  /** "Forgot your password?" on the sign-in page (`options.passwordHelp`; docs/decisions/0156). */
  passwordHelp: PasswordHelp | undefined;
}

/** `url` (a path or an absolute URL) with one more query parameter. */
export function withParameter(url: string, name: string, value: string): string {
  const hash = url.indexOf('#');
  const bare = hash < 0 ? url : url.slice(0, hash);
  return `${bare}${bare.includes('?') ? '&' : '?'}${new URLSearchParams({ [name]: value }).toString()}`;
}

/** The caller's address as Express sees it (honours `trust proxy`). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** An absolute URL of one of our endpoints, built from the issuer (never from the Host header). */
export function endpointUrl(issuer: string, path: string): string {
  return `${issuer}${path}`;
}
