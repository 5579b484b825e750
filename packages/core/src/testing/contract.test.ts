import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryRepositories, describeOAuthRepositoryContract, describeProductRepositoryContract, describeRepositoryContract } from '@gatehouse/core/testing';

const runner = { describe, it, expect, beforeEach, afterEach };

describeRepositoryContract('memory', async () => ({ repositories: createMemoryRepositories() }), runner);

// The two parts alone (docs/decisions/0161): an embedder's storage has only the OAuth repositories.
describeOAuthRepositoryContract(
  'memory, the OAuth repositories only',
  async () => {
    const { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys } = createMemoryRepositories();
    return { repositories: { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys } };
  },
  runner,
);

describeProductRepositoryContract(
  'memory, the product repositories only',
  async () => {
    const { users, accounts, attributes, messages } = createMemoryRepositories();
    return { repositories: { users, accounts, attributes, messages } };
  },
  runner,
);
