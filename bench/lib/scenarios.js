// The measured scenarios (issue 8), each an autocannon target built from the provisioned state;
// `server` says whose process serves it: the bare app, Gatehouse, or the peer (node-oidc-provider,
// issue 16), whose scenarios each name the Gatehouse scenario they are compared with (`peerOf`).
import { basicAuthorization, codeExchangeBody } from './provision.js';

/** Ratios to the bare route the project aims for (issue 16 for the bearer GET and the token endpoint, issue 8 for the admin list). */
export const TARGETS = {
  'users-me': 0.75,
  'code-exchange': 0.42,
  refresh: 0.5,
  'admin-list': 0.7,
};

/** The server's peak RSS under load, at most this many times the bare app's (issue 16). */
export const RSS_TARGET = 1.6;

/**
 * The load the RSS bound speaks of: issue 16's bearer GET and token endpoint scenarios, and issue
 * 32's burst of sign-ins (each hashes a password).
 */
export const RSS_TARGET_SCENARIOS = ['users-me', 'code-exchange', 'refresh', 'sign-in'];

/** Issue 32: password sign-ins per second per core the server must reach (Keycloak's sizing). */
export const SIGN_IN_TARGET_PER_CORE = 15;

/** Issue 32: the sign-in scenario's concurrent browsers. */
export const SIGN_IN_CONNECTIONS = 50;

/**
 * Issue 32: the Gatehouse process's CPU per request on PostgreSQL at most this many times its CPU
 * per request on SQLite, for these scenarios.
 */
export const POSTGRES_CPU_TARGET = 1.5;
export const POSTGRES_CPU_TARGET_SCENARIOS = ['code-exchange', 'refresh', 'users-me'];

/** Growth run: each scenario within 10% of its empty-database figure. */
export const GROWTH_TARGET = 0.9;

export const SCENARIOS = [
  {
    name: 'bare',
    title: 'bare Express route (ceiling)',
    server: 'bare',
    expectStatus: 200,
    target: ({ bareUrl }) => ({ url: `${bareUrl}/bare` }),
  },
  {
    name: 'bare-prototypes',
    title: 'bare Express route, requests created with Express\'s prototypes',
    // The same app on the server construction of `gatehouse serve` (decision 0070): how much of
    // the ratios below that construction alone accounts for.
    server: 'bare-prototypes',
    expectStatus: 200,
    target: ({ barePrototypesUrl }) => ({ url: `${barePrototypesUrl}/bare` }),
  },
  {
    name: 'healthz',
    title: 'GET /healthz (the app\'s floor)',
    // Every middleware and router of the app, then a small JSON answer (no database): what any
    // Gatehouse request costs before its route does anything.
    expectStatus: 200,
    target: ({ baseUrl }) => ({ url: `${baseUrl}/healthz` }),
  },
  {
    name: 'users-me',
    title: 'GET /identity/v1/Users/me (bearer)',
    expectStatus: 200,
    target: ({ baseUrl, tokens }) => ({
      url: `${baseUrl}/identity/v1/Users/me`,
      headers: { authorization: `Bearer ${tokens.access_token}` },
    }),
  },
  {
    name: 'peer-userinfo',
    title: 'oidc-provider GET /me (userinfo, bearer)',
    server: 'peer',
    peerOf: 'users-me',
    expectStatus: 200,
    // Its userinfo endpoint takes only its own opaque access tokens (openid scope, no resource).
    target: ({ peer }) => ({
      url: `${peer.url}/me`,
      headers: { authorization: `Bearer ${peer.userinfoTokens.access_token}` },
    }),
  },
  {
    name: 'code-exchange',
    title: 'POST /oauth/token (authorization_code)',
    expectStatus: 200,
    needsCodes: true,
    target: ({ baseUrl, identity, codes }) => ({
      url: `${baseUrl}/oauth/token`,
      requests: [
        {
          method: 'POST',
          path: '/oauth/token',
          headers: { authorization: basicAuthorization(identity.clientId, identity.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
          // One fresh code per request, minted before the run.
          setupRequest: (request) => ({ ...request, body: codeExchangeBody(codes.next()) }),
        },
      ],
    }),
  },
  {
    name: 'peer-code-exchange',
    title: 'oidc-provider POST /token (authorization_code)',
    server: 'peer',
    peerOf: 'code-exchange',
    expectStatus: 200,
    needsCodes: true,
    target: ({ peer, codes }) => ({
      url: `${peer.url}/token`,
      requests: [
        {
          method: 'POST',
          path: '/token',
          headers: { authorization: basicAuthorization(peer.identity.clientId, peer.identity.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
          setupRequest: (request) => ({ ...request, body: codeExchangeBody(codes.next()) }),
        },
      ],
    }),
  },
  {
    name: 'refresh',
    title: 'POST /oauth/token (refresh_token)',
    expectStatus: 200,
    target: ({ baseUrl, identity, tokens }) => ({
      url: `${baseUrl}/oauth/token`,
      method: 'POST',
      headers: { authorization: basicAuthorization(identity.clientId, identity.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString(),
    }),
  },
  {
    name: 'peer-refresh',
    title: 'oidc-provider POST /token (refresh_token)',
    server: 'peer',
    peerOf: 'refresh',
    expectStatus: 200,
    target: ({ peer }) => ({
      url: `${peer.url}/token`,
      method: 'POST',
      headers: { authorization: basicAuthorization(peer.identity.clientId, peer.identity.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: peer.tokens.refresh_token }).toString(),
    }),
  },
  {
    name: 'sign-in',
    title: 'POST /oauth/login (password sign-in, 50 browsers)',
    // Issue 32: the login form with the right password, as 50 browsers at once post it; each
    // sign-in hashes the password and opens a session (303 to the start page).
    expectStatus: 303,
    target: ({ baseUrl, identity, loginForm }) => ({
      url: `${baseUrl}/oauth/login`,
      connections: SIGN_IN_CONNECTIONS,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: loginForm.cookie },
      body: new URLSearchParams({ email: identity.email, password: identity.password, csrf_token: loginForm.csrfToken }).toString(),
    }),
  },
  {
    name: 'admin-list',
    title: 'GET …/attributes (admin list, first page)',
    expectStatus: 200,
    target: ({ baseUrl, identity, tokens }) => ({
      url: `${baseUrl}/admin/rest/v1/accounts/${identity.accountKey}/attributes`,
      headers: { authorization: `Bearer ${tokens.access_token}` },
    }),
  },
  {
    name: 'user-attributes-put',
    title: 'PUT …/users/{userKey}/attributes (write)',
    expectStatus: 204,
    target: ({ baseUrl, identity, tokens, attributeKeys }) => {
      const path = `/admin/rest/v1/accounts/${identity.accountKey}/users/${identity.userKey}/attributes`;
      let n = 0;
      return {
        url: `${baseUrl}${path}`,
        requests: [
          {
            method: 'PUT',
            path,
            headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
            // Three values that change on every request, so every request really writes.
            setupRequest: (request) => {
              n += 1;
              const body = JSON.stringify(attributeKeys.slice(0, 3).map((key, i) => ({ key, value: `value ${n}-${i}` })));
              return { ...request, body };
            },
          },
        ],
      };
    },
  },
];

/** Whose process serves a scenario: 'bare', 'gatehouse' (the default) or 'peer'. */
export function serverOf(scenario) {
  return scenario.server ?? 'gatehouse';
}

/** A queue of pre-minted codes; running dry is counted (those requests then fail with invalid_grant). */
export function codeQueue(codes) {
  let at = 0;
  let exhausted = 0;
  return {
    next() {
      if (at < codes.length) return codes[at++];
      exhausted += 1;
      return 'exhausted';
    },
    get used() {
      return Math.min(at, codes.length);
    },
    get exhausted() {
      return exhausted;
    },
  };
}
