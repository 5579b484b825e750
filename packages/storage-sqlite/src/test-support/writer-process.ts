/**
 * A second process on the same SQLite file, for the tests. Environment:
 *   WRITER_DB      the database file
 *   WRITER_ROUNDS  rounds of server-like writes (see write-rounds.ts)
 *   WRITER_MODE    "writes": migrate, write the rounds, print {"rounds"} (an error exits non-zero);
 *                  "announce-then-write": print {"opened": true} first, then as "writes";
 *                  "token-then-hang": write a grant and refresh token, print {"ready": true}, wait to be killed.
 */
import { openSqliteStorage } from '../sqlite-storage.js';
import { createGatehouseRecords, writeRound } from './write-rounds.js';

const filename = process.env.WRITER_DB;
const rounds = Number(process.env.WRITER_ROUNDS ?? '0');
const mode = process.env.WRITER_MODE ?? 'writes';
if (!filename) throw new Error('WRITER_DB names the database file');

const print = (message: object): void => void process.stdout.write(`${JSON.stringify(message)}\n`);

const storage = await openSqliteStorage({ filename, busyTimeoutMs: 10_000 });
if (mode === 'announce-then-write') print({ opened: true });
await storage.migrate();
if (mode === 'token-then-hang') {
  await createGatehouseRecords(storage.repositories, 'child');
  print({ ready: true });
  setInterval(() => undefined, 1000);
} else {
  for (let round = 0; round < rounds; round += 1) await writeRound(storage.repositories, 'child', round);
  await storage.close();
  print({ rounds });
}
