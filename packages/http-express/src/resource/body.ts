import express, { type RequestHandler } from 'express';

/** The largest request body the resource and admin APIs read; a bigger one is a 413 problem. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Body parsers of the API prefixes: JSON (objects and arrays only) for the routes, and forms
 * only so that a token sent in a form body (RFC 6750 §2.2) can be refused by name.
 */
export function apiBodyParsers(): RequestHandler[] {
  return [
    express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: ['application/json', 'application/*+json'] }),
    express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES, parameterLimit: 100 }),
  ];
}
