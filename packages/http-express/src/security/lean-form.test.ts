import express, { type Request, type Response } from 'express';
import request from 'supertest';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { leanFormBody } from './lean-form.js';

/** An app whose one route answers what the reader made of the body, or the failure it reported. */
function appWith(limitBytes?: number) {
  const app = express();
  app.post('/form',
    leanFormBody({ limitBytes, onError: (_req, res, failure) => res.status(failure.status).json({ failure: failure.description }) }),
    (req: Request, res: Response) => res.json({ fields: req.body as unknown }));
  return app;
}

const FORM = 'application/x-www-form-urlencoded';
/** Sends a Buffer as its bytes (superagent would otherwise form-encode it as an object). */
const asIs = (body: unknown): string => body as string;

describe('leanFormBody', () => {
  it('reads a plain form body, decodes it and drops empty values', async () => {
    const res = await request(appWith()).post('/form').type(FORM).send('grant_type=refresh_token&scope=a+b&x=&y=%C3%BC');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ fields: { grant_type: 'refresh_token', scope: 'a b', y: 'ü' } });
  });

  it('accepts charset=utf-8 and refuses another charset (415)', async () => {
    const ok = await request(appWith()).post('/form').set('Content-Type', `${FORM}; charset=UTF-8`).send('a=1');
    expect(ok.body).toEqual({ fields: { a: '1' } });
    const latin = await request(appWith()).post('/form').set('Content-Type', `${FORM}; charset=latin1`).send('a=1');
    expect(latin.status).toBe(415);
    expect(latin.body).toEqual({ failure: 'The body must be encoded in UTF-8.' });
  });

  it('refuses another media type (415)', async () => {
    const res = await request(appWith()).post('/form').set('Content-Type', 'application/json').send('{"a":"1"}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ failure: `The body must be ${FORM}.` });
  });

  it('refuses a repeated parameter, empty or not (RFC 6749 §3.1)', async () => {
    const res = await request(appWith()).post('/form').type(FORM).send('code=a&code=');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ failure: 'The parameter code is repeated.' });
  });

  it('refuses invalid UTF-8', async () => {
    const res = await request(appWith()).post('/form').type(FORM).serialize(asIs).send(Buffer.from([0x61, 0x3d, 0xc3]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ failure: 'The body is not valid UTF-8.' });
  });

  it('refuses a declared length over the bound (413)', async () => {
    const res = await request(appWith(10)).post('/form').type(FORM).send('a=12345678901');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ failure: 'The body is larger than 10 bytes.' });
  });

  it('refuses a chunked body once it passes the bound (413)', async () => {
    const req = request(appWith(10)).post('/form').type(FORM);
    req.write('a=12345');
    req.write('67890123');
    const res = await req;
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ failure: 'The body is larger than 10 bytes.' });
  });

  it('reads a chunked body within the bound', async () => {
    const req = request(appWith(20)).post('/form').type(FORM);
    req.write('a=1&');
    req.write('b=2');
    const res = await req;
    expect(res.body).toEqual({ fields: { a: '1', b: '2' } });
  });

  it('still inflates a gzip body (the careful path)', async () => {
    const res = await request(appWith()).post('/form').type(FORM).set('Content-Encoding', 'gzip').serialize(asIs).send(gzipSync('a=1&b=2'));
    expect(res.body).toEqual({ fields: { a: '1', b: '2' } });
  });

  it('takes a body the host already parsed, with the same rules', async () => {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.post('/form',
      leanFormBody({ onError: (_req, res, failure) => res.status(failure.status).json({ failure: failure.description }) }),
      (req: Request, res: Response) => res.json({ fields: req.body as unknown }));
    const ok = await request(app).post('/form').type(FORM).send('a=1&b=');
    expect(ok.body).toEqual({ fields: { a: '1' } });
    const repeated = await request(app).post('/form').type(FORM).send('a=1&a=2');
    expect(repeated.status).toBe(400);
    expect(repeated.body).toEqual({ failure: 'The parameter a is repeated.' });
  });
});
