#!/usr/bin/env node
// The `gatehouse` executable. It lives outside dist/ so that `npm install` (or `npm ci`) can link it
// into node_modules/.bin before the first build; the command line itself is dist/cli.js.
try {
  await import('../dist/cli.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write('gatehouse: not built yet; run `npm run build` first.\n');
    process.exit(1);
  }
  throw error;
}
