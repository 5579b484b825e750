import express, { type RequestHandler } from 'express';
import { refuseRepeatedMembers } from '../security/json-members.js';

/** The largest request body the resource and admin APIs read; a bigger one is a 413 problem. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * JSON bodies (objects and arrays only, UTF-8, no member named twice in one object), parsed after
 * authentication and the scope check, so an unauthenticated request costs no parsing and gets its 401.
 */
export const jsonBody: RequestHandler = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: ['application/json', 'application/*+json'], verify: refuseRepeatedMembers });

/**
 * Form bodies are not an input of any route: they are parsed before authentication only so that a
 * token sent in one (RFC 6750 §2.2) is refused by name. The route then answers 415.
 */
export const formBodyForBearerCheck: RequestHandler = express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES, parameterLimit: 100 });
