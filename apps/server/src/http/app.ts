import type { Express } from 'express';
import type { Gatehouse } from '@gatehouse/core';
import { createGatehouseApp } from '@gatehouse/http-express';
import type { Config } from '../config.js';
import { findDemoClient } from '../demo.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ShutdownState } from '../shutdown-state.js';
import type { Storage } from '../storage.js';
import { demoCallbackRouter } from './demo-callback.js';
import { healthRouter } from './health.js';

/** The Express app: the Gatehouse routes of @gatehouse/http-express plus health probes and the demo callback. */
export function createHttpApp(options: {
  config: Config;
  gatehouse: Gatehouse;
  storage: Pick<Storage, 'ping'>;
  logger: Logger;
  /** The readiness probe answers 503 once shutdown has begun. */
  shutdown?: Pick<ShutdownState, 'stopping'>;
  /** When metrics are on: the readiness probe's database ping is timed. */
  metrics?: Pick<Metrics, 'timePing'> | undefined;
}): Express {
  const { config, gatehouse, storage, logger, shutdown, metrics } = options;
  const ping = () => storage.ping();
  const extraRouters = [healthRouter({ ping: metrics ? metrics.timePing(ping) : ping, logger, stopping: () => shutdown?.stopping === true })];
  if (config.demo) {
    extraRouters.push(
      demoCallbackRouter({ issuer: config.issuer, demoClientId: async () => (await findDemoClient(gatehouse, config.issuer))?.clientId }),
    );
  }
  return createGatehouseApp({
    gatehouse,
    logger,
    trustProxy: config.trustProxy,
    rateLimit: config.rateLimit,
    extraRouters,
  });
}
