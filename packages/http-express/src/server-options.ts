import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** What `http.createServer(options, app)` needs to create requests and responses with `app`'s prototypes. */
export interface ExpressServerOptions {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * Options for `http.createServer` (or `https.createServer`) under which each request and response
 * is created with the prototypes Express gives them (`app.request`, `app.response`).
 *
 * Express's `app.handle` calls `Object.setPrototypeOf` on both objects of every request. That
 * changes their hidden class after Node's HTTP code has used them, so V8's inline caches in
 * Node's HTTP code and in Express keep missing: measured on this project's machine, about 0.07 ms
 * of CPU per request, more than half of what a one-route Express app costs (docs/performance.md).
 * When the objects already have those prototypes, Express's call changes nothing. The objects
 * are otherwise the same (`instanceof IncomingMessage` and `ServerResponse` still hold); a
 * mounted sub-app still swaps the prototypes for its own requests, as it always did.
 *
 * @example
 * const app = createGatehouseApp({ gatehouse, product });
 * http.createServer({ ...expressServerOptions(app), requestTimeout: 30_000 }, app).listen(3000);
 */
export function expressServerOptions(app: Pick<Express, 'request' | 'response'>): ExpressServerOptions {
  return {
    IncomingMessage: constructingWithPrototype(IncomingMessage, app.request),
    ServerResponse: constructingWithPrototype(ServerResponse, app.response),
  };
}

/**
 * A constructor that runs `base` on objects created with `prototype` (which must inherit from
 * `base.prototype`). Node's `IncomingMessage(socket)` and `ServerResponse(req, options)` are
 * constructor functions, so `base.call` initialises the object `new` created. (`Reflect.construct`
 * with another `new.target` does the same but was slower than Express's prototype swap itself.)
 */
function constructingWithPrototype<C extends abstract new (...args: never[]) => object>(base: C, prototype: object): C {
  if (!Object.prototype.isPrototypeOf.call(base.prototype, prototype)) throw new TypeError(`the prototype does not inherit from ${base.name}`);
  const initialise = base as unknown as (this: object, first: unknown, second: unknown) => void;
  function WithPrototype(this: object, first: unknown, second: unknown): void {
    initialise.call(this, first, second);
  }
  WithPrototype.prototype = prototype;
  return WithPrototype as unknown as C;
}
