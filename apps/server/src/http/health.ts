import { StorageUnavailableError } from '@gatehouse/core';
import { routineRequest, type StorageOutages } from '@gatehouse/http-express';
import { Router } from 'express';
import type { Logger } from '../logger.js';

/** The size of readiness's write during an outage: more than any ordinary request writes at once. */
export const OUTAGE_PROBE_BYTES = 256 * 1024;

export interface HealthOptions {
  /** True when the database answers a read. */
  ping: () => Promise<boolean>;
  /** Resolves when the database takes a write of `bytes` (Storage.checkWrites); rejects otherwise. */
  checkWrites: (options: { bytes: number }) => Promise<void>;
  /** Where the probe reports an outage (a failed write) and a recovery (a write that went through). */
  storageOutages?: Pick<StorageOutages, 'failed' | 'succeeded' | 'current'>;
  logger: Pick<Logger, 'warn'>;
  stopping?: () => boolean;
}

/**
 * GET /healthz: the process is up (for a liveness probe).
 * GET /readyz: the database answers a read and takes a write, and the server is not stopping (for
 * a readiness probe / load balancer). A database that answers reads but takes no writes (a full
 * disk, a read-only file or server) is not ready; the probe writes each time it is asked (256 KiB
 * during an outage), so it turns back to 200 by itself once the database takes writes again, and
 * ends the outage (docs/decisions/0103-readiness-checks-writes.md).
 * From the moment shutdown begins it answers 503, while requests in flight finish. Probes that
 * arrive together share one check.
 */
export function healthRouter(options: HealthOptions): Router {
  const router = Router();
  let checking: Promise<boolean> | undefined;
  const check = async (): Promise<boolean> => {
    let answers = false;
    try {
      answers = await options.ping();
    } catch (error) {
      options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'database ping failed');
    }
    try {
      // During an outage the write needs room: a full disk may take a few bytes into room a failed write left.
      await options.checkWrites({ bytes: options.storageOutages?.current === undefined ? 0 : OUTAGE_PROBE_BYTES });
      options.storageOutages?.succeeded();
      return answers;
    } catch (error) {
      if (error instanceof StorageUnavailableError) options.storageOutages?.failed(error);
      else options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'readiness write failed');
      return false;
    }
  };
  // Probes come every few seconds: their access lines go to debug while they succeed (docs/operations.md "Logs").
  router.get('/healthz', (_req, res) => {
    routineRequest(res);
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    routineRequest(res);
    if (options.stopping?.() === true) {
      res.set('Cache-Control', 'no-store').status(503).json({ status: 'stopping' });
      return;
    }
    checking ??= check().finally(() => (checking = undefined));
    const ready = await checking;
    res.set('Cache-Control', 'no-store').status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  return router;
}
