import type { Command } from '../command.js';

export const keysList: Command = {
  path: ['keys', 'list'],
  usage: 'gatehouse keys list [--json]',
  options: {},
  positionals: [],
  help: `Lists the published signing keys (the JWKS): kid, algorithm, type. Never a private part.

Options:
  --json    print {"keys": [{"kid", "alg", "kty", "use"}]}

Examples:
  gatehouse keys list`,
  async run({ gatehouse }) {
    // The published keys (RFC 7517), retired ones included while their tokens live; never a private part.
    const { keys } = await gatehouse.jwks();
    const listed = keys.map((key) => ({ kid: String(key.kid), alg: String(key.alg), kty: String(key.kty), use: key.use === undefined ? 'sig' : String(key.use) }));
    return {
      json: { keys: listed },
      text: listed.length === 0 ? 'No signing keys yet: the first token signed, or gatehouse keys rotate, creates one.' : listed.map((key) => `${key.kid}  ${key.alg} (${key.kty})`).join('\n'),
    };
  },
};

export const keysRotate: Command = {
  path: ['keys', 'rotate'],
  usage: 'gatehouse keys rotate [--json]',
  options: {},
  positionals: [],
  help: `Adds a new signing key. It is published at once and signs once every cached JWKS lists it; the
previous key signs until then and stays published until its tokens expire (docs/operations.md).

Options:
  --json    print {"kid", "signsFrom", "keys": [{"kid", "alg"}]}

Examples:
  gatehouse keys rotate
  gatehouse keys rotate --json`,
  async run({ gatehouse }) {
    // Every active key is published: an empty JWKS means there is none to hand over from or retire.
    const first = (await gatehouse.jwks()).keys.length === 0;
    // With OpenID Connect, an RS256 key (ID tokens) is rotated with the ES256 one (docs/decisions/0131).
    const { kid, signsFrom, keys } = await gatehouse.rotateSigningKey();
    const companions = keys.length > 1 ? ` (with ${keys.filter((key) => key.kid !== kid).map((key) => `${key.alg} key ${key.kid}`).join(', ')} for ID tokens)` : '';
    if (first) {
      // The key ring signs with the oldest active key while none is settled: the only one, at once.
      return {
        json: { kid, signsFrom: signsFrom.toISOString(), keys },
        text: `First signing key ${kid}${companions} created; there was no previous key, so none was retired. It signs at once: there is no other key to hand over from.`,
      };
    }
    // docs/operations.md (key rotation): a new key signs only once every cached JWKS lists it.
    const waitSeconds = Math.round((signsFrom.getTime() - gatehouse.clock.now().getTime()) / 1000);
    const { jwksMaxAgeSeconds, accessTokenTtlSeconds } = gatehouse.settings;
    return {
      json: { kid, signsFrom: signsFrom.toISOString(), keys },
      text:
        `New signing key ${kid}${companions}. ` +
        `Running servers publish it within 5 s and sign with it from ${signsFrom.toISOString()} ` +
        `(in ${waitSeconds} s: the JWKS may be cached ${jwksMaxAgeSeconds} s); the previous key signs until then and stays in the JWKS ` +
        `until its tokens expire (${accessTokenTtlSeconds} s after the hand-over).`,
    };
  },
};
