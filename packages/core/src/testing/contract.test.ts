// The boundary rule for src/testing/ also covers its tests; a test may import its runner.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryRepositories, describeRepositoryContract } from '@gatehouse/core/testing';

describeRepositoryContract('memory', async () => ({ repositories: createMemoryRepositories() }), { describe, it, expect, beforeEach, afterEach });
