import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { SigningKey } from '../domain/model.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/ids.js';
import type { SigningKeyRepository } from '../ports/repositories.js';
import type { AuditLog } from '../ports/services.js';

/** The algorithm of access tokens (RFC 9068): ES256, the first kind of key every ring keeps. */
export const SIGNING_ALGORITHM = 'ES256';

/**
 * The kinds of signing key a ring keeps: ES256 (P-256) signs access tokens and, for a client that
 * asks for it, ID tokens; RS256 (RSA 2048) signs ID tokens by default (OIDC Core §15.1: mandatory to
 * implement; docs/decisions/0131-id-tokens-rs256-and-es256.md).
 */
export type SigningAlgorithm = 'ES256' | 'RS256';

/** RSA modulus of the RS256 keys (RFC 7518 §3.3: 2048 bits at least). */
export const RSA_MODULUS_LENGTH = 2048;

/**
 * The signing keys, loaded from their repository and kept imported in memory. Several instances
 * (and the `keys rotate` command) share the repository, so each ring re-reads it (docs/decisions/0081):
 *
 * - the key set is re-read when it is older than `KEY_SET_MAX_AGE_MS` before signing or publishing
 *   the JWKS, and on an unknown `kid` at most every `RELOAD_ON_MISS_AT_MOST_EVERY_MS`;
 * - a new key signs only once it is `newKeySignsAfterMs` old (`keyRotationTimings`): longer than a
 *   resource server may cache the JWKS (`jwksMaxAgeSeconds`, the JWKS `Cache-Control: max-age`)
 *   after fetching it from an instance whose set is up to `KEY_SET_MAX_AGE_MS` stale. By then every
 *   JWKS copy still fresh lists the key, and every instance knows it (its set is younger than that,
 *   or an unknown `kid` reloads it). Every instance derives the delay from the key's stored
 *   `createdAt` and the shared setting, so all switch at the same moment (docs/decisions/0081);
 * - a retired key stays published, and is purged, `retiredKeyGraceMs` later than the
 *   access-token lifetime allows for, since it may still sign during that hand-over.
 */
export interface KeyRing {
  /**
   * The key of `alg` (default ES256) to sign with (see above). When there is no active key of
   * `alg`, one is generated and stored, with one of every other kind the ring keeps that has none.
   */
  signingKey(alg?: SigningAlgorithm): Promise<{ kid: string; key: CryptoKey }>;
  /** A stored key by `kid` (active or retired); an unknown `kid` reloads the set (another instance or the CLI rotated). */
  verificationKey(kid: string): Promise<CryptoKey | undefined>;
  /** RFC 7517 JWK Set of the public keys still verifying live tokens, and of a new key before it signs. */
  jwks(): Promise<{ keys: JWK[] }>;
  /**
   * Stores a new key of every kind the ring keeps (and of any kind with an active key) and retires
   * the active ones; they stay published until their tokens expire. The new keys are published at
   * once and sign from `signsFrom` (see above). `kid` is the new ES256 key's (access tokens), `keys`
   * every new key.
   */
  rotate(): Promise<{ kid: string; signsFrom: Date; keys: Array<{ kid: string; alg: SigningAlgorithm }> }>;
  /** Drops retired keys whose last token has expired. */
  purge(): Promise<number>;
}

/** How stale the key set may be when signing or publishing: a rotation elsewhere is seen within this. */
export const KEY_SET_MAX_AGE_MS = 5_000;
/** An unknown `kid` reloads the key set at most this often (garbage `kid`s must not query the database each). */
export const RELOAD_ON_MISS_AT_MOST_EVERY_MS = 5_000;
/**
 * Beyond the JWKS lifetime, a new key waits this much more before it signs. It must exceed a stale
 * key set (`KEY_SET_MAX_AGE_MS`) plus clock skew between instances, and the two intervals above
 * together, so that no instance meets a token of a key it cannot load yet.
 */
export const KEY_HANDOVER_MARGIN_MS = 10_000;
/** How much longer than the new key's wait a retired key stays published: a stale set elsewhere, and skew. */
const RETIRED_KEY_EXTRA_GRACE_MS = 50_000;

/**
 * The rotation timeline, from the JWKS cache lifetime (one setting, so the two cannot drift):
 * a new key signs `newKeySignsAfterMs` after its creation; a retired key stays published
 * `retiredKeyGraceMs` longer than the access-token lifetime after its retirement.
 *
 * @example
 * keyRotationTimings(300); // { newKeySignsAfterMs: 310_000, retiredKeyGraceMs: 360_000 }
 */
export function keyRotationTimings(jwksMaxAgeSeconds: number): { newKeySignsAfterMs: number; retiredKeyGraceMs: number } {
  const newKeySignsAfterMs = jwksMaxAgeSeconds * 1000 + KEY_HANDOVER_MARGIN_MS;
  return { newKeySignsAfterMs, retiredKeyGraceMs: newKeySignsAfterMs + RETIRED_KEY_EXTRA_GRACE_MS };
}

interface Loaded {
  records: SigningKey[];
  imported: Map<string, CryptoKey>;
  loadedAt: number;
}

/**
 * The signing keys of a gatehouse on their repository: generated on first use, rotated on demand,
 * published while their tokens live (docs/operations.md, key rotation). `createGatehouse` makes one.
 *
 * @example
 * const keys = createKeyRing({ repository: repositories.signingKeys, clock, ids: randomIdGenerator, audit, accessTokenTtlSeconds: 3600, jwksMaxAgeSeconds: 300 });
 * const gatehouse = createGatehouse({ repositories, settings, clock, keys });
 */
export function createKeyRing(deps: {
  repository: SigningKeyRepository;
  clock: Clock;
  ids: IdGenerator;
  audit: AuditLog;
  /** Longest lifetime of a token signed by a key: how long a retired key stays published. */
  accessTokenTtlSeconds: number;
  /** How long the JWKS may be cached (its `Cache-Control: max-age`): a new key waits this out before signing. */
  jwksMaxAgeSeconds: number;
  /** The kinds of key to keep and rotate (default `['ES256']`; with OpenID Connect, RS256 too). ES256 is always kept. */
  algorithms?: readonly SigningAlgorithm[];
}): KeyRing {
  const algorithms: SigningAlgorithm[] = [...new Set<SigningAlgorithm>([SIGNING_ALGORITHM, ...(deps.algorithms ?? [])])];
  const now = () => deps.clock.now().getTime();
  const { newKeySignsAfterMs, retiredKeyGraceMs } = keyRotationTimings(deps.jwksMaxAgeSeconds);
  const publishedFor = deps.accessTokenTtlSeconds * 1000 + retiredKeyGraceMs;
  let state: Loaded | undefined;
  let reloading: Promise<Loaded> | undefined;
  /** Imported private keys by kid (forgotten once a key leaves the repository). */
  const privateKeys = new Map<string, Promise<CryptoKey>>();

  async function load(): Promise<Loaded> {
    const records = await deps.repository.list();
    const imported = new Map<string, CryptoKey>();
    for (const record of records) {
      imported.set(record.kid, (await importJWK(record.publicJwk as JWK, record.alg)) as CryptoKey);
    }
    return { records, imported, loadedAt: now() };
  }

  /** Reads the key set again; callers arriving while a read is under way share it. */
  function reload(): Promise<Loaded> {
    reloading ??= load().then(
      (loaded) => {
        state = loaded;
        reloading = undefined;
        for (const kid of privateKeys.keys()) if (!loaded.imported.has(kid)) privateKeys.delete(kid);
        return loaded;
      },
      (error: unknown) => {
        reloading = undefined;
        throw error;
      },
    );
    return reloading;
  }

  /** A read that starts after this ring's own write (not one already under way). */
  async function reloadAfterWrite(): Promise<Loaded> {
    await reloading?.catch(() => undefined);
    return reload();
  }

  const current = (): Promise<Loaded> => (state ? Promise.resolve(state) : reload());
  const fresh = async (): Promise<Loaded> => {
    const loaded = await current();
    return now() - loaded.loadedAt >= KEY_SET_MAX_AGE_MS ? reload() : loaded;
  };

  /**
   * Makes a key of each kind and stores them, all stamped with one `createdAt`, taken once every
   * key pair exists (an RSA key takes a while): the kinds of one rotation settle at the same moment.
   */
  async function generate(kinds: readonly SigningAlgorithm[]): Promise<SigningKey[]> {
    const made: Array<Omit<SigningKey, 'createdAt'>> = [];
    for (const alg of kinds) {
      const pair = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: RSA_MODULUS_LENGTH } : {}) });
      const kid = deps.ids.id();
      const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' };
      const privateJwk = { ...(await exportJWK(pair.privateKey)), kid, alg };
      made.push({ kid, alg, publicJwk, privateJwk, retiredAt: null });
    }
    const createdAt = deps.clock.now();
    const records = made.map((record): SigningKey => ({ ...record, createdAt }));
    for (const record of records) await deps.repository.save(record);
    return records;
  }

  function privateKey(record: SigningKey): Promise<CryptoKey> {
    let key = privateKeys.get(record.kid);
    if (!key) {
      key = importJWK(record.privateJwk as JWK, record.alg) as Promise<CryptoKey>;
      privateKeys.set(record.kid, key);
      key.catch(() => privateKeys.delete(record.kid));
    }
    return key;
  }

  /**
   * The key of `alg` to sign with, and until when that choice holds (a stale set, or a key settling
   * or leaving the hand-over). Without an active key of `alg`, one is generated with one of each
   * other kind kept that has none, so a new database publishes all its first keys together.
   */
  async function chooseSigningKey(alg: SigningAlgorithm): Promise<{ kid: string; key: CryptoKey; until: number }> {
    let loaded = await fresh();
    let at = now();
    let chosen = signingCandidate(ofAlgorithm(loaded.records, alg), at, newKeySignsAfterMs);
    if (!chosen) {
      const missing = [...new Set([alg, ...algorithms])].filter((kind) => !loaded.records.some((record) => record.alg === kind && record.retiredAt === null));
      await generate(missing);
      loaded = await reloadAfterWrite();
      at = now();
      chosen = signingCandidate(ofAlgorithm(loaded.records, alg), at, newKeySignsAfterMs);
      if (!chosen) throw new Error('no signing key after generating one');
    }
    const changes = ofAlgorithm(loaded.records, alg)
      .flatMap((record) => [record.createdAt.getTime(), record.retiredAt?.getTime() ?? Number.NaN])
      .map((time) => time + newKeySignsAfterMs)
      .filter((time) => time > at);
    return { kid: chosen.kid, key: await privateKey(chosen), until: Math.min(loaded.loadedAt + KEY_SET_MAX_AGE_MS, ...changes) };
  }

  /** Per kind of key, the choice of signing key and until when it holds. */
  const signing = new Map<SigningAlgorithm, { choice: Promise<{ kid: string; key: CryptoKey; until: number }>; until: number }>();

  return {
    async signingKey(alg = SIGNING_ALGORITHM) {
      let current = signing.get(alg);
      if (!current || now() >= current.until) {
        const choice = chooseSigningKey(alg);
        const entry = { choice, until: Number.POSITIVE_INFINITY };
        signing.set(alg, entry);
        current = entry;
        choice.then(
          (chosen) => {
            entry.until = chosen.until;
          },
          () => {
            if (signing.get(alg) === entry) signing.delete(alg);
          },
        );
      }
      const { kid, key } = await current.choice;
      return { kid, key };
    },

    async verificationKey(kid) {
      const loaded = await current();
      const known = loaded.imported.get(kid);
      if (known) return known;
      // Reload on a miss at most every few seconds, except while no key is old enough to sign
      // (the first keys of a new database, made by instances starting together): then at once.
      const at = now();
      if (at - loaded.loadedAt < RELOAD_ON_MISS_AT_MOST_EVERY_MS && loaded.records.some((record) => isSettled(record, at, newKeySignsAfterMs))) return undefined;
      return (await reload()).imported.get(kid);
    },

    async jwks() {
      const loaded = await fresh();
      const at = now();
      const keys = loaded.records
        .filter((record) => !record.retiredAt || record.retiredAt.getTime() + publishedFor > at)
        .map((record) => record.publicJwk as JWK);
      return { keys };
    },

    async rotate() {
      // Every kind kept, and any other kind with an active key (so none is left without a successor).
      const stored = await deps.repository.list();
      const kinds = [...new Set([...algorithms, ...stored.filter((record) => record.retiredAt === null).map((record) => record.alg)])];
      const created = await generate(kinds);
      const at = deps.clock.now();
      // Every other active key, as stored now (another instance may have added one).
      for (const record of await deps.repository.list()) {
        if (!record.retiredAt && !created.some((key) => key.kid === record.kid)) await deps.repository.retire(record.kid, at);
      }
      await reloadAfterWrite();
      signing.clear();
      const accessTokenKey = created.find((key) => key.alg === SIGNING_ALGORITHM) as SigningKey;
      deps.audit.record({ type: 'key.rotated', at, reason: `new kid ${created.map((key) => key.kid).join(', ')}` });
      return {
        kid: accessTokenKey.kid,
        signsFrom: new Date(accessTokenKey.createdAt.getTime() + newKeySignsAfterMs),
        keys: created.map((key) => ({ kid: key.kid, alg: key.alg })),
      };
    },

    async purge() {
      const removed = await deps.repository.purgeRetiredBefore(new Date(now() - publishedFor));
      if (removed > 0) {
        state = undefined;
        signing.clear();
      }
      return removed;
    },
  };
}

/** The records of one kind of key; records stored before RS256 existed are ES256. */
function ofAlgorithm(records: readonly SigningKey[], alg: SigningAlgorithm): SigningKey[] {
  return records.filter((record) => record.alg === alg);
}

/** Old enough that every JWKS copy still fresh and every instance can know it (see `keyRotationTimings`). */
function isSettled(record: SigningKey, at: number, newKeySignsAfterMs: number): boolean {
  return record.createdAt.getTime() <= at - newKeySignsAfterMs;
}

/**
 * The key to sign with at `at`, among the active keys and the keys retired less than
 * `newKeySignsAfterMs` ago (the hand-over after a rotation): the newest settled one; while
 * none is settled, the oldest (the one most likely known everywhere). Undefined without an active key.
 */
export function signingCandidate(records: readonly SigningKey[], at: number, newKeySignsAfterMs: number): SigningKey | undefined {
  if (!records.some((record) => record.retiredAt === null)) return undefined;
  const candidates = records
    .filter((record) => record.retiredAt === null || record.retiredAt.getTime() > at - newKeySignsAfterMs)
    .sort((x, y) => y.createdAt.getTime() - x.createdAt.getTime() || (x.kid < y.kid ? 1 : -1));
  return candidates.find((record) => isSettled(record, at, newKeySignsAfterMs)) ?? candidates[candidates.length - 1];
}
