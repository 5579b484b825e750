import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';

describe('smoke', () => {
  it('issues tokens', async () => {
    const t = await createTestGatehouse();
    const user = await t.seedUser();
    const { client } = await t.seedClient();
    const tokens = await t.obtainTokens({ client, user });
    expect(tokens.token_type).toBe('Bearer');
    const verified = await t.gatehouse.verifyAccessToken(tokens.access_token);
    expect(verified.userKey).toBe(user.userKey);
  });
});
