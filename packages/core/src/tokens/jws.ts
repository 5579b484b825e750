import { KeyObject, sign } from 'node:crypto';
import type { CryptoKey } from 'jose';
import type { Es256Signer } from '../ports/services.js';
import type { SigningAlgorithm } from './key-ring.js';

/** Node's key objects of the ring's CryptoKeys, made once per key. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

function keyObjectOf(key: CryptoKey): KeyObject {
  let keyObject = keyObjects.get(key);
  if (keyObject === undefined) {
    keyObject = KeyObject.from(key as Parameters<typeof KeyObject.from>[0]);
    keyObjects.set(key, keyObject);
  }
  return keyObject;
}

function base64urlJson(value: object): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/**
 * RFC 7515 §7.1 compact serialization of an ES256 JWS (RFC 7518 §3.4: SHA-256 over
 * `header.payload`, the signature as the 64-byte R‖S, not DER). Signed synchronously with
 * node:crypto: jose's WebCrypto path costs a thread-pool round trip per token.
 *
 * @example
 * const jwt = signEs256Compact({ alg: 'ES256', typ: 'at+jwt', kid }, { sub: 'u1' }, privateKey);
 */
export function signEs256Compact(header: { alg: 'ES256'; typ: string; kid: string }, payload: object, privateKey: CryptoKey): string {
  const signingInput = signingInputOf(header, payload);
  return `${signingInput}.${es256Signature(signingInput, privateKey)}`;
}

/**
 * RFC 7515 §7.1 compact serialization of a JWS signed with SHA-256 by the key's kind: ES256 (as
 * above) or RS256 (RFC 7518 §3.3: RSASSA-PKCS1-v1_5, what node:crypto's `sign` computes for an RSA
 * key with the same call), on the calling thread, or by `signer` when given (it gets RSA keys too).
 *
 * @example
 * const idToken = await signJwsCompact({ alg: 'RS256', typ: 'JWT', kid }, { sub: 'u1' }, rsaKey, signer);
 */
export async function signJwsCompact(header: { alg: SigningAlgorithm; typ: string; kid: string }, payload: object, privateKey: CryptoKey, signer?: Es256Signer): Promise<string> {
  const signingInput = signingInputOf(header, payload);
  return `${signingInput}.${signer === undefined ? es256Signature(signingInput, privateKey) : await signer.sign(signingInput, privateKey)}`;
}

/**
 * The same token, its signature computed by `signer` (an `Es256Signer`, e.g. on a worker thread).
 *
 * @example
 * const jwt = await signEs256CompactWith(signer, { alg: 'ES256', typ: 'at+jwt', kid }, { sub: 'u1' }, privateKey);
 */
export async function signEs256CompactWith(signer: Es256Signer, header: { alg: 'ES256'; typ: string; kid: string }, payload: object, privateKey: CryptoKey): Promise<string> {
  const signingInput = signingInputOf(header, payload);
  return `${signingInput}.${await signer.sign(signingInput, privateKey)}`;
}

/** RFC 7515 §5.1: BASE64URL(UTF8(header)) '.' BASE64URL(payload). */
function signingInputOf(header: object, payload: object): string {
  return `${base64urlJson(header)}.${base64urlJson(payload)}`;
}

/**
 * The base64url ES256 signature of a signing input (RFC 7518 §3.4: SHA-256, the 64-byte R‖S), on
 * the calling thread: the default `Es256Signer`. Given an RSA key, the RS256 signature (RFC 7518
 * §3.3: `dsaEncoding` only concerns (EC)DSA keys).
 */
export function es256Signature(signingInput: string, privateKey: CryptoKey): string {
  return sign('sha256', Buffer.from(signingInput, 'ascii'), { key: keyObjectOf(privateKey), dsaEncoding: 'ieee-p1363' }).toString('base64url');
}
