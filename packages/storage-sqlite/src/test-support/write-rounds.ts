import type { Repositories } from '@gatehouse/core';

const T = 1_700_000_000_000;

/** A user, a client, an account and a live grant with a refresh token, all named after `who`. */
export async function createGatehouseRecords(repos: Repositories, who: string): Promise<void> {
  await repos.users.create({ userKey: `${who}-user`, email: `${who}@example.com`, givenName: '', familyName: '', locale: 'en', passwordHash: 'x' });
  await repos.clients.create({
    clientId: `${who}-client`,
    clientSecretHash: 'h',
    name: who,
    redirectUris: ['https://app.example/cb'],
    scopes: ['messaging.v1.send'],
    grantTypes: ['authorization_code', 'refresh_token'],
    pkceRequired: false,
    ownerUserKey: null,
    createdAt: new Date(T),
  });
  await repos.accounts.create({ accountKey: `${who}-account`, name: who });
  await repos.accounts.setMembership(`${who}-account`, `${who}-user`, 'admin');
  await repos.grants.create({ grantId: `${who}-grant`, clientId: `${who}-client`, userKey: `${who}-user`, scopes: ['messaging.v1.send'], sessionId: null, createdAt: new Date(T), revokedAt: null });
  await repos.refreshTokens.save({ tokenHash: `${who}-refresh`, grantId: `${who}-grant`, createdAt: new Date(T), lastUsedAt: new Date(T), rotatedAt: null, supersededAt: null });
}

/**
 * One round of the writes a server does: a code exchange (grant, conditional consume, refresh
 * token), an attribute created in a transaction, values set in a transaction, a revocation.
 */
export async function writeRound(repos: Repositories, who: string, round: number): Promise<void> {
  if (round === 0) await createGatehouseRecords(repos, who);
  const at = new Date(T + round);
  const grantId = `${who}-g${round}`;
  await repos.codes.save({
    codeHash: `${who}-code${round}`,
    clientId: `${who}-client`,
    userKey: `${who}-user`,
    redirectUri: 'https://app.example/cb',
    scopes: ['messaging.v1.send'],
    codeChallenge: null,
    sessionId: null,
    createdAt: at,
    expiresAt: new Date(T + 60_000),
    consumedAt: null,
    grantId: null,
  });
  const exchanged = await repos.grants.createFromCode({
    grant: { grantId, clientId: `${who}-client`, userKey: `${who}-user`, scopes: ['messaging.v1.send'], sessionId: null, createdAt: at, revokedAt: null },
    codeHash: `${who}-code${round}`,
    refreshToken: { tokenHash: `${who}-r${round}`, grantId, createdAt: at, lastUsedAt: at, rotatedAt: null, supersededAt: null },
  });
  if (!exchanged) throw new Error(`round ${round}: the code was not exchanged`);
  if ((await repos.attributes.create(`${who}-account`, { key: `${who}-a${round}`, name: `attribute ${round}` }, 100_000)) !== 'created') {
    throw new Error(`round ${round}: the attribute was not created`);
  }
  const { unknownKeys } = await repos.attributes.setUserValues(`${who}-account`, `${who}-user`, [{ key: `${who}-a${round}`, value: `v${round}` }]);
  if (unknownKeys.length > 0) throw new Error(`round ${round}: unknown keys`);
  if (round % 2 === 1 && !(await repos.grants.revoke(grantId, at))) throw new Error(`round ${round}: not revoked`);
}
