import { aSigningKey, at, type ContractContext, type OAuthContractRepositories } from './contract-support.js';

/** Signing keys (the OAuth part). */
export function describeSigningKeyContract({ runner, repos }: ContractContext<OAuthContractRepositories>): void {
  const { describe, it, expect } = runner;

  describe('signing keys', () => {
    it('round-trips keys with their JWKs', async () => {
      const first = aSigningKey('kid1');
      const second = aSigningKey('kid2', { createdAt: at(100, 1) });
      await repos().signingKeys.save(first);
      await repos().signingKeys.save(second);
      const listed = await repos().signingKeys.list();
      expect([...listed].sort((a, b) => a.kid.localeCompare(b.kid))).toEqual([first, second]);
    });

    it('retires a key once and purges keys retired before a time', async () => {
      await repos().signingKeys.save(aSigningKey('old'));
      await repos().signingKeys.save(aSigningKey('newer', { createdAt: at(50) }));
      await repos().signingKeys.save(aSigningKey('active', { createdAt: at(90) }));
      await repos().signingKeys.retire('old', at(60, 6));
      await repos().signingKeys.retire('old', at(70));
      await repos().signingKeys.retire('newer', at(120));
      await repos().signingKeys.retire('unknown', at(120));

      const byKid = new Map((await repos().signingKeys.list()).map((key) => [key.kid, key]));
      expect(byKid.get('old')?.retiredAt).toEqual(at(60, 6));
      expect(byKid.get('active')?.retiredAt).toBe(null);
      expect(byKid.size).toBe(3);

      expect(await repos().signingKeys.purgeRetiredBefore(at(100))).toBe(1);
      expect((await repos().signingKeys.list()).map((key) => key.kid).sort()).toEqual(['active', 'newer']);
      expect(await repos().signingKeys.purgeRetiredBefore(at(100))).toBe(0);
    });
  });
}
