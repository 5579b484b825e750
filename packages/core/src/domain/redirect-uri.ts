/**
 * RFC 9700 §2.1 / §4.1.3 and RFC 8252 §7.3: a registered redirect URI is absolute, `https`
 * (or `http` on a loopback host), and carries no fragment (RFC 6749 §3.1.2).
 * Returns the reason it is refused, or undefined when it is acceptable.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must use https (http is allowed on loopback only)';
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}
