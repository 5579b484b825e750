import type { Message, MessageStatus } from '../domain/model.js';
import type { IdGenerator } from '../ports/ids.js';
import type { AuditEvent, AuditLog, MessageTransport, PasswordHasher } from '../ports/services.js';
import { constantTimeEqual, randomAlphanumeric } from '../crypto.js';
import { copyRecord } from './copy.js';

/** Readable, predictable ids (`id1`, `id2`…) with real random secrets. */
export function createSequentialIds(prefix = 'id'): IdGenerator {
  let next = 0;
  return {
    id: () => `${prefix}${(next += 1)}`,
    secret: () => randomAlphanumeric(43),
  };
}

/** A fast stand-in for scrypt: tests sign in many times. Not for production. */
export function createFastPasswordHasher(): PasswordHasher {
  return {
    hash: async (password) => `plain-for-tests$${Buffer.from(password, 'utf8').toString('base64url')}`,
    verify: async (password, hash) => constantTimeEqual(hash, `plain-for-tests$${Buffer.from(password, 'utf8').toString('base64url')}`),
    needsRehash: (hash) => !hash.startsWith('plain-for-tests$'),
  };
}

/** An audit log that keeps its events for assertions. */
export interface RecordingAuditLog extends AuditLog {
  events: AuditEvent[];
  ofType(type: AuditEvent['type']): AuditEvent[];
}

export function createRecordingAuditLog(): RecordingAuditLog {
  const events: AuditEvent[] = [];
  return {
    events,
    record: (event) => void events.push(event),
    ofType: (type) => events.filter((event) => event.type === type),
  };
}

/** A message transport that keeps what it was given. */
export interface RecordingTransport extends MessageTransport {
  sent: Message[];
}

export function createRecordingTransport(status: MessageStatus = 'SENT'): RecordingTransport {
  const sent: Message[] = [];
  return {
    sent,
    send: async (message) => {
      sent.push(copyRecord(message));
      return status;
    },
  };
}
