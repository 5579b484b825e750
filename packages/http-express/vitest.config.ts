import { defineProject } from 'vitest/config';

// Resolve workspace packages to their TypeScript sources (the "@gatehouse/source" export condition: a name of our own, so that no dependency's "source" export, such as eventsource-parser's TypeScript, is picked), so tests need no build.
const conditions = ['@gatehouse/source', 'module', 'node', 'development|production'];

export default defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'http-express',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
