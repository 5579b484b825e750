import { afterAll, beforeAll } from 'vitest';
import { dropSchema, freshSchemaName, POSTGRES_URL, warnIfSkipped } from '../multi-instance/support/postgres.js';
import { createWorkspace } from './fixture.js';
import { ensureBuilt } from './processes.js';

type Workspace = ReturnType<typeof createWorkspace>;

/** A database `gatehouse serve` runs on in a test: its name, and the environment that selects it. */
export interface ServerBackend {
  name: string;
  /** The environment for one provisioned server; on PostgreSQL, a fresh schema each call. */
  env(): Record<string, string>;
}

/**
 * SQLite always, and PostgreSQL too when GATEHOUSE_TEST_POSTGRES_URL is set: each `env()` there is
 * a fresh schema, dropped by `dropSchemas()` (call it in `afterAll`).
 *
 * @example
 * const { backends, dropSchemas } = serverBackends();
 * afterAll(dropSchemas);
 * describe.each(backends)('on $name', ({ name, env }) => { ... workspace.provision(`x-${name}`, env()) ... });
 */
export function serverBackends(): { backends: ServerBackend[]; dropSchemas(): Promise<void> } {
  const schemas: string[] = [];
  const sqlite: ServerBackend = { name: 'SQLite', env: () => ({}) };
  const postgres: ServerBackend = {
    name: 'PostgreSQL',
    env: () => {
      const schema = freshSchemaName();
      schemas.push(schema);
      return { GATEHOUSE_DATABASE_URL: POSTGRES_URL as string, GATEHOUSE_DATABASE_SCHEMA: schema, GATEHOUSE_DATABASE_POOL_SIZE: '4' };
    },
  };
  return {
    backends: POSTGRES_URL ? [sqlite, postgres] : [sqlite],
    async dropSchemas() {
      for (const schema of schemas.splice(0)) await dropSchema(schema);
    },
  };
}

/**
 * A test file's set-up for the built server on every backend: a workspace for its provisioned
 * servers, the backends, the build before and the clean-up after (workspace and schemas).
 *
 * @example
 * const { workspace, backends } = useServerOnEveryBackend('consent', 'the remembered-consent tests');
 */
export function useServerOnEveryBackend(name: string, what: string): { workspace: Workspace; backends: ServerBackend[] } {
  const workspace = createWorkspace(name);
  const { backends, dropSchemas } = serverBackends();
  warnIfSkipped(`${what} on PostgreSQL`);
  beforeAll(async () => {
    await ensureBuilt();
  }, 300_000);
  afterAll(async () => {
    workspace.cleanup();
    await dropSchemas();
  });
  return { workspace, backends };
}
