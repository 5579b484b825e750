import type { Express } from 'express';
import type { Gatehouse, ProductApi } from '@gatehouse/core';
import { createGatehouseApp, type StorageOutages } from '@gatehouse/http-express';
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
  /** The product APIs the resource routes serve (docs/decisions/0161). */
  product: ProductApi;
  storage: Pick<Storage, 'ping' | 'checkWrites' | 'failedAttempts'>;
  /** The database's outages (createStorageOutages): the 503 answers report to it, readiness too. */
  storageOutages: StorageOutages;
  logger: Logger;
  /** The readiness probe answers 503 once shutdown has begun. */
  shutdown?: Pick<ShutdownState, 'stopping'>;
  /** When metrics are on: the readiness probe's database ping is timed. */
  metrics?: Pick<Metrics, 'timePing'> | undefined;
}): Express {
  const { config, gatehouse, product, storage, storageOutages, logger, shutdown, metrics } = options;
  const ping = () => storage.ping();
  const extraRouters = [
    healthRouter({ ping: metrics ? metrics.timePing(ping) : ping, checkWrites: (probe) => storage.checkWrites(probe), storageOutages, logger, stopping: () => shutdown?.stopping === true }),
  ];
  if (config.demo) {
    extraRouters.push(
      demoCallbackRouter({ issuer: config.issuer, demoClient: () => findDemoClient(gatehouse, config.issuer) }),
    );
  }
  return createGatehouseApp({
    gatehouse,
    product,
    logger,
    storageOutages,
    trustProxy: config.trustProxy,
    rateLimit: config.rateLimit,
    // GATEHOUSE_PASSWORD_HELP_TEXT / _URL: the sign-in page's "Forgot your password?" (docs/decisions/0156).
    passwordHelp: config.passwordHelp,
    // GATEHOUSE_REGISTRATION_RATE_LIMIT: registrations per client IP address per hour (docs/decisions/0115).
    registrationLimits: { maxPerIp: config.registration.maxPerIpPerHour, windowSeconds: 3600 },
    // The session-bound CSRF tokens are keyed with a key HKDF-derived from the key secret (the
    // same on every instance); without one they rest on the session token (docs/decisions/0025).
    ...(config.keySecret === undefined ? {} : { csrfKey: config.keySecret }),
    // PostgreSQL: every instance counts in one table; SQLite: in this process's memory.
    ...(storage.failedAttempts === undefined ? {} : { failureStore: storage.failedAttempts }),
    extraRouters,
  });
}
