import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal } from './address-guard.js';
import { createClientMetadataDocumentFetcher, type HostResolver } from './document-fetcher.js';
import { makeTestCertificates, startTestHttpsServer, type TestCertificates, type TestHttpsServer } from '../test-support/test-tls.js';

const DOCUMENT = JSON.stringify({ client_id: 'https://agent.test/client.json', client_name: 'Agent', redirect_uris: ['http://127.0.0.1/cb'] });

let tls: TestCertificates;
let server: TestHttpsServer;

beforeAll(async () => {
  tls = makeTestCertificates();
  server = await startTestHttpsServer(tls);
}, 60_000);

afterAll(async () => {
  await server.close();
});

function serveDocument(): void {
  server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(DOCUMENT));
}

/** A resolver that answers each look-up with the next of `answers` (the last one again when they run out), counting look-ups. */
function scriptedResolver(...answers: string[][]): HostResolver & { lookups: string[] } {
  const lookups: string[] = [];
  const resolver = Object.assign(
    async (hostname: string) => {
      lookups.push(hostname);
      const answer = answers[Math.min(lookups.length, answers.length) - 1] ?? [];
      return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { lookups },
  );
  return resolver;
}

describe('createClientMetadataDocumentFetcher', () => {
  it('fetches a document over TLS from a server its CA vouches for, with the status, headers and body', async () => {
    serveDocument();
    const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true });
    const result = await fetcher.fetchDocument(`${server.origin}/client.json?v=1`);
    expect(result).toMatchObject({ kind: 'fetched', status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' } });
    if (result.kind !== 'fetched') throw new Error('not fetched');
    expect(new TextDecoder().decode(result.body)).toBe(DOCUMENT);
    expect(server.requested.at(-1)).toBe('/client.json?v=1');
  }, 30_000);

  it('connects to the address it checked, so a DNS answer that changes afterwards leads nowhere else', async () => {
    serveDocument();
    // agent.test is in no DNS: only the checked address can be reached; the second answer is never asked for.
    const resolver = scriptedResolver(['127.0.0.1'], ['10.0.0.1']);
    const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true, resolve: resolver });
    const result = await fetcher.fetchDocument(`https://agent.test:${server.port}/client.json`);
    expect(result).toMatchObject({ kind: 'fetched', status: 200 });
    expect(resolver.lookups).toEqual(['agent.test']);
  }, 30_000);

  it('refuses loopback unless allowed, without connecting', async () => {
    serveDocument();
    const before = server.requested.length;
    const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca });
    expect(await fetcher.fetchDocument(`${server.origin}/client.json`)).toMatchObject({ kind: 'failed', reason: 'refused-address', detail: expect.stringContaining('a loopback address') });
    const named = createClientMetadataDocumentFetcher({ ca: tls.ca, resolve: scriptedResolver(['127.0.0.1']) });
    expect(await named.fetchDocument(`https://agent.test:${server.port}/client.json`)).toMatchObject({ kind: 'failed', reason: 'refused-address' });
    const mapped = createClientMetadataDocumentFetcher({ ca: tls.ca, resolve: scriptedResolver(['::ffff:127.0.0.1']) });
    expect(await mapped.fetchDocument(`https://agent.test:${server.port}/client.json`)).toMatchObject({ kind: 'failed', reason: 'refused-address' });
    expect(server.requested.length).toBe(before);
  }, 30_000);

  it('refuses a host whose addresses include a private, link-local or other special one, even beside an allowed one', async () => {
    serveDocument();
    const before = server.requested.length;
    for (const answer of [['10.1.2.3'], ['192.168.1.10'], ['172.20.0.1'], ['169.254.169.254'], ['fe80::1'], ['fd00::5'], ['::ffff:10.1.2.3'], ['0.0.0.0'], ['::'], ['224.0.0.1'], ['100.64.0.1'], ['127.0.0.1', '10.0.0.1']]) {
      const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true, resolve: scriptedResolver(answer) });
      const result = await fetcher.fetchDocument(`https://agent.test:${server.port}/client.json`);
      expect({ answer, result }).toMatchObject({ answer, result: { kind: 'failed', reason: 'refused-address' } });
    }
    expect(server.requested.length).toBe(before);
  }, 30_000);

  it('never follows a redirect: the 3xx comes back as it is, its target unrequested', async () => {
    server.handle((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: `${server.origin}/elsewhere.json` }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(DOCUMENT);
    });
    const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true });
    const result = await fetcher.fetchDocument(`${server.origin}/moved`);
    expect(result).toMatchObject({ kind: 'fetched', status: 302, headers: { location: `${server.origin}/elsewhere.json` } });
    expect(server.requested).not.toContain('/elsewhere.json');
  }, 30_000);

  it('abandons a body over the size limit, declared or streamed', async () => {
    const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true });
    server.handle((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': '6000' }).end('x'.repeat(6000)));
    expect(await fetcher.fetchDocument(`${server.origin}/big.json`)).toMatchObject({ kind: 'failed', reason: 'too-large', detail: 'Content-Length 6000' });
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 12; i += 1) res.write('y'.repeat(512));
      res.end();
    });
    expect(await fetcher.fetchDocument(`${server.origin}/streamed.json`)).toMatchObject({ kind: 'failed', reason: 'too-large', detail: 'more than 5120 bytes' });
  }, 30_000);

  it('gives up on a slow body and on a server that never answers, within the time limit', async () => {
    const fetcher = createClientMetadataDocumentFetcher({ ca: tls.ca, allowLoopback: true, timeoutMs: 300 });
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"client_id":');
      // …and nothing more: the body never ends.
    });
    expect(await fetcher.fetchDocument(`${server.origin}/slow.json`)).toMatchObject({ kind: 'failed', reason: 'timeout' });
    server.handle(() => undefined);
    expect(await fetcher.fetchDocument(`${server.origin}/silent.json`)).toMatchObject({ kind: 'failed', reason: 'timeout' });
    const hanging = createClientMetadataDocumentFetcher({ timeoutMs: 300, resolve: () => new Promise(() => undefined) });
    expect(await hanging.fetchDocument('https://agent.test/client.json')).toMatchObject({ kind: 'failed', reason: 'timeout' });
  }, 30_000);

  it('does not trust a certificate its CA list does not vouch for, and fetches https only', async () => {
    serveDocument();
    const fetcher = createClientMetadataDocumentFetcher({ allowLoopback: true });
    expect(await fetcher.fetchDocument(`${server.origin}/client.json`)).toMatchObject({ kind: 'failed', reason: 'unreachable' });
    expect(await fetcher.fetchDocument(`http://127.0.0.1:${server.port}/client.json`)).toMatchObject({ kind: 'failed', reason: 'unreachable', detail: 'not an https URL' });
    const nowhere = createClientMetadataDocumentFetcher({ resolve: async () => [] });
    expect(await nowhere.fetchDocument('https://agent.test/client.json')).toMatchObject({ kind: 'failed', reason: 'unreachable' });
  }, 30_000);
});

describe('addressRefusal', () => {
  it('allows public addresses, loopback and private networks only when allowed, special-purpose ones never', () => {
    for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '8.8.8.8', '::ffff:8.8.8.8']) expect(addressRefusal(address, {})).toBeUndefined();
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(addressRefusal(address, {})).toBe('a loopback address');
      expect(addressRefusal(address, { allowLoopback: true })).toBeUndefined();
    }
    for (const address of ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1', '100.64.0.1', 'fc00::1', 'fd12:3456::1', '::ffff:192.168.0.1']) {
      expect(addressRefusal(address, { allowLoopback: true })).toBe('a private network address');
      expect(addressRefusal(address, { allowPrivateNetworks: true })).toBeUndefined();
    }
    for (const address of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.251', 'ff02::1', '255.255.255.255', '192.0.2.1', '2001:db8::1', '64:ff9b::a00:1', '::10.0.0.1', '::ffff:169.254.169.254']) {
      expect(addressRefusal(address, { allowLoopback: true, allowPrivateNetworks: true })).toBe('link-local or another special-purpose address');
    }
    expect(['172.15.255.255', '172.32.0.1', '100.128.0.1', '11.0.0.1'].map((address) => addressRefusal(address, {}))).toEqual([undefined, undefined, undefined, undefined]);
    expect(addressRefusal('agent.test', {})).toBe('not an IP address');
  });

  it('never fetches from an IPv6 address that carries an IPv4 one (6to4, Teredo) or from another special-purpose IPv6 range (RFC 6890)', () => {
    for (const address of [
      '2002:a9fe:a9fe::1', // 6to4 around 169.254.169.254
      '2002:7f00:1::1', // 6to4 around 127.0.0.1
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo (RFC 4380 §4's example)
      '2001:2::1', // benchmarking
      '2001:10::1', // ORCHID
      '3fff::1', // documentation (RFC 9637)
      '64:ff9b:1::a9fe:a9fe', // local-use NAT64
      '100::1', // discard-only
      '192.88.99.1', // 6to4 relay anycast
    ]) {
      expect(addressRefusal(address, { allowLoopback: true, allowPrivateNetworks: true })).toBe('link-local or another special-purpose address');
    }
    // The ranges end where they should: the next allocations are ordinary public addresses.
    expect(['2001:200::1', '2003::1', '2001:4860:4860::8888', '2a00:1450::1'].map((address) => addressRefusal(address, {}))).toEqual([undefined, undefined, undefined, undefined]);
  });
});
