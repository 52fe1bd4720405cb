/**
 * The Node listener's fast path, which the sandbox's speed rests on
 * (bench/sandbox.bench.ts): the lazily built Request and its lazy Headers
 * must behave as the real ones do, over real HTTP; any Response is written
 * whole with its length.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { after, describe, it } from 'node:test';
import { types } from 'node:util';
import { jsonResponse, readJsonBody, type WebHandler } from '../../../src/http/index.js';
import { listen, type RunningServer, toNodeListener } from '../../../src/http/node/index.js';
import { gate, within } from '../../fixtures/wait.js';

const servers: RunningServer[] = [];

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(handler: WebHandler, maxBodyBytes?: number): Promise<string> {
  const server = await listen(toNodeListener(handler, { maxBodyBytes }));
  servers.push(server);
  return server.url;
}

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** A raw request, so the path reaches the server as written (fetch would normalise it). */
function rawRequest(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe("the Node adapter's request", () => {
  it('is a Request whose method, url, headers and body read as sent; hop-by-hop headers are dropped', async () => {
    const url = await serve(async (request) => {
      return Response.json({
        isRequest: request instanceof Request,
        method: request.method,
        url: request.url,
        custom: request.headers.get('x-custom'),
        connection: request.headers.get('connection'),
        text: await request.text(),
        bodyUsed: request.bodyUsed,
      });
    });
    const answer = await (await post(`${url}/path?q=1`, '{"a":1}', { 'x-custom': 'yes' })).json();
    assert.deepEqual(answer, {
      isRequest: true,
      method: 'POST',
      url: `${url}/path?q=1`,
      custom: 'yes',
      connection: null,
      text: '{"a":1}',
      bodyUsed: true,
    });
  });

  it('normalises the URL as new Request does', async () => {
    const url = await serve((request) => Response.json({ url: request.url }));
    const answer = await rawRequest(url, '/a/../b/./c?x=1');
    assert.deepEqual(JSON.parse(answer.body), { url: `${url}/b/c?x=1` });
  });

  it('hands readJsonBody the buffered body once; reading the body again fails as with a real Request', async () => {
    const url = await serve(async (request) => {
      const body = await readJsonBody(request, 1024);
      const usedAfterRead = request.bodyUsed;
      const second = await request.text().then(
        () => 'read again',
        (error: unknown) => (error instanceof TypeError ? 'TypeError' : String(error)),
      );
      return Response.json({ body, usedAfterRead, second });
    });
    const answer = await (await post(url, '{"order_id":"or_1"}')).json();
    assert.deepEqual(answer, { body: { order_id: 'or_1' }, usedAfterRead: true, second: 'TypeError' });
  });

  it('readJsonBody keeps its limits on the buffered body: 413 past the limit, 400 for invalid UTF-8', async () => {
    const url = await serve(async (request) => {
      try {
        return Response.json({ body: await readJsonBody(request, 16) });
      } catch (error) {
        return Response.json({ error: (error as Error).message }, { status: 400 });
      }
    });
    assert.match(
      (await (await post(url, JSON.stringify({ long: 'x'.repeat(20) }))).json()).error,
      /over 16 bytes/,
    );
    const invalid = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    assert.match((await invalid.json()).error, /UTF-8/);
  });

  it('works with clone(), new Request(request) and an empty body', async () => {
    const url = await serve(async (request) => {
      // clone() first: new Request(request) takes the body over, as with any Request.
      const clone = request.clone();
      const copy = new Request(request);
      return Response.json({
        clone: await clone.text(),
        copy: await copy.text(),
        copyMethod: copy.method,
      });
    });
    assert.deepEqual(await (await post(url, 'hello')).json(), {
      clone: 'hello',
      copy: 'hello',
      copyMethod: 'POST',
    });
    const empty = await serve(async (request) => Response.json({ text: await request.text() }));
    assert.deepEqual(await (await fetch(empty, { method: 'POST' })).json(), { text: '' });
  });

  it('answers, with an empty body, when a framework in front already read the stream', async () => {
    const listener = toNodeListener(async (request) => Response.json({ text: await request.text() }));
    const server = await listen((incoming, outgoing) => {
      incoming.resume();
      incoming.once('end', () => listener(incoming, outgoing));
    });
    servers.push(server);
    assert.deepEqual(await (await post(server.url, '{"read":"before"}')).json(), { text: '' });
  });

  it('aborts request.signal when the client goes away mid-request', async () => {
    const arrived = gate();
    const testDone = gate();
    let signal: AbortSignal | undefined;
    const url = await serve(async (request) => {
      signal = request.signal;
      arrived.open();
      // Held until the client leaves; the test's end lets a broken listener go too.
      await Promise.race([once(request.signal, 'abort'), testDone.promise]);
      return Response.json({});
    });
    try {
      const client = new AbortController();
      const clientCall = fetch(url, { method: 'POST', body: '{}', signal: client.signal }).catch(
        () => 'aborted',
      );
      await within('the request to reach the handler', arrived.promise);
      client.abort();
      assert.equal(await clientCall, 'aborted');
      const seen = signal as AbortSignal;
      await within<unknown>(
        'request.signal to abort',
        seen.aborted ? Promise.resolve() : once(seen, 'abort'),
      );
      assert.equal(seen.aborted, true);
    } finally {
      testDone.open();
    }
  });
});

describe("the Node adapter's answers", () => {
  it('writes a jsonResponse with its status, headers and a Content-Length', async () => {
    const url = await serve(() => jsonResponse({ ok: 'yes' }, 201, { 'x-extra': '1' }));
    const response = await post(url, '{}');
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('x-extra'), '1');
    assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.equal(response.headers.get('content-length'), String('{"ok":"yes"}'.length));
    assert.deepEqual(await response.json(), { ok: 'yes' });
  });

  it('a jsonResponse behaves as a Response for whoever wraps the handler', async () => {
    const url = await serve(async () => {
      const inner = jsonResponse({ n: 1 }, 200);
      assert.ok(inner instanceof Response);
      inner.headers.set('x-wrapped', 'yes');
      const peek = (await inner.clone().json()) as { n: number };
      const rebuilt = new Response(inner.body, inner);
      rebuilt.headers.set('x-peeked', String(peek.n));
      return rebuilt;
    });
    const response = await post(url, '{}');
    assert.equal(response.headers.get('x-wrapped'), 'yes');
    assert.equal(response.headers.get('x-peeked'), '1');
    assert.deepEqual(await response.json(), { n: 1 });
  });

  it('a response read by the handler is still written whole, or fails as a used body does', async () => {
    const url = await serve(async () => {
      const response = jsonResponse({ kept: true }, 200);
      const peek = response.clone();
      await peek.text();
      return response;
    });
    assert.deepEqual(await (await post(url, '{}')).json(), { kept: true });
    const used = await serve(async () => {
      const response = jsonResponse({ gone: true }, 200);
      await response.text();
      return response;
    });
    const answer = await post(used, '{}');
    assert.equal(answer.status, 500);
    assert.equal((await answer.json()).error.code, 'internal_error');
  });

  it('gives a real Response, never a Proxy, and writes any other Response too', async () => {
    assert.equal(types.isProxy(jsonResponse({ a: 1 })), false);
    const url = await serve(() => new Response('plain text', { headers: { 'content-type': 'text/plain' } }));
    const response = await post(url, '{}');
    assert.equal(response.headers.get('content-length'), '10');
    assert.equal(await response.text(), 'plain text');
  });

  it('answers 413 past maxBodyBytes, readable by a client still sending, and 500 when the handler throws', async () => {
    const url = await serve(() => Response.json({}), 1024);
    for (const size of [2048, 2 * 1024 * 1024]) {
      const response = await post(url, 'x'.repeat(size));
      assert.equal(response.status, 413);
      assert.equal((await response.json()).error.code, 'payload_too_large');
    }
    const failing = await serve(() => {
      throw new Error('boom');
    });
    const response = await post(failing, '{}');
    assert.equal(response.status, 500);
    assert.equal((await response.json()).error.code, 'internal_error');
  });
});
