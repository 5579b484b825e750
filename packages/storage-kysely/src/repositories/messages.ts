import type { Message, MessageRepository, MessageStatus } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import { fromJson, fromMs, toJson, toMs } from '../encoding.js';
import type { Database, MessageTable } from '../schema.js';

export function createMessageRepository(db: Kysely<Database>): MessageRepository {
  return {
    async save(message) {
      await db
        .insertInto('messages')
        .values({
          id: message.id,
          owner_phone_number: message.ownerPhoneNumber,
          contact_phone_numbers: toJson(message.contactPhoneNumbers),
          body: message.body,
          direction: message.direction,
          author_user_key: message.authorUserKey,
          sent_at: toMs(message.timestamp),
          status: message.status,
        })
        .execute();
    },

    async listByOwner(ownerPhoneNumber, page) {
      const { before } = page;
      let query = db.selectFrom('messages').selectAll().where('owner_phone_number', '=', ownerPhoneNumber);
      if (before) {
        // Keyset paging: (sent_at, id) strictly below the cursor, a range on the owner's index.
        query = query.where((eb) => eb(eb.refTuple('sent_at', 'id'), '<', eb.tuple(toMs(before.timestamp), before.id)));
      }
      const rows = await query.orderBy('sent_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map(fromRow);
    },
  };
}

function fromRow(row: Selectable<MessageTable>): Message {
  return {
    id: row.id,
    ownerPhoneNumber: row.owner_phone_number,
    contactPhoneNumbers: fromJson<string[]>(row.contact_phone_numbers),
    body: row.body,
    direction: row.direction as Message['direction'],
    authorUserKey: row.author_user_key,
    timestamp: fromMs(row.sent_at),
    status: row.status as MessageStatus,
  };
}
