import { LONE_SURROGATE } from '../domain/display-name.js';
import type { Message } from '../domain/model.js';
import type { ProductDeps } from './deps.js';
import { DomainError } from '../errors.js';
import { E164 } from './users.js';

export interface SendMessageInput {
  ownerPhoneNumber: string;
  contactPhoneNumbers: string[];
  body: string;
}

/**
 * Sends a message from one of the user's own numbers through the `MessageTransport`.
 *
 * @example
 * const message = await sendMessage(deps, userKey, { ownerPhoneNumber: '+15551234567', contactPhoneNumbers: ['+15557654321'], body: 'Hi' });
 */
export async function sendMessage(
  deps: Pick<ProductDeps, 'repos' | 'clock' | 'ids' | 'transport'>,
  userKey: string,
  input: SendMessageInput,
): Promise<Message> {
  if (!E164.test(input.ownerPhoneNumber)) throw new DomainError('invalid', 'ownerPhoneNumber must be an E.164 number.', { field: 'ownerPhoneNumber' });
  if (input.contactPhoneNumbers.length < 1 || input.contactPhoneNumbers.length > 10) {
    throw new DomainError('invalid', 'contactPhoneNumbers must list 1 to 10 numbers.', { field: 'contactPhoneNumbers' });
  }
  input.contactPhoneNumbers.forEach((number, index) => {
    if (!E164.test(number)) throw new DomainError('invalid', 'Each contact number must be an E.164 number.', { field: `contactPhoneNumbers[${index}]` });
    // One message per contact: a number listed twice would be sent twice.
    if (input.contactPhoneNumbers.indexOf(number) !== index) throw new DomainError('invalid', 'Each contact number must be listed once.', { field: `contactPhoneNumbers[${index}]` });
  });
  // Characters (code points), as attribute values are counted: an emoji counts once.
  const characters = [...input.body].length;
  if (characters < 1 || characters > 1600) throw new DomainError('invalid', 'body must be 1 to 1600 characters.', { field: 'body' });
  if (LONE_SURROGATE.test(input.body)) throw new DomainError('invalid', 'body must be well-formed Unicode (a lone surrogate is not).', { field: 'body' });
  // Text for a phone: line breaks and tabs, but no other control character (a NUL ends the text on many devices).
  if (/[\p{Cc}]/u.test(input.body.replace(/[\n\r\t]/g, ''))) throw new DomainError('invalid', 'body must not contain control characters other than line breaks and tabs.', { field: 'body' });
  if (input.body.trim() === '') throw new DomainError('invalid', 'body must contain something other than spaces.', { field: 'body' });
  await requireOwnNumber(deps, userKey, input.ownerPhoneNumber);
  const message: Message = {
    id: deps.ids.id(),
    ownerPhoneNumber: input.ownerPhoneNumber,
    contactPhoneNumbers: [...input.contactPhoneNumbers],
    body: input.body,
    direction: 'OUT',
    authorUserKey: userKey,
    timestamp: deps.clock.now(),
    status: 'QUEUED',
  };
  message.status = await deps.transport.send(message);
  await deps.repos.messages.save(message);
  return message;
}

/**
 * Lists the messages of one of the user's numbers, newest first. `pageMarker` is the opaque
 * `nextPageMarker` of the previous page.
 */
export async function listMessages(
  deps: Pick<ProductDeps, 'repos'>,
  userKey: string,
  input: { ownerPhoneNumber: string; pageSize?: number; pageMarker?: string },
): Promise<{ items: Message[]; nextPageMarker: string | null }> {
  if (!E164.test(input.ownerPhoneNumber)) throw new DomainError('invalid', 'ownerPhoneNumber must be an E.164 number.', { field: 'ownerPhoneNumber' });
  const pageSize = input.pageSize ?? 50;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    throw new DomainError('invalid', 'pageSize must be a whole number from 1 to 100.', { field: 'pageSize' });
  }
  const before = input.pageMarker === undefined ? undefined : decodeMarker(input.pageMarker);
  await requireOwnNumber(deps, userKey, input.ownerPhoneNumber);
  const rows = await deps.repos.messages.listByOwner(input.ownerPhoneNumber, { limit: pageSize + 1, ...(before ? { before } : {}) });
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return { items, nextPageMarker: rows.length > pageSize && last ? encodeMarker(last) : null };
}

async function requireOwnNumber(deps: Pick<ProductDeps, 'repos'>, userKey: string, phoneNumber: string): Promise<void> {
  const own = await deps.repos.users.listPhoneNumbers(userKey);
  if (!own.includes(phoneNumber)) throw new DomainError('forbidden', 'ownerPhoneNumber is not one of your numbers.', { field: 'ownerPhoneNumber' });
}

function encodeMarker(message: Message): string {
  return Buffer.from(`${message.timestamp.getTime()}:${message.id}`, 'utf8').toString('base64url');
}

function decodeMarker(marker: string): { timestamp: Date; id: string } {
  const decoded = /^[A-Za-z0-9_-]{1,200}$/.test(marker) ? Buffer.from(marker, 'base64url').toString('utf8') : '';
  const match = /^(\d{1,15}):([A-Za-z0-9]{1,64})$/.exec(decoded);
  if (!match) throw new DomainError('invalid', 'pageMarker is not a marker this API returned.', { field: 'pageMarker' });
  return { timestamp: new Date(Number(match[1])), id: match[2] as string };
}
