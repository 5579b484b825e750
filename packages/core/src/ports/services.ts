import type { Message, MessageStatus } from '../domain/model.js';

/** Delivers an outgoing message (SMS gateway, queue…). */
export interface MessageTransport {
  send(message: Message): Promise<MessageStatus>;
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, passwordHash: string): Promise<boolean>;
}

export type AuditEventType =
  | 'sign_in.succeeded'
  | 'sign_in.failed'
  | 'consent.granted'
  | 'consent.denied'
  | 'code.replayed'
  | 'refresh_token.reused'
  | 'grant.revoked'
  | 'logout'
  | 'password.changed'
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
