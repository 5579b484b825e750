import { StorageUnavailableError, type Repositories } from '@gatehouse/core';

/** One call of a repository method that may write. */
export interface WriteCall {
  /** `repository.method`, e.g. `grants.revoke`. */
  name: string;
  /** False when the result says nothing was written (false, 0, [], 'not-found', unknown keys…) or the call threw. */
  changed: boolean;
}

/** Methods that only read: everything else counts as a write. */
const READ = /^(find|list)/;

/**
 * Whether a write method's result says it changed nothing. The repository ports answer
 * conditional writes with false / 0 / [] / a refusal string / `{ unknownKeys: [...] }`.
 */
function changedNothing(result: unknown): boolean {
  if (result === false || result === 0) return true;
  if (Array.isArray(result)) return result.length === 0;
  if (result === 'not-found' || result === 'duplicate-name' || result === 'limit-reached') return true;
  if (typeof result === 'object' && result !== null && 'unknownKeys' in result) {
    return (result as { unknownKeys: unknown[] }).unknownKeys.length > 0;
  }
  return false;
}

/**
 * Wraps every repository so each call of a method that may write is recorded with whether it
 * changed anything (a rejected request must leave `writes` without a changing call), and so any
 * method can be made to fail on demand (`faults.add('grants.findById')`, or `'*'` for all), or to
 * fail as an unavailable database does (`unavailable.add(...)`: a `StorageUnavailableError`).
 *
 * @example
 * const { repositories, writes } = recordWrites(createMemoryRepositories());
 * writes.length = 0; await send(); expect(writes.filter((w) => w.changed)).toEqual([]);
 */
export function recordWrites(inner: Repositories): { repositories: Repositories; writes: WriteCall[]; faults: Set<string>; unavailable: Set<string> } {
  const writes: WriteCall[] = [];
  /** `repository.method` names that fail (as a database that went away would) until removed. */
  const faults = new Set<string>();
  /** The same, failing as a storage adapter reports an outage. */
  const unavailable = new Set<string>();
  const failIfFaulty = (name: string): void => {
    if (faults.has(name) || faults.has('*')) throw new Error(`injected fault in ${name}: SQLITE_IOERR at /var/lib/gatehouse/secret-path.db`);
    if (unavailable.has(name) || unavailable.has('*')) {
      const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432 (injected outage)'), { code: 'ECONNREFUSED' });
      throw new StorageUnavailableError('unreachable', 'PostgreSQL cannot be reached.', { cause });
    }
  };
  const wrapped: Record<string, unknown> = {};
  for (const [repoName, repo] of Object.entries(inner) as Array<[string, Record<string, unknown>]>) {
    const facade: Record<string, unknown> = {};
    for (const [method, fn] of Object.entries(repo)) {
      if (typeof fn !== 'function') continue;
      const call = fn as (...args: unknown[]) => Promise<unknown>;
      const name = `${repoName}.${method}`;
      facade[method] = READ.test(method)
        ? async (...args: unknown[]) => {
            failIfFaulty(name);
            return call.apply(repo, args);
          }
        : async (...args: unknown[]) => {
            failIfFaulty(name);
            try {
              const result = await call.apply(repo, args);
              writes.push({ name, changed: !changedNothing(result) });
              return result;
            } catch (error) {
              writes.push({ name, changed: false });
              throw error;
            }
          };
    }
    wrapped[repoName] = facade;
  }
  return { repositories: wrapped as unknown as Repositories, writes, faults, unavailable };
}
