import type { AuthorizationCheckOptions } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { requestLogger } from '../logger.js';
import { errorPage } from '../pages/error.js';
import { sendPage } from '../pages/send.js';
import { clientIp, type OAuthContext } from './context.js';

/** One request's gate on Client ID Metadata Document fetches, and its answer when the gate closed. */
export interface DocumentFetchLimit {
  /** For `checkAuthorizationRequest`: asked only when a document would be fetched. */
  options: AuthorizationCheckOptions;
  /** When the limit refused a fetch, answers 429 with `Retry-After` and returns true. */
  answeredRefusal(res: Response): boolean;
}

/**
 * The rate limit on the fetches an authorization request makes Gatehouse do
 * (docs/decisions/0166-client-metadata-document-fetches-rate-limited.md): each fetch of a client
 * metadata document counts against the request's address; past the limit no fetch starts, and the
 * answer is a 429 page. A stored document, or one being fetched already, counts nothing.
 *
 * @example
 * const limit = documentFetchLimit(ctx, req);
 * const check = await ctx.gatehouse.checkAuthorizationRequest(params, limit.options);
 * if (limit.answeredRefusal(res)) return;
 */
export function documentFetchLimit(ctx: OAuthContext, req: Request): DocumentFetchLimit {
  let retryAfterSeconds: number | undefined;
  return {
    options: {
      mayFetchClientMetadataDocument: async () => {
        const ip = clientIp(req);
        const limit = await ctx.limits.clientMetadataDocuments.check(ip);
        if (limit.limited) {
          retryAfterSeconds = limit.retryAfterSeconds;
          return false;
        }
        await ctx.limits.clientMetadataDocuments.record(ip);
        return true;
      },
    },
    answeredRefusal(res) {
      if (retryAfterSeconds === undefined) return false;
      requestLogger(ctx.logger, res).warn({ event: 'rate_limited', limit: 'client metadata documents', ip: clientIp(req), retryAfterSeconds }, 'client metadata document fetches rate limited');
      res.setHeader('Retry-After', String(retryAfterSeconds));
      res.setHeader('Cache-Control', 'no-store');
      const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
      sendPage(res, 429, errorPage({ title: 'Too many new apps', message: `Too many new apps were started from your network. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, paths: ctx.paths }));
      return true;
    },
  };
}
