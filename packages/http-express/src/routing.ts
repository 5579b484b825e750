import type { RequestHandler } from 'express';

/**
 * `handler` (a router or a middleware), entered only when the path is one of `prefixes` or below
 * one (`/oauth`, `/oauth/…`, never `/oauthx`); other requests go straight to the next layer, as
 * they would after walking the router without a match. Matched the way Express matches routes:
 * case-insensitively, on the raw path, a trailing slash allowed. Unlike `router.use(prefixes, …)`,
 * the path is not rewritten. A handler of 3 arguments is skipped by Express while an error is
 * being passed, and so is this gate.
 */
export function onlyUnder(prefixes: readonly string[], handler: RequestHandler): RequestHandler {
  const pattern = prefixPattern(prefixes);
  return (req, res, next) => {
    if (pattern.test(req.path)) {
      handler(req, res, next);
      return;
    }
    next();
  };
}

/**
 * One layer that hands each request to the handler owning its path prefix (the first whose
 * prefixes match, as `onlyUnder` matches them), or to the next layer when none does: a request
 * walks its own router only, instead of one gate per router.
 */
export function byPrefix(routes: ReadonlyArray<readonly [prefixes: readonly string[], handler: RequestHandler]>): RequestHandler {
  const gates = routes.map(([prefixes, handler]) => [prefixPattern(prefixes), handler] as const);
  return (req, res, next) => {
    const path = req.path;
    for (const [pattern, handler] of gates) {
      if (pattern.test(path)) {
        handler(req, res, next);
        return;
      }
    }
    next();
  };
}

/** Either handler, then the other, as one layer. */
export function inSequence(first: RequestHandler, second: RequestHandler): RequestHandler {
  return (req, res, next) => {
    first(req, res, (error?: unknown) => (error === undefined ? second(req, res, next) : next(error)));
  };
}

/** Matches a path equal to one of `prefixes` or below one, case-insensitively. */
function prefixPattern(prefixes: readonly string[]): RegExp {
  const escaped = prefixes.map((prefix) => prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^(?:${escaped.join('|')})(?:/|$)`, 'i');
}
