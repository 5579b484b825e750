import { OAuthError, type Client } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { requestLogger } from '../logger.js';
import type { FormFields } from '../security/form-body.js';
import { clientIp, type OAuthContext } from './context.js';
import { OAuthJsonRefusal } from './json-errors.js';
import { gatehouseFor } from '../request-scope.js';
import { authorizationSentTwice } from '../security/authorization-header.js';

export type ClientCredentials =
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; clientSecret: string }
  /** RFC 6749 §2.1 / §3.2.1: a public client names itself by `client_id` in the body, with no secret. */
  | { method: 'none'; clientId: string; clientSecret: null };

export type CredentialsReading =
  | { ok: true; credentials: ClientCredentials }
  /** `clientId` is what the request claimed to be, when it said (for rate limiting). */
  | { ok: false; error: OAuthError; clientId: string | undefined };

/** Longer ids or secrets are not ours; refusing them early bounds the work of a request. */
const MAX_CREDENTIAL_LENGTH = 512;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** RFC 6749 §2.3.1 / Appendix B: each of id and secret is application/x-www-form-urlencoded before base64. */
function formUrlDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function refuse(description: string, clientId: string | undefined, code: 'invalid_client' | 'invalid_request' = 'invalid_client'): CredentialsReading {
  return { ok: false, error: new OAuthError(code, description), clientId };
}

/**
 * Reads the client's credentials from `Authorization: Basic` (client_secret_basic), from the
 * body (client_secret_post), or a `client_id` alone in the body (`none`: a public client; the core
 * refuses it for a confidential client). Both at once is `invalid_request` (RFC 6749 §2.3: one
 * method per request); nothing, or a header that does not decode, is `invalid_client`. Never throws.
 */
export function readClientCredentials(req: Request, form: FormFields): CredentialsReading {
  const header = req.get('authorization');
  const postedId = form.client_id;
  const postedSecret = form.client_secret;

  if (header !== undefined) {
    if (authorizationSentTwice(req)) return refuse('The Authorization header must be sent once.', postedId, 'invalid_request');
    const match = /^([A-Za-z]+) +(\S*) *$/.exec(header);
    if (!match || match[1]?.toLowerCase() !== 'basic') {
      return refuse('Client authentication must use HTTP Basic or client_secret_post.', postedId);
    }
    if (postedSecret !== undefined) {
      return refuse('The client must use only one authentication method.', postedId, 'invalid_request');
    }
    const encoded = match[2] ?? '';
    if (encoded.length === 0 || encoded.length > 4 * MAX_CREDENTIAL_LENGTH || !BASE64.test(encoded)) {
      return refuse('The Basic credentials are malformed.', postedId);
    }
    let decoded: string;
    try {
      decoded = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
    } catch {
      return refuse('The Basic credentials are malformed.', postedId);
    }
    const colon = decoded.indexOf(':');
    if (colon < 0) return refuse('The Basic credentials are malformed.', postedId);
    const clientId = formUrlDecode(decoded.slice(0, colon));
    const clientSecret = formUrlDecode(decoded.slice(colon + 1));
    if (clientId === undefined || clientSecret === undefined || clientId === '' || clientSecret === '') {
      return refuse('The Basic credentials are malformed.', clientId || postedId);
    }
    // RFC 6749 §3.2.1: a client_id in the body must name the same client.
    if (postedId !== undefined && postedId !== clientId) {
      return refuse('client_id in the body differs from the authenticated client.', clientId, 'invalid_request');
    }
    if (clientId.length > MAX_CREDENTIAL_LENGTH || clientSecret.length > MAX_CREDENTIAL_LENGTH) {
      return refuse('Client authentication failed.', undefined);
    }
    return { ok: true, credentials: { method: 'client_secret_basic', clientId, clientSecret } };
  }

  if (postedId === undefined || postedId === '') {
    return refuse('Client authentication is required (HTTP Basic, client_secret_post, or client_id alone for a public client).', postedId);
  }
  if (postedId.length > MAX_CREDENTIAL_LENGTH || (postedSecret !== undefined && postedSecret.length > MAX_CREDENTIAL_LENGTH)) {
    return refuse('Client authentication failed.', undefined);
  }
  if (postedSecret === undefined) return { ok: true, credentials: { method: 'none', clientId: postedId, clientSecret: null } };
  return { ok: true, credentials: { method: 'client_secret_post', clientId: postedId, clientSecret: postedSecret } };
}

/**
 * Authenticates the client of a token, revocation or introspection request, first of all
 * (docs/security.md "Rate limits"). Failures count toward the rate limit per client_id (from this IP) and per IP; once
 * over it, throws a 429 `temporarily_unavailable` with `Retry-After` before any secret is checked.
 * Returns the client, or throws the `OAuthError` to answer (`invalid_client`, `invalid_request`).
 */
export async function authenticateClientOf(ctx: OAuthContext, req: Request, res: Response): Promise<Client> {
  const ip = clientIp(req);
  const reading = readClientCredentials(req, req.body as FormFields);
  const claimedId = reading.ok ? reading.credentials.clientId : reading.clientId;
  const limit = await ctx.limits.clientAuth.check(claimedId, ip);
  if (limit.limited) {
    requestLogger(ctx.logger, res).warn({ event: 'rate_limited', limit: 'client_auth', clientId: claimedId?.slice(0, 64) }, 'client authentication rate limited');
    const description = `Too many failed client authentications. Retry after ${limit.retryAfterSeconds} seconds.`;
    throw new OAuthJsonRefusal('temporarily_unavailable', description, 429, { 'Retry-After': String(limit.retryAfterSeconds) });
  }
  if (!reading.ok) {
    if (reading.error.code === 'invalid_client') await ctx.limits.clientAuth.recordFailure(claimedId, ip);
    throw withClaimedId(reading.error, claimedId);
  }
  try {
    return await gatehouseFor(ctx.gatehouse, res).authenticateClient(reading.credentials);
  } catch (error) {
    if (error instanceof OAuthError && error.code === 'invalid_client') await ctx.limits.clientAuth.recordFailure(claimedId, ip);
    throw error;
  }
}

/** The error with the client id the request claimed in its private detail (for the log). */
function withClaimedId(error: OAuthError, claimedId: string | undefined): OAuthError {
  return claimedId === undefined ? error : new OAuthError(error.code, error.description, { detail: `claimed client_id ${claimedId.slice(0, 64)}` });
}
