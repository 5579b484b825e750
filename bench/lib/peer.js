// The peer (issue 16): node-oidc-provider in its own process (bench/peer-server.js), with the
// same client authentication, PKCE, signing algorithm and scopes as the Gatehouse scenarios.
// Codes are minted inside its process through its own models, over the IPC channel.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startNode, waitUntilReady } from './children.js';
import { BENCH_CODE_CHALLENGE, REDIRECT_URI, ALL_SCOPES } from './provision.js';
import { secret } from './ids.js';

const PEER_SERVER = fileURLToPath(new URL('../peer-server.js', import.meta.url));

/** The resource its JWT access tokens are for (RFC 8707 resource indicator). */
export const PEER_RESOURCE = 'https://api.bench.invalid';

/** The installed version (the root devDependency pins it). */
export function peerVersion() {
  const require = createRequire(import.meta.url);
  return require('oidc-provider/package.json').version;
}

/**
 * Starts node-oidc-provider on a free loopback port; resolves when its discovery document answers.
 * Returns its URL, the client's credentials and `mint` / `discard` for authorization codes.
 */
export async function startPeer({ workDir, name, nodeArgs = [] }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const clientId = 'bench-client';
  const clientSecret = secret();
  const entry = startNode('oidc-provider', [...nodeArgs, PEER_SERVER, String(port)], {
    env: {
      PEER_CLIENT_ID: clientId,
      PEER_CLIENT_SECRET: clientSecret,
      PEER_REDIRECT_URI: REDIRECT_URI,
      PEER_RESOURCE,
      PEER_SCOPE: ALL_SCOPES.join(' '),
      PEER_CODE_CHALLENGE: BENCH_CODE_CHALLENGE,
    },
    logFile: join(workDir, `peer-${name}.log`),
  });
  await waitUntilReady(entry, `${url}/.well-known/openid-configuration`);

  let nextId = 0;
  const waiting = new Map();
  entry.child.on('message', (message) => {
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(`oidc-provider: ${message.error}`));
    else pending.resolve(message);
  });
  entry.exited.then((info) => {
    for (const pending of waiting.values()) pending.reject(new Error(`oidc-provider exited (${JSON.stringify(info)})`));
    waiting.clear();
  });
  const ask = (body) =>
    new Promise((resolve, reject) => {
      nextId += 1;
      waiting.set(nextId, { resolve, reject });
      entry.child.send({ id: nextId, ...body });
    });

  return {
    entry,
    url,
    identity: { clientId, clientSecret },
    /** `count` codes for the resource's scopes, or (`userinfo`) for `openid profile email`. */
    async mint(count, { userinfo = false } = {}) {
      return (await ask({ type: 'mint', count, userinfo })).codes;
    },
    /** Removes the codes minted and never exchanged (with their grants); returns how many. */
    async discard() {
      return (await ask({ type: 'discard' })).removed;
    },
  };
}
