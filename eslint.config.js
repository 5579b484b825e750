// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const coreOnly = {
  // The boundary of the design card: core imports nothing but jose, valibot, node:crypto and itself.
  regex: String.raw`^(?!(jose|valibot|node:crypto)$)(?!\.{1,2}/)`,
  message: 'packages/core is pure: it may import only jose, valibot, node:crypto and its own modules.',
};
const noApps = {
  regex: String.raw`^(@gatehouse/server)(/.*)?$|(^|/)apps/`,
  message: 'Adapters never import an app: dependencies point inward.',
};
// storage-kysely is not an adapter of its own: it is the dialect-neutral code both storages build on.
const noSiblingAdapters = {
  regex: String.raw`^@gatehouse/(http-express|storage-sqlite|storage-postgres|argon2)(/.*)?$`,
  message: 'An adapter does not depend on another adapter (the storages share code only through @gatehouse/storage-kysely).',
};
const noAdapters = {
  regex: String.raw`^@gatehouse/(http-express|storage-sqlite|storage-postgres)(/.*)?$`,
  message: 'storage-kysely is the shared base of the storages: it depends on no adapter.',
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'bench/results/**', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', structuredClone: 'readonly', URLSearchParams: 'readonly', fetch: 'readonly', AbortController: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts', 'packages/core/src/test-support/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [coreOnly] }],
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Time comes from the Clock port.' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Randomness comes from the IdGenerator port.' },
        { selector: 'Decorator', message: 'No decorators in the core.' },
      ],
    },
  },
  {
    // @gatehouse/core/threads: the core's ports on Node.js worker threads (docs/decisions/0160).
    files: ['packages/core/src/threads/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ ...coreOnly, regex: String.raw`^(?!(jose|valibot|node:crypto|node:worker_threads)$)(?!\.{1,2}/)` }] }] },
  },
  {
    files: ['packages/core/src/testing/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ ...coreOnly, regex: String.raw`^(?!(jose|valibot|node:crypto)$)(?!\.{1,2}/)(?!@gatehouse/core)` }] }] },
  },
  {
    files: ['packages/storage-sqlite/src/**/*.ts', 'packages/storage-postgres/src/**/*.ts', 'packages/http-express/src/**/*.ts', 'packages/argon2/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noApps, noSiblingAdapters] }] },
  },
  {
    // The published CLI depends on the core only: the host's config file brings the storage (docs/decisions/0147).
    files: ['packages/cli/src/**/*.ts'],
    ignores: ['packages/cli/src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noApps, noSiblingAdapters, { regex: '^(better-sqlite3|pg|express|kysely)$', message: 'The CLI reaches the database only through the storage of the host\'s config file.' }] }] },
  },
  {
    // Tests may open a SQLite database (better-sqlite3 is a dev dependency); the published code is dialect-neutral.
    files: ['packages/storage-kysely/src/**/*.ts'],
    ignores: ['packages/storage-kysely/src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noApps, noAdapters, { regex: '^(better-sqlite3|pg|express)$', message: 'storage-kysely is dialect-neutral: no database driver, no HTTP.' }] }] },
  },
);
