/**
 * How to start a worker module of this package: `new Worker(url, { argv, execArgv })`. From dist/,
 * the compiled `<name>.js` beside the calling module. When the caller runs from its TypeScript
 * source (the test suites run the sources, nothing compiled), `<name>.ts`, started through
 * `ts-worker.mjs` (tsx's loader), the packages resolved to their sources. Code run in a worker is
 * an ordinary typed module (docs/decisions/0160-typed-worker-modules.md).
 *
 * @example
 * const { url, argv, execArgv } = workerModule(import.meta.url, 'signing-worker');
 * new Worker(url, { argv, execArgv });
 */
export function workerModule(callerUrl: string, name: string): { url: URL; argv: string[]; execArgv: string[] } {
  if (!callerUrl.endsWith('.ts')) return { url: new URL(`./${name}.js`, callerUrl), argv: [], execArgv: [] };
  return { url: new URL('./ts-worker.mjs', import.meta.url), argv: [new URL(`./${name}.ts`, callerUrl).href], execArgv: ['--conditions=@gatehouse/source'] };
}
