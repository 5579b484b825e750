import { KeyObject, sign } from 'node:crypto';
import type { CryptoKey } from 'jose';
import type { Es256Signer } from '../ports/services.js';

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
 * the calling thread: the default `Es256Signer`.
 */
export function es256Signature(signingInput: string, privateKey: CryptoKey): string {
  return sign('sha256', Buffer.from(signingInput, 'ascii'), { key: keyObjectOf(privateKey), dsaEncoding: 'ieee-p1363' }).toString('base64url');
}
