import type { Repositories } from '../ports/repositories.js';
import { describeAdminContract } from './contract-admin.js';
import { describeConsentContract } from './contract-consents.js';
import { describeForgetUserContract } from './contract-forget-user.js';
import { describeIdentityContract } from './contract-identity.js';
import { describeOpenIdContract } from './contract-openid.js';
import { describeResourceContract } from './contract-resources.js';
import { describeSelfRegistrationContract } from './contract-self-registration.js';
import type { ContractRunner } from './contract-support.js';
import { describeTokenContract } from './contract-tokens.js';

export type { ContractMatchers, ContractRunner } from './contract-support.js';

/** What a storage adapter hands the contract for each test: fresh, empty repositories. */
export interface ContractSubject {
  repositories: Repositories;
  close?: () => Promise<void>;
}

/**
 * The repository contract: the rules every storage adapter keeps (single use under concurrency,
 * cascades (a client's consents go with it), case-insensitive uniqueness, ordering, exact round-trips). It registers tests with the
 * running test framework; call it at the top level of a test file. Each test gets new, empty
 * repositories from `makeRepositories` and closes them afterwards.
 *
 * Jest provides `describe/it/expect/beforeEach/afterEach` as globals; under Vitest (without
 * `globals: true`) pass them as `runner`.
 *
 * @example
 * // Jest
 * describeRepositoryContract('memory', async () => ({ repositories: createMemoryRepositories() }));
 * // Vitest
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest';
 * describeRepositoryContract('sqlite', async () => {
 *   const storage = await openSqliteStorage({ filename: ':memory:' });
 *   await storage.migrate();
 *   return { repositories: storage.repositories, close: () => storage.close() };
 * }, { describe, it, expect, beforeEach, afterEach });
 */
export function describeRepositoryContract(
  name: string,
  makeRepositories: () => Promise<ContractSubject>,
  runner: ContractRunner = globalRunner(),
): void {
  let subject: ContractSubject | undefined;
  const repos = (): Repositories => {
    if (!subject) throw new Error('the repositories of this test are not open');
    return subject.repositories;
  };

  runner.describe(`repository contract: ${name}`, () => {
    runner.beforeEach(async () => {
      subject = await makeRepositories();
    });
    runner.afterEach(async () => {
      const closing = subject;
      subject = undefined;
      await closing?.close?.();
    });
    const context = { runner, repos };
    runner.describe('identity', () => describeIdentityContract(context));
    runner.describe('tokens', () => describeTokenContract(context));
    runner.describe('consents', () => describeConsentContract(context));
    runner.describe('forgetting a user', () => describeForgetUserContract(context));
    runner.describe('administration', () => describeAdminContract(context));
    runner.describe('resources (RFC 8707)', () => describeResourceContract(context));
    runner.describe('self-registration', () => describeSelfRegistrationContract(context));
    runner.describe('OpenID Connect', () => describeOpenIdContract(context));
  });
}

/** The runner's globals (Jest, or Vitest with `globals: true`). */
function globalRunner(): ContractRunner {
  const scope = globalThis as Partial<ContractRunner>;
  const { describe, it, expect, beforeEach, afterEach } = scope;
  if (!describe || !it || !expect || !beforeEach || !afterEach) {
    throw new Error(
      'describeRepositoryContract needs the test runner\'s globals (describe, it, expect, beforeEach, afterEach); ' +
        'under Vitest pass them: describeRepositoryContract(name, make, { describe, it, expect, beforeEach, afterEach }).',
    );
  }
  return { describe, it, expect, beforeEach, afterEach };
}
