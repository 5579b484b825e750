/**
 * `work`, marked as handled: a promise started before it is known whether anyone will await it
 * (a read ahead of the client's authentication, a response signed while its write commits). Its
 * failure is seen by whoever awaits it, and is never an unhandled rejection when nobody does.
 *
 * @example
 * const response = mayBeDropped(tokenResponseFor(deps, grant, scopes, refreshToken, principal));
 * if (!(await write())) throw refusal; // the prepared response is dropped unseen
 * return response;
 */
export function mayBeDropped<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}
