/* global describe, it, expect, beforeEach, afterEach */
// The repository contract suite registers its tests with the running framework's globals:
// here Jest's, on the in-memory repositories (a storage adapter would pass its own).
import { createMemoryRepositories, describeRepositoryContract } from '@gatehouse/core/testing';

describeRepositoryContract('memory (under Jest)', async () => ({ repositories: createMemoryRepositories() }), { describe, it, expect, beforeEach, afterEach });
