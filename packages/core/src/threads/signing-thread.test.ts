import { generateKeyPair, type CryptoKey } from 'jose';
import { KeyObject, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { es256Signature } from '../tokens/jws.js';
import { startSigningThread, type SigningThread } from './signing-thread.js';

async function keyPair() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey: privateKey as CryptoKey, publicKey: publicKey as CryptoKey };
}

/** RFC 7518 §3.4: SHA-256, the signature as the 64-byte R‖S. */
function verifies(signingInput: string, signature: string, publicKey: CryptoKey): boolean {
  const key = KeyObject.from(publicKey as Parameters<typeof KeyObject.from>[0]);
  return verify('sha256', Buffer.from(signingInput, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

describe('the signing thread', () => {
  let thread: SigningThread;

  afterEach(async () => {
    await thread.stop();
  });

  it('signs RS256 with an RSA key too (OpenID Connect ID tokens, docs/decisions/0131)', async () => {
    thread = startSigningThread();
    const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
    const input = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSJ9';
    const signature = await thread.sign(input, privateKey as CryptoKey);
    expect(Buffer.from(signature, 'base64url')).toHaveLength(256);
    expect(es256Signature(input, privateKey as CryptoKey)).toBe(signature); // RSASSA-PKCS1-v1_5 is deterministic
    expect(verify('sha256', Buffer.from(input, 'ascii'), KeyObject.from(publicKey as Parameters<typeof KeyObject.from>[0]), Buffer.from(signature, 'base64url'))).toBe(true);
  }, 30_000);

  it('signs what one turn of the event loop asks, with each key, off the calling thread', async () => {
    thread = startSigningThread();
    const first = await keyPair();
    const second = await keyPair();
    const inputs = Array.from({ length: 20 }, (_, index) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(`{"n":${index}}`).toString('base64url')}`);
    const pending = inputs.map((input, index) => thread.sign(input, (index % 2 === 0 ? first : second).privateKey));
    // Asked for, not computed here: every answer is a promise.
    expect(pending.every((signature) => signature instanceof Promise)).toBe(true);
    const signatures = await Promise.all(pending);
    signatures.forEach((signature, index) => {
      const { publicKey } = index % 2 === 0 ? first : second;
      const other = index % 2 === 0 ? second : first;
      expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
      expect(verifies(inputs[index] as string, signature, publicKey)).toBe(true);
      expect(verifies(inputs[index] as string, signature, other.publicKey)).toBe(false);
    });
  });

  it('keeps signing with a key it has seen before, and with a new one later', async () => {
    thread = startSigningThread();
    const first = await keyPair();
    expect(verifies('a.b', await thread.sign('a.b', first.privateKey), first.publicKey)).toBe(true);
    const rotated = await keyPair();
    expect(verifies('c.d', await thread.sign('c.d', rotated.privateKey), rotated.publicKey)).toBe(true);
    expect(verifies('e.f', await thread.sign('e.f', first.privateKey), first.publicKey)).toBe(true);
  });

  it('answers what was asked before stop, then signs on the calling thread', async () => {
    thread = startSigningThread();
    const { privateKey, publicKey } = await keyPair();
    const asked = thread.sign('a.b', privateKey);
    await thread.stop();
    expect(verifies('a.b', await asked, publicKey)).toBe(true);
    const after = thread.sign('c.d', privateKey);
    expect(typeof after).toBe('string');
    expect(verifies('c.d', after as string, publicKey)).toBe(true);
    // The same computation as the core's default signer.
    expect(verifies('c.d', es256Signature('c.d', privateKey), publicKey)).toBe(true);
  });
});
