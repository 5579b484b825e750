import { createTestGatehouse } from '@gatehouse/core/testing';
import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createGatehouseApp } from '../app.js';
import { expectMatchesSchema } from '../resource/test-support/openapi.js';

// The app's last-resort answers (no route matched, or an extra router failed) for a client that
// is not a browser: RFC 9457 problems of the documented shape (openapi.yaml `Problem`,
// whose `type` is a urn:gatehouse:problem URN), never a stack.

async function appWithFailingRouter() {
  const t = await createTestGatehouse();
  const failing = Router();
  failing.get('/boom', () => {
    throw new Error('exploded at /srv/gatehouse/secret-path.ts:12:3');
  });
  return createGatehouseApp({ gatehouse: t.gatehouse, product: t.product, extraRouters: [failing] });
}

describe('last-resort answers outside the documented paths', () => {
  it('an unknown path asked for JSON: 404 problem in the documented shape', async () => {
    const app = await appWithFailingRouter();
    for (const res of [
      await request(app).get('/nothing-here').set('Accept', 'application/json'),
      await request(app).post('/nothing-here').set('Content-Type', 'application/json').send('{}'),
      await request(app).delete('/.well-known/nothing'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectMatchesSchema(JSON.parse(res.text), 'Problem');
      expect(JSON.parse(res.text)).toMatchObject({ type: 'urn:gatehouse:problem:not-found', status: 404, errorCode: 'NOT_FOUND' });
    }
  });

  it('a failure in an extra router: 500 problem in the documented shape, the cause not shown', async () => {
    const app = await appWithFailingRouter();
    const res = await request(app).get('/boom').set('Accept', 'application/json');
    expect(res.status).toBe(500);
    expectMatchesSchema(JSON.parse(res.text), 'Problem');
    expect(JSON.parse(res.text)).toMatchObject({ type: 'urn:gatehouse:problem:internal', status: 500, errorCode: 'INTERNAL' });
    expect(res.text).not.toContain('secret-path');
  });
});
