#!/usr/bin/env node
// The orders service: `node server.js` (see README.md). Stops cleanly on SIGTERM / SIGINT.
import { createServer } from 'node:http';
import { expressServerOptions, purgeExpiredRecords, startMaintenance } from '@gatehouse/http-express';
import { createOrdersApp } from './src/app.js';
import { readConfig } from './src/config.js';
import { openOrdersDatabase } from './src/database.js';
import { createOrdersGatehouse } from './src/gatehouse.js';
import { purgeSessions } from './src/sessions.js';

const config = readConfig(process.env);
const db = openOrdersDatabase(config.database);
const { gatehouse, storage } = await createOrdersGatehouse({ db, issuer: config.issuer, keySecret: config.keySecret });
const app = createOrdersApp({ db, gatehouse, storage });

// Requests and responses created with Express's prototypes: Express need not swap them per
// request (about 0.07 ms of CPU each; Gatehouse's docs/decisions/0070).
const server = createServer(expressServerOptions(app), app).listen(config.port, config.host, () => {
  console.log(`orders-service listening on http://${config.host}:${config.port} (Gatehouse issuer ${config.issuer})`);
});

// Expired sessions of the service, and Gatehouse's expired codes, sessions, login requests and
// long-revoked grants: deleted every ORDERS_PURGE_INTERVAL_SECONDS (15 minutes) by Gatehouse's
// maintenance runner (its timer never keeps the process alive; a failed purge is logged).
/** @type {import('@gatehouse/http-express').HttpLogger} */
const logger = {
  info: (obj, msg) => console.log(msg, JSON.stringify(obj)),
  warn: (obj, msg) => console.warn(msg, JSON.stringify(obj)),
  error: (obj, msg) => console.error(msg, JSON.stringify(obj)),
};
const maintenance = startMaintenance({
  intervalMs: config.purgeIntervalSeconds * 1000,
  logger,
  purge: async () => {
    purgeSessions(db);
    return purgeExpiredRecords(gatehouse, storage);
  },
});

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close(async () => {
      await maintenance.stop();
      await storage.close(); // leaves `db` open: it is the service's
      db.close();
      process.exit(0);
    });
    server.closeIdleConnections();
    // Requests in flight get 5 s to finish.
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
}
