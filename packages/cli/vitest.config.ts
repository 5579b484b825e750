import { defineProject } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources (the "source" export condition), so tests need no build.
const conditions = ['source', 'module', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'cli',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
