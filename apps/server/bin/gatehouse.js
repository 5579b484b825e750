#!/usr/bin/env node
// The reference server's `gatehouse` executable: the repository root's `bin`, so `npx gatehouse` in
// this repository runs it (the published @gatehouse/cli claims the same name in node_modules/.bin,
// and npm links neither of two workspaces' bins of one name). It lives outside dist/ so that it
// answers before the first build; the command line itself is dist/cli.js.
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write('gatehouse: not built yet; run `npm run build` first.\n');
    process.exit(1);
  }
  throw error;
}
