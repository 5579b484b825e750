import type { CryptoKey } from 'jose';
import type { Message, MessageStatus } from '../domain/model.js';

/** Delivers an outgoing message (SMS gateway, queue…). */
export interface MessageTransport {
  send(message: Message): Promise<MessageStatus>;
}

/**
 * Computes the ES256 signature of a JWS signing input (RFC 7515 §5.1: `header.payload`, both
 * base64url) with a private P-256 key: SHA-256, then the 64-byte R‖S of RFC 7518 §3.4, returned
 * base64url-encoded. Gatehouse signs access tokens through it; by default on the calling thread
 * (node:crypto). A host may sign elsewhere, e.g. on a worker thread (docs/decisions/0076-signing-on-a-thread.md).
 * With OpenID Connect on, ID tokens are signed through it too, and the key may then be an RSA
 * key: the RS256 signature (RFC 7518 §3.3, RSASSA-PKCS1-v1_5 with SHA-256), which node:crypto's
 * `sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' })` computes for either kind
 * (docs/decisions/0131-id-tokens-rs256-and-es256.md).
 *
 * @example
 * const signer: Es256Signer = { sign: (input, key) => mySigningService.sign(input, key) };
 * const gatehouse = createGatehouse({ repositories, settings, clock, signer });
 */
export interface Es256Signer {
  sign(signingInput: string, privateKey: CryptoKey): string | Promise<string>;
}

/**
 * Slow, salted password hashing (docs/security.md). A hash names its algorithm and cost, so
 * hashes of an older cost keep verifying and are replaced at the next successful sign-in.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** True when `password` matches; false for a wrong password or a hash this hasher cannot read. */
  verify(password: string, passwordHash: string): Promise<boolean>;
  /** True when `passwordHash` is not of this hasher's current algorithm and cost (sign-in then stores a new hash). */
  needsRehash(passwordHash: string): boolean;
}

export type AuditEventType =
  | 'sign_in.succeeded'
  | 'sign_in.failed'
  | 'consent.granted'
  | 'consent.remembered'
  | 'consent.denied'
  | 'code.replayed'
  | 'refresh_token.reused'
  | 'grant.revoked'
  | 'logout'
  | 'password.changed'
  | 'user.disabled'
  | 'user.enabled'
  | 'user.forgotten'
  | 'user.deleted'
  | 'client.created'
  | 'client.updated'
  | 'client.deleted'
  | 'client.secret_rotated'
  | 'client.authentication_failed'
  | 'key.rotated';

/** A security event: who, which client, when. Never a secret, token, code or password. */
export interface AuditEvent {
  type: AuditEventType;
  at: Date;
  userKey?: string;
  clientId?: string;
  grantIds?: string[];
  reason?: string;
  /** The request that caused the event, when the caller said (`gatehouse.forRequest`). */
  requestId?: string;
}

export interface AuditLog {
  record(event: AuditEvent): void;
}
