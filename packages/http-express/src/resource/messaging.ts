import type { Gatehouse, Message, ProductApi } from '@gatehouse/core';
import { Router } from 'express';
import * as v from 'valibot';
import { bearerAuth, requireScope, userKeyOf } from '../bearer/bearer.js';
import { methodNotAllowed } from '../problem/error-handler.js';
import { jsonBody } from './body.js';
import { parseJsonBody, parseQuery, wholeNumberParam } from './validation.js';

export const MESSAGES_PATH = '/messaging/v1/messages';

/** The shape of a send request; the core checks E.164, the 1..10 contacts, the 1..1600 characters and the owner. */
const SendMessageBody = v.strictObject(
  {
    ownerPhoneNumber: v.string('must be a string (an E.164 number)'),
    contactPhoneNumbers: v.array(v.string('must be a string (an E.164 number)'), 'must be an array of E.164 numbers'),
    body: v.string('must be a string'),
  },
  'must be a JSON object',
);

const ListMessagesQuery = v.object({
  ownerPhoneNumber: v.string('is required (an E.164 number)'),
  pageSize: v.optional(wholeNumberParam('pageSize', 1, 100)),
  pageMarker: v.optional(v.pipe(v.string(), v.maxLength(200, 'is not a marker this API returned'))),
});

/** A message on the wire: the record with an ISO 8601 timestamp. */
export function toMessageJson(message: Message) {
  return {
    id: message.id,
    ownerPhoneNumber: message.ownerPhoneNumber,
    contactPhoneNumbers: message.contactPhoneNumbers,
    body: message.body,
    direction: message.direction,
    authorUserKey: message.authorUserKey,
    timestamp: message.timestamp.toISOString(),
    status: message.status,
  };
}

/** `POST` (messaging.v1.send) and `GET` (messaging.v1.read) `/messaging/v1/messages`, added to `router` (a new one by default). The bearer check is `gatehouse`'s, the answer `product`'s (docs/decisions/0161). */
export function messagingRouter(gatehouse: Gatehouse, product: ProductApi, router: Router = Router()): Router {
  router
    .route(MESSAGES_PATH)
    .post(bearerAuth(gatehouse), requireScope('messaging.v1.send'), jsonBody, async (req, res) => {
      const input = parseJsonBody(req, SendMessageBody);
      const message = await product.sendMessage(userKeyOf(res), input);
      // A user's message in the answer: not for any cache (RFC 9111 §5.2.2.5).
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(toMessageJson(message));
    })
    .get(bearerAuth(gatehouse), requireScope('messaging.v1.read'), async (req, res) => {
      const query = parseQuery(req, ListMessagesQuery);
      const page = await product.listMessages(userKeyOf(res), {
        ownerPhoneNumber: query.ownerPhoneNumber,
        ...(query.pageSize === undefined ? {} : { pageSize: query.pageSize }),
        ...(query.pageMarker === undefined ? {} : { pageMarker: query.pageMarker }),
      });
      res.setHeader('Cache-Control', 'no-store');
      res.json({ items: page.items.map(toMessageJson), nextPageMarker: page.nextPageMarker });
    })
    .all(methodNotAllowed(['GET', 'POST']));
  return router;
}
