import type { Gatehouse } from '@gatehouse/core';
import type { Request } from 'express';
import type { HttpLogger } from '../logger.js';
import type { CsrfSettings } from '../security/csrf.js';
import type { AttemptLimits } from '../security/rate-limit.js';

/** What the OAuth routes share. */
export interface OAuthContext {
  gatehouse: Gatehouse;
  logger: HttpLogger;
  limits: AttemptLimits;
  /** `settings.issuer` without a trailing slash: the base of every published URL. */
  issuer: string;
  /** How the forms' CSRF tokens are made and checked (docs/decisions/0025). */
  csrf: CsrfSettings;
}

/** The caller's address as Express sees it (honours `trust proxy`). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/** An absolute URL of one of our endpoints, built from the issuer (never from the Host header). */
export function endpointUrl(issuer: string, path: string): string {
  return `${issuer}${path}`;
}
