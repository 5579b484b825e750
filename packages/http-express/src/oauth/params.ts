import { OAuthError } from '@gatehouse/core';
import * as v from 'valibot';
import type { FormFields } from '../security/form-body.js';

const text = (name: string, max: number) =>
  v.pipe(v.string(`${name} must be a string.`), v.maxLength(max, `${name} is longer than ${max} characters.`));
/**
 * A credential Gatehouse issued or checks (a code, a refresh token, a verifier, a token to revoke or
 * introspect): any length the form body allows (16 kB), so that one too long is the wrong credential
 * it is (`invalid_grant`; RFC 7009 §2.2 and RFC 7662 §2.2: unknown, not an error), not a malformed
 * request. Finding it costs one hash.
 */
const credential = (name: string) => v.string(`${name} must be a string.`);

/** RFC 8707 §2.2: the resource the access token is for (its rules are the core's: `invalid_target`). */
const resource = v.optional(text('resource', 2048));

/** RFC 6749 §4.1.3 (+ RFC 7636 §4.5 code_verifier, RFC 8707 §2.2 resource). */
export const AuthorizationCodeGrant = v.object({
  code: credential('code'),
  // RFC 6749 §4.1.3: required only when the authorization request included it, which the code
  // knows: `exchangeCode` says so (docs/decisions/0182-redirect-uri-at-the-token-endpoint.md).
  redirect_uri: v.optional(text('redirect_uri', 2048)),
  code_verifier: v.optional(credential('code_verifier')),
  resource,
});

/** RFC 6749 §6 (+ RFC 8707 §2.2 resource). */
export const RefreshTokenGrant = v.object({
  refresh_token: credential('refresh_token'),
  scope: v.optional(text('scope', 1024)),
  resource,
});

/** RFC 6749 §4.4.2 (+ RFC 8707 §2.2 resource). */
export const ClientCredentialsGrant = v.object({
  scope: v.optional(text('scope', 1024)),
  resource,
});

/** RFC 7009 §2.1 and RFC 7662 §2.1: the token and an optional hint. */
export const TokenParameters = v.object({
  token: credential('token'),
  token_type_hint: v.optional(text('token_type_hint', 64)),
});

/** The sign-in form. */
export const SignInForm = v.object({
  email: v.pipe(v.string(), v.trim(), v.minLength(1, 'Enter your e-mail address.'), v.maxLength(254, 'That e-mail address is too long.')),
  password: v.pipe(v.string(), v.minLength(1, 'Enter your password.'), v.maxLength(1024, 'That password is too long.')),
});

/**
 * Validates form fields against a schema; a failure is `invalid_request` naming the parameter
 * (a missing one reads "<name> is required.").
 */
export function parseParameters<S extends v.GenericSchema<unknown, unknown>>(schema: S, fields: FormFields): v.InferOutput<S> {
  const result = v.safeParse(schema, fields);
  if (result.success) return result.output;
  throw new OAuthError('invalid_request', issueMessage(result.issues[0]));
}

/** The first issue as a sentence for the user. */
export function issueMessage(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return 'The request is malformed.';
  const key = issue.path?.[0]?.key;
  if (typeof key === 'string' && issue.input === undefined) return `${key} is required.`;
  return issue.message;
}
