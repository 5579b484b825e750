import { defineProject } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources (the "@gatehouse/source" export condition: a name of our own, so that no dependency's "source" export, such as eventsource-parser's TypeScript, is picked), so tests need no build.
const conditions = ['@gatehouse/source', 'module', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Most tests here start `gatehouse` processes (about 1 s each on an idle machine, 2.5 s and more
    // on a loaded 2-core one): Vitest's 5 s default is too short for the slowest machine we support.
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
