import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryRepositories, describeRepositoryContract } from '@gatehouse/core/testing';

describeRepositoryContract('memory', async () => ({ repositories: createMemoryRepositories() }), { describe, it, expect, beforeEach, afterEach });
