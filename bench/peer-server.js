// The peer of the benchmark (issue 16): node-oidc-provider, configured for the same work as
// Gatehouse's scenarios, in its own process on loopback. Started by bench/run.js:
//   node bench/peer-server.js <port>   (PEER_CLIENT_ID, PEER_CLIENT_SECRET, PEER_* in the environment)
// The benchmark asks it over the IPC channel for authorization codes, minted through the
// provider's own models as its consent step would (one Grant each, PKCE S256), and for the
// removal of those left unused. See docs/performance.md "The peer".
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import Provider from 'oidc-provider';
import { setStorage } from 'oidc-provider/lib/adapters/memory_adapter.js';

const port = Number(process.argv[2] ?? 4999);
const issuer = `http://127.0.0.1:${port}`;
const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const CLIENT_ID = env('PEER_CLIENT_ID');
const CLIENT_SECRET = env('PEER_CLIENT_SECRET');
const REDIRECT_URI = env('PEER_REDIRECT_URI');
const RESOURCE = env('PEER_RESOURCE');
const RESOURCE_SCOPE = env('PEER_SCOPE');
const CODE_CHALLENGE = env('PEER_CODE_CHALLENGE');
const USERINFO_SCOPE = 'openid profile email';
const ACCOUNT = { accountId: 'bench-user', email: 'bench@bench.invalid', givenName: 'Bench', familyName: 'User' };

// Its default adapter (MemoryAdapter) keeps everything in a quick-lru of 1,000 entries, which
// would evict the pre-minted codes: the same adapter gets the same LRU class (the copy
// oidc-provider itself resolves), only larger.
const requireFromProvider = createRequire(createRequire(import.meta.url).resolve('oidc-provider'));
const { default: QuickLRU } = await import(pathToFileURL(requireFromProvider.resolve('quick-lru')).href);
setStorage(new QuickLRU({ maxSize: 2_000_000 }));

// ES256, as Gatehouse signs its access tokens; a fresh key per run.
const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'bench-es256', alg: 'ES256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [signingKey] },
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
  findAccount: async (_ctx, sub) =>
    sub === ACCOUNT.accountId
      ? {
          accountId: sub,
          claims: async () => ({
            sub,
            email: ACCOUNT.email,
            email_verified: true,
            name: `${ACCOUNT.givenName} ${ACCOUNT.familyName}`,
            given_name: ACCOUNT.givenName,
            family_name: ACCOUNT.familyName,
          }),
        }
      : undefined,
  // PKCE: its default (required, S256 only) is kept.
  features: {
    devInteractions: { enabled: false },
    userinfo: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => RESOURCE,
      useGrantedResource: async () => true,
      getResourceServerInfo: async () => ({ scope: RESOURCE_SCOPE, audience: RESOURCE, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
    },
  },
  // A refresh token for every code of a client allowed the grant (its default asks for offline_access).
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: false,
  // Never used: the benchmark mints its codes through the models (below).
  interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
  ttl: { AuthorizationCode: 120, AccessToken: 3600, RefreshToken: 14 * 24 * 3600, Grant: 14 * 24 * 3600, Session: 14 * 24 * 3600, Interaction: 600, IdToken: 3600 },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`server_error: ${error.stack ?? error}\n`));

/** Codes not yet exchanged, with their grants: what `discard` removes. */
let minted = [];

/**
 * `count` authorization codes as its consent step leaves them: a Grant with the scopes, then the
 * code bound to it, the client, the redirect URI and the PKCE challenge. `userinfo` codes carry
 * `openid profile email` and no resource, so their access token is the opaque one its userinfo
 * endpoint accepts; the others carry the resource's scopes and its resource indicator.
 */
async function mint(count, { userinfo = false } = {}) {
  const client = await provider.Client.find(CLIENT_ID);
  const codes = [];
  const authTime = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i += 1) {
    const grant = new provider.Grant({ accountId: ACCOUNT.accountId, clientId: CLIENT_ID });
    if (userinfo) grant.addOIDCScope(USERINFO_SCOPE);
    else grant.addResourceScope(RESOURCE, RESOURCE_SCOPE);
    const grantId = await grant.save();
    const code = new provider.AuthorizationCode({
      accountId: ACCOUNT.accountId,
      client,
      grantId,
      authTime,
      redirectUri: REDIRECT_URI,
      scope: userinfo ? USERINFO_SCOPE : RESOURCE_SCOPE,
      resource: userinfo ? undefined : RESOURCE,
      codeChallenge: CODE_CHALLENGE,
      codeChallengeMethod: 'S256',
      expiresWithSession: false,
    });
    const value = await code.save();
    codes.push(value);
    minted.push([value, grantId]);
  }
  return codes;
}

/** Removes the codes never exchanged and their grants (a used code's grant stays, as in Gatehouse). */
async function discard() {
  let removed = 0;
  for (const [value, grantId] of minted) {
    const code = await provider.AuthorizationCode.find(value, { ignoreExpiration: true });
    if (code && !code.consumed) {
      await code.destroy();
      await provider.Grant.adapter.destroy(grantId);
      removed += 1;
    }
  }
  minted = [];
  return removed;
}

process.on('message', (message) => {
  const answer = (body) => process.send?.({ id: message.id, ...body });
  const work = message.type === 'mint' ? mint(message.count, { userinfo: message.userinfo }).then((codes) => ({ codes })) : message.type === 'discard' ? discard().then((removed) => ({ removed })) : Promise.reject(new Error(`unknown message ${message.type}`));
  work.then(answer, (error) => answer({ error: error instanceof Error ? error.message : String(error) }));
});

const server = createServer(provider.callback()).listen(port, '127.0.0.1', () => {
  process.stdout.write(`oidc-provider listening on ${issuer}\n`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
