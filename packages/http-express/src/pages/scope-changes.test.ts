import { describe, expect, it } from 'vitest';
import { scopeAllowsChanges } from './scope-changes.js';

describe('scopeAllowsChanges: the rule on the action segment (docs/decisions/0097)', () => {
  it('marks scopes whose last segment is write, send, create, update, delete or manage', () => {
    for (const scope of ['messaging.v1.send', 'orders.write', 'admin.v1.attributes.delete', 'crm.v2.contacts.create', 'crm.v2.contacts.update', 'billing.manage', 'x.SEND']) {
      expect(scopeAllowsChanges(scope), scope).toBe(true);
    }
  });

  it('leaves reading scopes and look-alikes unmarked', () => {
    for (const scope of ['messaging.v1.read', 'admin.v1.attributes.read', 'profile', 'orders.sender', 'send.read', 'write.v1.list']) {
      expect(scopeAllowsChanges(scope), scope).toBe(false);
    }
    expect(scopeAllowsChanges('send')).toBe(true);
  });
});
