import type { Repositories } from '../ports/repositories.js';
import { describeAdminContract } from './contract-admin.js';
import { describeConsentContract } from './contract-consents.js';
import { describeForgetUserContract } from './contract-forget-user.js';
import { describeIdentityContract } from './contract-identity.js';
import { describeOpenIdContract } from './contract-openid.js';
import { describeResourceContract } from './contract-resources.js';
import { describeSelfRegistrationContract } from './contract-self-registration.js';
import type { ContractContext, ContractRunner, OAuthContractRepositories, ProductContractRepositories } from './contract-support.js';
import { describeSigningKeyContract } from './contract-signing-keys.js';
import { describeTokenContract } from './contract-tokens.js';
import { describeUserContract } from './contract-users.js';

export type { ContractMatchers, ContractRunner, OAuthContractRepositories, ProductContractRepositories } from './contract-support.js';

/** What a storage adapter hands the contract for each test: fresh, empty repositories. */
export interface ContractSubject<R = Repositories> {
  repositories: R;
  close?: () => Promise<void>;
}

type Part<R> = readonly [label: string, describePart: (context: ContractContext<R>) => void];

/** The OAuth part of the contract (docs/decisions/0161), each under the label it always had. */
const OAUTH_PARTS: ReadonlyArray<Part<OAuthContractRepositories>> = [
  ['identity', describeIdentityContract],
  ['tokens', describeTokenContract],
  ['consents', describeConsentContract],
  ['forgetting a user', describeForgetUserContract],
  ['administration', describeSigningKeyContract],
  ['resources (RFC 8707)', describeResourceContract],
  ['self-registration', describeSelfRegistrationContract],
  ['OpenID Connect', describeOpenIdContract],
];

/** The product part: users, accounts, attribute names, messages. */
const PRODUCT_PARTS: ReadonlyArray<Part<ProductContractRepositories>> = [
  ['identity', describeUserContract],
  ['administration', describeAdminContract],
];

/**
 * The OAuth part of the repository contract (docs/decisions/0161): clients, codes, grants, refresh
 * tokens, sessions, interactions, consents and signing keys: what an embedder's storage implements
 * for `createGatehouse`. When the subject has Gatehouse's own users too, they are seeded and the
 * reads that join them (a code with its owner's e-mail) are checked.
 *
 * @example
 * describeOAuthRepositoryContract('orders database', async () => ({ repositories: openOrdersOAuthStorage() }), { describe, it, expect, beforeEach, afterEach });
 */
export function describeOAuthRepositoryContract(
  name: string,
  makeRepositories: () => Promise<ContractSubject<OAuthContractRepositories>>,
  runner: ContractRunner = globalRunner(),
): void {
  describeParts(`OAuth repository contract: ${name}`, makeRepositories, runner, OAUTH_PARTS, []);
}

/**
 * The product part of the repository contract (docs/decisions/0161): users, accounts and
 * memberships, attribute names and values, messages: what `createProductApi` needs.
 *
 * @example
 * describeProductRepositoryContract('sqlite', async () => ({ repositories: storage.repositories }), { describe, it, expect, beforeEach, afterEach });
 */
export function describeProductRepositoryContract(
  name: string,
  makeRepositories: () => Promise<ContractSubject<ProductContractRepositories>>,
  runner: ContractRunner = globalRunner(),
): void {
  describeParts(`product repository contract: ${name}`, makeRepositories, runner, [], PRODUCT_PARTS);
}

/**
 * The whole repository contract, its OAuth part and its product part (docs/decisions/0161): the rules every storage adapter keeps (single use under concurrency,
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
  describeParts(`repository contract: ${name}`, makeRepositories, runner, OAUTH_PARTS, PRODUCT_PARTS);
}

/** Registers the parts under one `describe`, each test on fresh repositories closed afterwards. */
function describeParts<R extends OAuthContractRepositories | ProductContractRepositories>(
  title: string,
  makeRepositories: () => Promise<ContractSubject<R>>,
  runner: ContractRunner,
  oauthParts: ReadonlyArray<Part<OAuthContractRepositories>>,
  productParts: ReadonlyArray<Part<ProductContractRepositories>>,
): void {
  let subject: ContractSubject<R> | undefined;
  const repos = (): R => {
    if (!subject) throw new Error('the repositories of this test are not open');
    return subject.repositories;
  };

  runner.describe(title, () => {
    runner.beforeEach(async () => {
      subject = await makeRepositories();
    });
    runner.afterEach(async () => {
      const closing = subject;
      subject = undefined;
      await closing?.close?.();
    });
    // Each part reads only its own repositories; the casts say which part a subject gives.
    for (const [label, describePart] of oauthParts) runner.describe(label, () => describePart({ runner, repos: repos as () => OAuthContractRepositories }));
    for (const [label, describePart] of productParts) runner.describe(label, () => describePart({ runner, repos: repos as () => ProductContractRepositories }));
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
