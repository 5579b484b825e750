import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { Repositories } from '@gatehouse/core';

const b64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');

/** A compact JWS of `header` and `payload`, signed by `signer` over `header.payload`. */
export function compactJws(header: object, payload: object, signer: (input: string) => string): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${signer(input)}`;
}

/** ES256 signature (RFC 7518 §3.4: r‖s, not DER). */
export function es256(key: KeyObject): (input: string) => string {
  return (input) => b64url(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }));
}

export function hs256(secret: string | Buffer): (input: string) => string {
  return (input) => b64url(createHmac('sha256', secret).update(input).digest());
}

/** The server's current signing key, read from its repository (what an attacker does not have). */
export async function serverSigningKey(repositories: Repositories): Promise<{ kid: string; privateKey: KeyObject; publicKey: KeyObject; publicJwk: JsonWebKey }> {
  const keys = await repositories.signingKeys.list();
  const key = keys.find((k) => k.retiredAt === null);
  if (!key) throw new Error('the server has no signing key yet');
  return {
    kid: key.kid,
    privateKey: createPrivateKey({ key: key.privateJwk as JsonWebKey, format: 'jwk' }),
    publicKey: createPublicKey({ key: key.publicJwk as JsonWebKey, format: 'jwk' }),
    publicJwk: key.publicJwk as JsonWebKey,
  };
}

/** A P-256 key the server never saw. */
export function strangerKey(): KeyObject {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
}

/** Decodes the payload of a JWT (no verification). */
export function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;
}
