import { describe, expect, it } from 'vitest';
import { demoInstructions, type DemoSeed } from './demo.js';

const issuer = 'http://localhost:3000';
const client = { clientId: 'demoClient1', scopes: ['messaging.v1.read'] };

describe('demoInstructions', () => {
  it('shows the secrets created at first start, once', () => {
    const seed: DemoSeed = { accountKey: 'acct1', userKey: 'user1', email: 'admin@example.com', password: 'generated-pw-123', phone: '+15551234567', clientId: 'demoClient1', clientSecret: 'the-secret' };
    const text = demoInstructions({ issuer, client, seed });
    expect(text).toContain('admin    e-mail admin@example.com  password generated-pw-123');
    expect(text).toContain('export CLIENT_SECRET=the-secret');
    expect(text).not.toContain('users set-password');
  });

  it('on a later start shows no secret, and the commands that make new ones', () => {
    const text = demoInstructions({ issuer, client, seed: undefined });
    expect(text).toContain('`gatehouse clients rotate-secret demoClient1` makes a new one');
    expect(text).toContain('`gatehouse users set-password --email admin@example.com --password-stdin` sets a new one');
    expect(text).not.toMatch(/password [A-Za-z0-9]{16}|CLIENT_SECRET=/);
    expect(text).toContain(`${issuer}/oauth/authorize?response_type=code&client_id=demoClient1`);
  });

  it("asks for the client's API scopes, not OpenID Connect's (the OAuth walk-through stays an OAuth request)", () => {
    const text = demoInstructions({ issuer, client: { clientId: 'demoClient1', scopes: ['messaging.v1.read', 'openid', 'profile', 'offline_access'] }, seed: undefined });
    expect(text).toContain('&scope=messaging.v1.read&state=');
  });
});
