import { generateKeyPair, jwtVerify, decodeProtectedHeader, type CryptoKey } from 'jose';
import { describe, expect, it } from 'vitest';
import { es256Signature, signEs256Compact, signEs256CompactWith } from './jws.js';

describe('signEs256Compact', () => {
  it('makes a compact JWS that jose verifies with the public key, header and claims as given', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwt = signEs256Compact({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }, { sub: 'user-1', exp: 4102444800, note: 'é' }, privateKey as CryptoKey);
    expect(jwt.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' });
    // RFC 7518 §3.4: R‖S of 32 bytes each, not DER.
    expect(Buffer.from(jwt.split('.')[2] as string, 'base64url')).toHaveLength(64);
    const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, { algorithms: ['ES256'], typ: 'at+jwt' });
    expect(payload).toEqual({ sub: 'user-1', exp: 4102444800, note: 'é' });
    expect(protectedHeader.kid).toBe('k1');
  });

  it('is refused by another key and when one byte of the payload changes', async () => {
    const signer = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const jwt = signEs256Compact({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' }, { sub: 'user-1' }, signer.privateKey as CryptoKey);
    await expect(jwtVerify(jwt, other.publicKey)).rejects.toThrow(/signature verification failed/);
    const [header, , signature] = jwt.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'user-2' })).toString('base64url')}.${signature}`;
    await expect(jwtVerify(forged, signer.publicKey)).rejects.toThrow(/signature verification failed/);
  });
});

describe('signEs256CompactWith', () => {
  it("takes the signature from the signer it is given, over the same signing input", async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const inputs: string[] = [];
    // A signer elsewhere (here: the same computation, answered later).
    const signer = { sign: async (input: string, key: CryptoKey) => (inputs.push(input), es256Signature(input, key)) };
    const jwt = await signEs256CompactWith(signer, { alg: 'ES256', typ: 'at+jwt', kid: 'k1' }, { sub: 'user-1' }, privateKey as CryptoKey);
    expect(inputs).toEqual([jwt.split('.').slice(0, 2).join('.')]);
    const { payload } = await jwtVerify(jwt, publicKey, { algorithms: ['ES256'], typ: 'at+jwt' });
    expect(payload).toEqual({ sub: 'user-1' });
  });
});
