import type { AuditEvent, AuditLog } from '@gatehouse/core';
import type { Logger } from './logger.js';

/**
 * The core's audit port on the logger: one line per security event, marked `audit: true`
 * (who, which client, when; the core never puts a secret in an event), with the `reqId` of the
 * request that caused it when there was one (the same field as the access-log line's).
 */
export function createPinoAuditLog(logger: Pick<Logger, 'info'>): AuditLog {
  return {
    record(event: AuditEvent) {
      const { type, at, requestId, ...who } = event;
      logger.info({ audit: true, event: type, at: at.toISOString(), ...who, ...(requestId === undefined ? {} : { reqId: requestId }) }, `audit ${type}`);
    },
  };
}
