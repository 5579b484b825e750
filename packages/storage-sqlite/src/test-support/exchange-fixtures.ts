import type { Storage } from '@gatehouse/storage-kysely';

export const FIXTURE_NOW = new Date('2026-01-01T00:00:00Z');

/** Client `c1` and an unused code of user `u1` for each hash (sign-in session `sessionId`, none by default). */
export async function seedClientAndCodes(storage: Storage, codeHashes: readonly string[], sessionId: string | null = null): Promise<void> {
  await storage.repositories.clients.create({
    clientId: 'c1',
    clientSecretHash: 'h',
    name: 'App',
    redirectUris: ['https://app.example/cb'],
    scopes: ['messaging.v1.read'],
    grantTypes: ['authorization_code', 'refresh_token'],
    pkceRequired: false,
    ownerUserKey: null,
    createdAt: FIXTURE_NOW,
  });
  await seedCodes(storage, codeHashes, sessionId);
}

/** More unused codes of client `c1` and user `u1`. */
export async function seedCodes(storage: Storage, codeHashes: readonly string[], sessionId: string | null = null): Promise<void> {
  for (const codeHash of codeHashes) {
    await storage.repositories.codes.save({
      codeHash,
      clientId: 'c1',
      userKey: 'u1',
      redirectUri: 'https://app.example/cb',
      scopes: ['messaging.v1.read'],
      codeChallenge: null,
      sessionId,
      createdAt: FIXTURE_NOW,
      expiresAt: new Date(FIXTURE_NOW.getTime() + 60_000),
      consumedAt: null,
      grantId: null,
    });
  }
}

/** Exchanges `code{index}` of client `c1` for grant `g{index}` and refresh token `r{index}`, made at FIXTURE_NOW. */
export function exchangeCode(storage: Storage, index: number): Promise<boolean> {
  const grantId = `g${index}`;
  const now = FIXTURE_NOW;
  return storage.repositories.grants.createFromCode({
    grant: { grantId, clientId: 'c1', userKey: 'u1', scopes: ['messaging.v1.read'], sessionId: null, createdAt: now, revokedAt: null },
    codeHash: `code${index}`,
    refreshToken: { tokenHash: `r${index}`, grantId, createdAt: now, lastUsedAt: now, rotatedAt: null, supersededAt: null },
  });
}
