import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A database path in a fresh temporary directory, and a function that removes the directory. */
export function tempDatabaseFile(): { filename: string; remove: () => void } {
  const directory = mkdtempSync(join(tmpdir(), 'gatehouse-sqlite-'));
  return { filename: join(directory, 'test.db'), remove: () => rmSync(directory, { recursive: true, force: true }) };
}
