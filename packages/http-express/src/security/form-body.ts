import express, { type NextFunction, type Request, type Response } from 'express';

/** A parsed `application/x-www-form-urlencoded` body: one string per parameter. */
export type FormFields = Record<string, string>;

export interface FormBodyFailure {
  /** 400 for a malformed or duplicated body, 413 when too large, 415 for the wrong media type. */
  status: 400 | 413 | 415;
  /** Public, safe to show: says what was wrong, never echoes the body. */
  description: string;
}

export interface FormBodyOptions {
  /** Largest accepted body in bytes (default 16 kB). */
  limitBytes?: number;
  /**
   * Answers a body that cannot be accepted (each surface in its own shape: OAuth JSON, HTML page),
   * or hands it to the surface's error handler through `next`.
   */
  onError: (req: Request, res: Response, failure: FormBodyFailure, next: NextFunction) => void;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Parses a form body strictly: only `application/x-www-form-urlencoded` in UTF-8, at most
 * `limitBytes`, and every parameter at most once (RFC 6749 §3.1 and §3.2: "Request and response
 * parameters MUST NOT be included more than once"). An empty value counts as omitted (RFC 6749 §3.1)
 * and is dropped. The fields land on `req.body` as a `FormFields`.
 *
 * Works whether or not the host application parsed the body first (docs/architecture.md,
 * "Embedding"): a body nobody read is read raw here; one already read by `express.urlencoded()`
 * (either `extended` setting), `express.text()` or `express.raw()` is taken from `req.body` with
 * the same rules: a repeated parameter (an array) or a nested one (`a[b]=…`, an object) is refused.
 *
 * @example
 * router.post('/oauth/token', formBody({ onError: (req, res, f) => res.status(f.status).json({ error: 'invalid_request', error_description: f.description }) }), handler);
 */
export function formBody(options: FormBodyOptions) {
  const limit = options.limitBytes ?? 16 * 1024;
  const readRaw = express.raw({ type: () => true, limit, inflate: true });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is(FORM_TYPE)) {
      return options.onError(req, res, { status: 415, description: `The body must be ${FORM_TYPE}.` }, next);
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return options.onError(req, res, { status: 415, description: 'The body must be encoded in UTF-8.' }, next);
    }
    if (alreadyRead(req)) {
      const parsed = fieldsOfParsedBody(req.body, limit);
      if ('problem' in parsed) return options.onError(req, res, { status: parsed.status, description: parsed.problem }, next);
      req.body = parsed.fields;
      return next();
    }
    req.body = undefined;
    readRaw(req, res, (error?: unknown) => {
      if (error !== undefined && error !== null) {
        const type = (error as { type?: unknown }).type;
        if (type === 'entity.too.large') {
          return options.onError(req, res, { status: 413, description: `The body is larger than ${limit} bytes.` }, next);
        }
        if (type === 'encoding.unsupported') {
          return options.onError(req, res, { status: 415, description: 'The body has an unsupported Content-Encoding.' }, next);
        }
        if (typeof type === 'string') {
          return options.onError(req, res, { status: 400, description: 'The body could not be read.' }, next);
        }
        return next(error);
      }
      const parsed = parseForm(req.body);
      if ('problem' in parsed) return options.onError(req, res, { status: 400, description: parsed.problem }, next);
      req.body = parsed.fields;
      next();
    });
  };
}

/** True when a parser in front of us consumed the body stream and left its result on `req.body`. */
function alreadyRead(req: Request): boolean {
  return req.body !== undefined && req.body !== null && req.readableEnded;
}

/**
 * The fields of a body another parser read: a Buffer or string is decoded as ours would be; an
 * object must hold one string per parameter. Its size is bounded by `limit` too (as urlencoded text).
 */
export function fieldsOfParsedBody(body: unknown, limit: number): { fields: FormFields } | { problem: string; status: 400 | 413 } {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (raw.length > limit) return { problem: `The body is larger than ${limit} bytes.`, status: 413 };
    const parsed = parseForm(raw);
    return 'problem' in parsed ? { problem: parsed.problem, status: 400 } : parsed;
  }
  if (typeof body !== 'object' || body === null) return { problem: 'The body could not be read.', status: 400 };
  const fields: FormFields = Object.create(null) as FormFields;
  let size = 0;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    // A host parser turns `a=1&a=2` into an array (RFC 6749 §3.1: parameters appear at most once).
    if (Array.isArray(value)) return { problem: repeatedParameterProblem(name), status: 400 };
    // `a[b]=1` under `extended: true` becomes an object: not a parameter of ours.
    if (typeof value !== 'string') return { problem: `The parameter ${printable(name)} is not a plain value.`, status: 400 };
    size += Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
    if (size > limit) return { problem: `The body is larger than ${limit} bytes.`, status: 413 };
    if (value !== '') fields[name] = value;
  }
  return { fields };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes and splits a form body; repeated parameters and invalid UTF-8 are problems; an empty value is dropped. */
export function parseForm(raw: unknown): { fields: FormFields } | { problem: string } {
  let text: string;
  try {
    text = Buffer.isBuffer(raw) ? utf8.decode(raw) : '';
  } catch {
    return { problem: 'The body is not valid UTF-8.' };
  }
  const fields: FormFields = Object.create(null) as FormFields;
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(text)) {
    // RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once."
    if (seen.has(name)) return { problem: repeatedParameterProblem(name) };
    seen.add(name);
    if (value !== '') fields[name] = value;
  }
  return { fields };
}

/**
 * The problem of a repeated parameter, as the parsers word it: an endpoint that answers one
 * repeated parameter its own way (the token endpoint's `resource`, RFC 8707 §2.2) recognises it.
 *
 * @example
 * repeatedParameterProblem('scope'); // 'The parameter scope is repeated.'
 */
export function repeatedParameterProblem(name: string): string {
  return `The parameter ${printable(name)} is repeated.`;
}

/** A parameter name safe to put in an error description (short, printable ASCII). */
export function printable(name: string): string {
  const clean = name.replace(/[^\x21-\x7e]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}
