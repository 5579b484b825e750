// The code exchange's storage work alone, in a loop in this process: the code read
// (`codes.findByHash`) and the exchange's one transaction (`grants.createFromCode`: the grant, the
// conditional consume of the code, the refresh token) through @gatehouse/storage-sqlite's real
// repositories, on a file with the server's settings (WAL, synchronous=NORMAL, the checkpoint
// thread), or @gatehouse/storage-postgres's in a fresh schema (`--postgres`, dropped after). No
// HTTP, no signature: what is left is the storage's floor for one exchange.
//
//   npm run build && node bench/exchange-loop.js [--grants 1000000] [--exchanges 20000] [--grant-ids random|time-ordered]
//   node bench/exchange-loop.js --postgres [--concurrency 10]   (GATEHOUSE_TEST_POSTGRES_URL or postgres://postgres@127.0.0.1:5432/test)
//
// It prints the CPU time of this process (both threads) and the wall time per exchange. The
// growth rows are the benchmark's (bench/lib/growth.js). Not a test: nothing is asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openSqliteStorage } from '@gatehouse/storage-sqlite';
import { openPostgresStorage } from '@gatehouse/storage-postgres';
import pg from 'pg';
import { openBenchDatabase } from './lib/database.js';
import { GROWTH_DEFAULTS } from './lib/growth.js';
import { storedSecretHash } from '@gatehouse/core';
import { createIdSource, secret, sha256, timeOrderedCode } from './lib/ids.js';

const { values: args } = parseArgs({
  options: {
    grants: { type: 'string', default: '0' },
    exchanges: { type: 'string', default: '20000' },
    'grant-ids': { type: 'string', default: 'time-ordered' },
    postgres: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '1' },
  },
});
const concurrency = Number(args.concurrency);
const postgresUrl = process.env.GATEHOUSE_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = `gatehouse_exchange_loop_${process.pid}`;
if (args.postgres && Number(args.grants) > 0) throw new Error('--grants seeds a SQLite file only');
const grants = Number(args.grants);
const exchanges = Number(args.exchanges);
if (!['random', 'time-ordered'].includes(args['grant-ids'])) throw new Error('--grant-ids is random or time-ordered');

const ids = createIdSource();
const newGrantId = args['grant-ids'] === 'random' ? () => ids.id() : () => ids.grantId(Date.now());
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-exchange-loop-'));
const filename = join(dir, 'gatehouse.db');
const CLIENT_ID = ids.id();
const USER_KEY = ids.id();
const SCOPES = ['messaging.v1.read', 'messaging.v1.send'];

try {
  let storage = args.postgres ? await openPostgresStorage({ connectionString: postgresUrl, schema, poolSize: Math.max(concurrency, 2) }) : await openSqliteStorage({ filename });
  await storage.migrate();
  const { repositories: repos } = storage;
  await repos.clients.create({
    clientId: CLIENT_ID,
    clientSecretHash: sha256(secret()),
    name: 'Exchange loop',
    redirectUris: ['https://app.example/cb'],
    scopes: SCOPES,
    pkceRequired: true,
    ownerUserKey: null,
    createdAt: new Date(),
    grantTypes: ['authorization_code', 'refresh_token'],
  });
  if (grants > 0) {
    await storage.close();
    const bench = await openBenchDatabase({ kind: 'sqlite', filename });
    const spec = { ...GROWTH_DEFAULTS, grants, attributeNames: 0, benchClientId: CLIENT_ID, benchUserKey: USER_KEY, benchAccountKey: ids.id(), benchAccountAttributes: 0, benchAccountLastPosition: 0 };
    await bench.seedGrowth(spec);
    await bench.close();
    storage = await openSqliteStorage({ filename });
  }

  const codes = Array.from({ length: exchanges + 2000 }, () => timeOrderedCode());
  for (const code of codes) {
    const now = new Date();
    await storage.repositories.codes.save({
      codeHash: storedSecretHash(code), clientId: CLIENT_ID, userKey: USER_KEY, redirectUri: 'https://app.example/cb', scopes: SCOPES,
      codeChallenge: sha256(secret()), sessionId: null, createdAt: now, expiresAt: new Date(now.getTime() + 600_000), consumedAt: null, grantId: null,
    });
  }
  const exchange = async (code) => {
    const codeHash = storedSecretHash(code);
    const found = await storage.repositories.codes.findByHash(codeHash);
    const now = new Date();
    const grant = { grantId: newGrantId(), clientId: found.clientId, userKey: found.userKey, scopes: found.scopes, sessionId: null, createdAt: now, revokedAt: null };
    const refreshToken = { tokenHash: storedSecretHash(timeOrderedCode()), grantId: grant.grantId, createdAt: now, lastUsedAt: now, rotatedAt: null, supersededAt: null };
    if (!(await storage.repositories.grants.createFromCode({ grant, codeHash, refreshToken }))) throw new Error('the code was not exchanged');
  };
  // `concurrency` exchanges in flight at once, as a server's connections would have them.
  const exchangeAll = async (list) => {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < list.length) await exchange(list[next++]);
    }));
  };
  await exchangeAll(codes.slice(0, 2000)); // warm-up

  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await exchangeAll(codes.slice(2000));
  const wallUs = Number(process.hrtime.bigint() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const perExchange = (us) => (us / exchanges).toFixed(1);
  console.log(
    `${args.postgres ? 'PostgreSQL' : 'SQLite'}, ${exchanges} exchanges, ${concurrency} at once, ${grants.toLocaleString('en-US')} grants before, ${args['grant-ids']} grant ids: ` +
      `CPU ${perExchange(cpu.user + cpu.system)} µs/exchange (system ${perExchange(cpu.system)}), wall ${perExchange(wallUs)} µs/exchange`,
  );
  await storage.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
  if (args.postgres) {
    const client = new pg.Client(postgresUrl);
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
}
