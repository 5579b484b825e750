import { expect } from 'vitest';
import { DomainError, OAuthError, type DomainErrorKind, type OAuthErrorCode } from '../errors.js';

/** What the promise rejected with; undefined when it resolved. */
export function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

/** Expects an `OAuthError` (with `code`, when given) and returns it. */
export async function expectOAuthError(promise: Promise<unknown>, code?: OAuthErrorCode): Promise<OAuthError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(OAuthError);
  if (code !== undefined) expect((error as OAuthError).code).toBe(code);
  return error as OAuthError;
}

/** Expects a `DomainError` (of `kind` and naming `field`, when given) and returns it. */
export async function expectDomainError(promise: Promise<unknown>, kind?: DomainErrorKind, field?: string): Promise<DomainError> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(DomainError);
  if (kind !== undefined) expect((error as DomainError).kind).toBe(kind);
  if (field !== undefined) expect((error as DomainError).field).toBe(field);
  return error as DomainError;
}
