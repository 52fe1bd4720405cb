/**
 * Requests on the open internet: the Node listener routes by the request line only,
 * and a `Host` that is not a plain host name gets `400` through the
 * handler's own error path (so with the headers every answer carries), never
 * a `500`, never an answer from another route. Over real HTTP, with the
 * bytes written as an attacker would write them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { pathnameOf, type WebHandler } from '../../../src/http/index.js';
import { listen, type RunningServer, toNodeListener } from '../../../src/http/node/index.js';
import { createSandbox } from '../../../src/sandbox/index.js';
import { RUNS } from '../../fixtures/property.js';
import { HOSTILE_HOSTS, sendRaw } from '../../fixtures/raw-http.js';
import { createTestRelay } from '../../fixtures/relay.js';
import { mountSandbox, sandboxFetch } from '../../fixtures/sandbox.js';

const servers: RunningServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Answers the path it routed by: what an attacker's Host would move. */
const echoPath: WebHandler = (request) => Response.json({ path: pathnameOf(request.url) });

describe('the Node listener and the Host header', () => {
  let echo: RunningServer;
  let relay: RunningServer;

  before(async () => {
    echo = await listen(toNodeListener(echoPath));
    const sandbox = createSandbox({ approveAfterMs: 60_000 });
    relay = await listen(createTestRelay({ baseUrl: mountSandbox(sandbox), fetch: sandboxFetch }).node);
    servers.push(echo, relay);
  });

  it('routes by the request line: a Host carrying a path is a 400, not another route', async () => {
    const answer = await sendRaw({
      port: echo.port,
      target: '/api/checkout/lookup',
      host: 'x/sandbox/orders/page?',
      body: '{}',
    });
    assert.equal(answer.status, 400, answer.body);
    assert.equal(JSON.parse(answer.body).error.code, 'invalid_request');
    assert.doesNotMatch(answer.body, /sandbox/);
  });

  it('keeps the request line’s path with a plain Host, a port or IPv6, and for an absolute-form target', async () => {
    for (const host of ['shop.example', 'SHOP.example:8443', '127.0.0.1:80', '[::1]:3000', 'localhost.']) {
      const answer = await sendRaw({
        port: echo.port,
        method: 'GET',
        target: '/api/checkout/lookup?x=1',
        host,
      });
      assert.equal(answer.status, 200, `${host}: ${answer.body}`);
      assert.deepEqual(JSON.parse(answer.body), { path: '/api/checkout/lookup' }, String(host));
    }
    const absolute = await sendRaw({
      port: echo.port,
      method: 'GET',
      target: 'http://elsewhere.example/api/checkout/orders',
      host: 'shop.example',
    });
    assert.deepEqual(JSON.parse(absolute.body), { path: '/api/checkout/orders' });
  });

  it('answers every hostile Host with the relay’s own 400, JSON, no-store and nosniff', async () => {
    for (const host of HOSTILE_HOSTS) {
      const answer = await sendRaw({ port: relay.port, target: '/api/checkout/lookup', host, body: '{}' });
      assert.equal(answer.status, 400, `${JSON.stringify(host)}: ${answer.status} ${answer.body}`);
      assert.equal(JSON.parse(answer.body).error.code, 'invalid_request', host);
      assert.equal(answer.headers.get('cache-control'), 'no-store', host);
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', host);
    }
  });

  it('answers no Host, or one Node’s parser refuses, with a JSON 400 that is no-store and nosniff', async () => {
    const answers = [
      await sendRaw({ port: relay.port, target: '/api/checkout/lookup', host: null, body: '{}' }),
      await sendRaw({ port: relay.port, target: '/api/checkout/lookup', host: 'a\u0001b', body: '{}' }),
      await sendRaw({
        port: relay.port,
        target: '/api/checkout/lookup',
        host: 'shop.example\u007f',
        body: '{}',
      }),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 400, answer.body);
      assert.equal(JSON.parse(answer.body).error.code, 'invalid_request');
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
  });

  it('never answers a 5xx to a Host of random header characters and hostile fragments', async () => {
    const fragment = fc.constantFrom('/', '?', '#', '@', '\\', '[', ']', ':', '%2f', ' ', '..', 'xn--', '80');
    const hostText = fc
      .array(fc.oneof(fragment, fc.string({ unit: fc.constantFrom(...'aZ09.-_:[]'), maxLength: 8 })), {
        maxLength: 8,
      })
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(hostText, async (host) => {
        const answer = await sendRaw({ port: relay.port, target: '/api/checkout/lookup', host, body: '{}' });
        assert.ok(answer.status > 0 && answer.status < 500, `${JSON.stringify(host)}: ${answer.status}`);
        assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', host);
      }),
      { numRuns: Math.min(RUNS, 150) },
    );
  });
});
