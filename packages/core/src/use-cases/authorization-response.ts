/**
 * Builds the redirect of an authorization response. RFC 9207 §2: `iss` is always added.
 *
 * @example
 * authorizationResponseUrl('https://auth.example', 'https://app.example/cb', { code: 'x', state: 's' });
 * // 'https://app.example/cb?code=x&state=s&iss=https%3A%2F%2Fauth.example'
 */
export function authorizationResponseUrl(
  issuer: string,
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  url.searchParams.append('iss', issuer);
  return url.toString();
}
