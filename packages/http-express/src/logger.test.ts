import { createTestGatehouse } from '@gatehouse/core/testing';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createGatehouseApp } from './app.js';
import { createRecordingLogger } from './test-support/recording-logger.js';

describe('access log', () => {
  it('logs the full path of a request answered inside a router mounted on a prefix', async () => {
    const t = await createTestGatehouse();
    const logger = createRecordingLogger();
    const app = createGatehouseApp({ gatehouse: t.gatehouse, product: t.product, logger });

    const response = await request(app).get('/identity/v1/Users/me?secret=x');
    expect(response.status).toBe(401);

    const accessLine = logger.lines.find((line) => line.msg === 'request');
    expect(accessLine?.obj).toMatchObject({ method: 'GET', path: '/identity/v1/Users/me', status: 401 });
    expect(logger.text()).not.toContain('secret=x');
  });
});
