#!/usr/bin/env node
// The notes server's command line: `node cli.js users create --email ada@notes.example --password '…'`.
// Prints one JSON object. Same environment as server.js (NOTES_DATABASE, NOTES_ORIGIN, PORT).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createProductApi } from '@gatehouse/core';
import Database from 'better-sqlite3';
import { readConfig } from './src/config.js';
import { createNotesGatehouse } from './src/gatehouse.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { email: { type: 'string' }, password: { type: 'string' } } });
if (positionals.join(' ') !== 'users create' || !values.email || !values.password) {
  console.error('usage: node cli.js users create --email E --password P');
  process.exit(2);
}
const config = readConfig(process.env);
mkdirSync(dirname(config.database), { recursive: true });
const db = new Database(config.database);
const { gatehouse, storage } = await createNotesGatehouse({ db, origin: config.origin });
try {
  // Gatehouse's own users (the product part, docs/decisions/0161): it keeps a scrypt hash of the
  // password and signs them in on its login page.
  const user = await createProductApi({ gatehouse, repositories: storage.repositories }).createUser({ email: values.email, password: values.password });
  console.log(JSON.stringify({ userKey: user.userKey, email: user.email }));
} finally {
  await storage.close();
  db.close();
}
