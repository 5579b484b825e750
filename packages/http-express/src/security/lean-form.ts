import type { NextFunction, Request, Response } from 'express';
import { formBody, parseForm, type FormBodyOptions } from './form-body.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';
const DEFAULT_LIMIT_BYTES = 16 * 1024;

/**
 * The form reader of the token, revocation and introspection endpoints: the same rules as
 * {@link formBody} (only `application/x-www-form-urlencoded` in UTF-8, at most `limitBytes`, every
 * parameter at most once — RFC 6749 §3.1 and §3.2), without body-parser's machinery on the common
 * path: the body is read straight from the socket with a size bound and split with
 * `URLSearchParams` (bench/results/history.md, "Issue 16, part 5").
 *
 * Everything that is not the plain case — a body the host application already parsed, a
 * `Content-Encoding`, a media type or charset that is not exactly ours, a declared length over the
 * bound, no body at all — is handed to {@link formBody}, so the answers to those stay the same.
 *
 * @example
 * router.post('/oauth/token', leanFormBody({ onError: (req, res, f) => res.status(f.status).json({ error: 'invalid_request', error_description: f.description }) }), handler);
 */
export function leanFormBody(options: FormBodyOptions) {
  const limit = options.limitBytes ?? DEFAULT_LIMIT_BYTES;
  const careful = formBody(options);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!isPlainFormRequest(req, limit)) return careful(req, res, next);
    readBounded(req, limit, (failure, raw) => {
      if (failure !== undefined) return options.onError(req, res, failure, next);
      const parsed = parseForm(raw);
      if ('problem' in parsed) return options.onError(req, res, { status: 400, description: parsed.problem }, next);
      req.body = parsed.fields;
      next();
    });
  };
}

/**
 * True for an unread body of our exact media type (optionally `charset=utf-8`), not compressed,
 * whose declared length (if any) is within the bound. Anything else takes the careful path.
 */
function isPlainFormRequest(req: Request, limit: number): boolean {
  if (req.readableEnded || (req.body !== undefined && req.body !== null)) return false;
  const headers = req.headers;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = headers['content-type'];
  if (type === undefined || !isFormType(type)) return false;
  const length = headers['content-length'];
  if (length !== undefined) return /^\d{1,9}$/.test(length) && Number(length) <= limit;
  return headers['transfer-encoding'] !== undefined;
}

/** `application/x-www-form-urlencoded`, alone or with `charset=utf-8` only. */
function isFormType(header: string): boolean {
  const value = header.toLowerCase();
  if (value === FORM_TYPE) return true;
  if (!value.startsWith(FORM_TYPE)) return false;
  return /^;\s*charset\s*=\s*"?utf-?8"?\s*$/.test(value.slice(FORM_TYPE.length).trimStart());
}

type FormFailure = { status: 400 | 413; description: string };

/** Reads the whole body, refusing it as soon as it passes `limit` bytes (a chunked body has no declared length). */
function readBounded(req: Request, limit: number, done: (failure: FormFailure | undefined, raw: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const finish = (failure: FormFailure | undefined, raw: Buffer): void => {
    if (settled) return;
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd); // the error listener stays: a late socket error is ignored, never thrown
    done(failure, raw);
  };
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      req.resume(); // the rest is drained and dropped, never kept
      finish({ status: 413, description: `The body is larger than ${limit} bytes.` }, EMPTY);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => finish(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  const onError = (): void => finish({ status: 400, description: 'The body could not be read.' }, EMPTY);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}

const EMPTY = Buffer.alloc(0);

