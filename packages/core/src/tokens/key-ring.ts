import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SigningKey } from '../domain/model.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/ids.js';
import type { SigningKeyRepository } from '../ports/repositories.js';
import type { AuditLog } from '../ports/services.js';

export const SIGNING_ALGORITHM = 'ES256';

/** The signing keys, loaded from their repository and kept imported in memory. */
export interface KeyRing {
  /** The newest active key; one is generated and stored when there is none. */
  signingKey(): Promise<{ kid: string; key: CryptoKey }>;
  /** A published key by `kid` (active or retired); reloads once from the repository when unknown (another instance rotated). */
  verificationKey(kid: string): Promise<CryptoKey | undefined>;
  /** RFC 7517 JWK Set of the public keys still verifying live tokens. */
  jwks(): Promise<{ keys: JWK[] }>;
  /** Generates a new signing key; the old one is retired but stays published until its tokens expire. */
  rotate(): Promise<{ kid: string }>;
  /** Drops retired keys whose last token has expired. */
  purge(): Promise<number>;
}

interface Loaded {
  records: SigningKey[];
  imported: Map<string, CryptoKey>;
  loadedAt: number;
}

const RELOAD_AT_MOST_EVERY_MS = 5000;

export function createKeyRing(deps: {
  repository: SigningKeyRepository;
  clock: Clock;
  ids: IdGenerator;
  audit: AuditLog;
  /** Longest lifetime of a token signed by a key: how long a retired key stays published. */
  accessTokenTtlSeconds: number;
}): KeyRing {
  let loaded: Promise<Loaded> | undefined;

  async function load(): Promise<Loaded> {
    const records = await deps.repository.list();
    const imported = new Map<string, CryptoKey>();
    for (const record of records) {
      imported.set(record.kid, (await importJWK(record.publicJwk as JWK, SIGNING_ALGORITHM)) as CryptoKey);
    }
    return { records, imported, loadedAt: deps.clock.now().getTime() };
  }

  function current(): Promise<Loaded> {
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  }

  async function generate(): Promise<SigningKey> {
    const pair = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
    const kid = deps.ids.id();
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: SIGNING_ALGORITHM, use: 'sig' };
    const privateJwk = { ...(await exportJWK(pair.privateKey)), kid, alg: SIGNING_ALGORITHM };
    const record: SigningKey = {
      kid,
      alg: SIGNING_ALGORITHM,
      publicJwk,
      privateJwk,
      createdAt: deps.clock.now(),
      retiredAt: null,
    };
    await deps.repository.save(record);
    return record;
  }

  let signing: Promise<{ kid: string; key: CryptoKey }> | undefined;

  async function resolveSigningKey(): Promise<{ kid: string; key: CryptoKey }> {
    let state = await current();
    let active = newestActive(state.records);
    if (!active) {
      await generate();
      loaded = undefined;
      state = await current();
      active = newestActive(state.records);
      if (!active) throw new Error('no signing key after generating one');
    }
    return { kid: active.kid, key: (await importJWK(active.privateJwk as JWK, SIGNING_ALGORITHM)) as CryptoKey };
  }

  return {
    signingKey() {
      signing ??= resolveSigningKey().catch((error: unknown) => {
        signing = undefined;
        throw error;
      });
      return signing;
    },

    async verificationKey(kid) {
      const state = await current();
      const known = state.imported.get(kid);
      if (known) return known;
      if (deps.clock.now().getTime() - state.loadedAt < RELOAD_AT_MOST_EVERY_MS) return undefined;
      loaded = undefined;
      signing = undefined;
      return (await current()).imported.get(kid);
    },

    async jwks() {
      const state = await current();
      const now = deps.clock.now().getTime();
      const keys = state.records
        .filter((record) => !record.retiredAt || record.retiredAt.getTime() + deps.accessTokenTtlSeconds * 1000 > now)
        .map((record) => record.publicJwk as JWK);
      return { keys };
    },

    async rotate() {
      const state = await current();
      const fresh = await generate();
      const at = deps.clock.now();
      for (const record of state.records) {
        if (!record.retiredAt) await deps.repository.retire(record.kid, at);
      }
      loaded = undefined;
      signing = undefined;
      deps.audit.record({ type: 'key.rotated', at, reason: `new kid ${fresh.kid}` });
      return { kid: fresh.kid };
    },

    async purge() {
      const before = new Date(deps.clock.now().getTime() - deps.accessTokenTtlSeconds * 1000);
      const removed = await deps.repository.purgeRetiredBefore(before);
      if (removed > 0) loaded = undefined;
      return removed;
    },
  };
}

function newestActive(records: SigningKey[]): SigningKey | undefined {
  return records
    .filter((record) => record.retiredAt === null)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
}
