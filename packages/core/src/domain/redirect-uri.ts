/**
 * The rules a client's redirect URIs follow: those of its application type (OpenID Connect Dynamic
 * Client Registration §2, RFC 8252 §7), or, for a client registered by an operator, the portal or
 * the host, Gatehouse's own (`undefined`).
 */
export type ApplicationType = 'web' | 'native';

/**
 * RFC 9700 §2.1 / §4.1.3 and RFC 8252 §7.3: a registered redirect URI is absolute, `https`
 * (or `http` on a loopback host), and carries no fragment (RFC 6749 §3.1.2).
 * With an application type (a client that registered itself, docs/decisions/0116-native-redirect-uris.md):
 * `web` needs `https`; `native` may also use a private-use URI scheme (RFC 8252 §7.1).
 * It is written as a URL parser writes it back (`http://127.0.0.1/cb`, not `http://127.1/cb`), since
 * an authorization request must repeat it character for character
 * (docs/decisions/0197-redirect-uris-canonical.md).
 * Returns the reason it is refused, or undefined when it is acceptable.
 *
 * @example
 * redirectUriProblem('http://127.0.0.1/cb'); // undefined
 * redirectUriProblem('http://127.0.0.1/cb', 'web'); // 'must use https (a web application)'
 * redirectUriProblem('com.example.app:/cb', 'native'); // undefined
 * redirectUriProblem('http://127.1/cb'); // 'is not written as a URL parser writes it back: write it as http://127.0.0.1/cb'
 */
export function redirectUriProblem(uri: string, applicationType?: ApplicationType): string | undefined {
  // As long as the other URIs a client registers (RFC 7591 fields, `METADATA_LIMITS.uri`).
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain user information';
  // RFC 9700 §4.1.3: redirect URIs are compared exactly, so a pattern would never match; a host
  // name has no `*` (RFC 1123), and the parser keeps one there.
  if (url.hostname.includes('*')) return 'must name one host: redirect URIs are compared exactly, with no wildcards';
  const problem = schemeProblem(url, applicationType);
  if (problem !== undefined) return problem;
  if (!isWrittenAsParsed(uri, url)) return `is not written as a URL parser writes it back: write it as ${url.href}`;
  return undefined;
}

/** The longest redirect URI accepted. */
const MAX_REDIRECT_URI_LENGTH = 1000;

/** The scheme and host rules of `redirectUriProblem`. */
function schemeProblem(url: URL, applicationType: ApplicationType | undefined): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (applicationType === 'web') return 'must use https (a web application)';
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  if (applicationType === 'native') {
    if (url.protocol === 'http:') return 'must use https, or http on a loopback address (RFC 8252 §7.3)';
    if (!isPrivateUseScheme(url.protocol.slice(0, -1))) return 'must use https, http on a loopback address, or a private-use scheme in reverse domain form such as com.example.app (RFC 8252 §7.1)';
    return undefined;
  }
  return 'must use https (http is allowed on loopback only)';
}

/**
 * True when `uri` is its own URL serialization (WHATWG URL, `url.href`): no upper case in the
 * scheme or host, no default port, an IPv4 address in dotted decimal (`127.1` is `127.0.0.1`), an
 * IPv6 address compressed, no dot segment, no character the parser percent-encodes or drops. The
 * one spelling allowed besides: an `http(s)` URI without a path may leave out the `/` the parser
 * adds (`http://localhost:3000`; RFC 3986 §6.2.3: the same URI), since no rule reads the path
 * (docs/decisions/0197-redirect-uris-canonical.md).
 */
function isWrittenAsParsed(uri: string, url: URL): boolean {
  if (uri === url.href) return true;
  if (url.pathname !== '/' || (url.protocol !== 'https:' && url.protocol !== 'http:')) return false;
  // No user information (refused before), so the serialization is the origin, `/`, then query.
  return uri === url.origin + url.href.slice(url.origin.length + 1);
}

/**
 * RFC 8252 §7.1 and §8.4: a private-use URI scheme is a domain name the app controls, reversed
 * (`com.example.app`): it has a dot, so no scheme a browser or the system gives a meaning to
 * (`javascript`, `data`, `file`, `http`…) qualifies.
 *
 * @example
 * isPrivateUseScheme('com.example.app'); // true
 * isPrivateUseScheme('myapp'); // false
 */
export function isPrivateUseScheme(scheme: string): boolean {
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/i.test(scheme);
}

/**
 * True when the redirect URI's target is this device: `http` on a loopback host (RFC 8252 §7.3).
 * A client whose redirect URIs are all of this kind may be any program on the user's computer.
 *
 * @example
 * isLoopbackRedirectUri('http://127.0.0.1:8400/cb'); // true
 */
export function isLoopbackRedirectUri(uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/**
 * A loopback host name: `localhost`, `[::1]` or an address of `127.0.0.0/8` (RFC 8252 §7.3, §8.3:
 * where a native app's redirect URI may point).
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * A loopback redirect URI written with an IP literal: `http://127.x.y.z[:port]…` or
 * `http://[::1][:port]…`, split into host, port and the rest (path and query, as written).
 * `localhost` is not one (RFC 8252 §8.3: it may resolve elsewhere; docs/decisions/0027-public-clients.md).
 */
const LOOPBACK_IP_URI = /^http:\/\/(127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}|\[::1\])(?::(\d{1,5}))?([/?].*)?$/;

/**
 * True when the authorization request's `requested` redirect URI is the `registered` one:
 * the same string (RFC 9700 §4.1.3), except that a registered loopback IP redirect URI
 * matches that URI with any port (RFC 8252 §7.3: native apps listen on an ephemeral port).
 *
 * @example
 * redirectUriMatches('https://app.example/cb', 'https://app.example/cb'); // true
 * redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:51004/cb'); // true
 * redirectUriMatches('http://localhost/cb', 'http://localhost:51004/cb'); // false
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const ours = LOOPBACK_IP_URI.exec(registered);
  const theirs = LOOPBACK_IP_URI.exec(requested);
  if (!ours || !theirs) return false;
  const port = theirs[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return ours[1] === theirs[1] && (ours[3] ?? '') === (theirs[3] ?? '');
}

/**
 * The registered redirect URI `requested` matches (see `redirectUriMatches`), if any.
 *
 * @example
 * findRegisteredRedirectUri(['http://[::1]/cb'], 'http://[::1]:8400/cb'); // 'http://[::1]/cb'
 */
export function findRegisteredRedirectUri(registered: readonly string[], requested: string): string | undefined {
  return registered.find((uri) => redirectUriMatches(uri, requested));
}

/**
 * True for a redirect URI that any program on the user's device could receive, so that it proves
 * nothing about which app gets the code (RFC 8252 §8.6): a loopback one (`localhost`, `127.x.y.z`,
 * `[::1]`: whoever listens on the port first), or a private-use scheme (RFC 8252 §7.1: any app
 * may register `com.example.app:`).
 *
 * @example
 * isLocalAppRedirectUri('http://127.0.0.1/cb');      // true
 * isLocalAppRedirectUri('com.example.app:/callback'); // true
 * isLocalAppRedirectUri('https://app.example/cb');    // false
 */
export function isLocalAppRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? isLoopbackHost(url.hostname) : true;
}
