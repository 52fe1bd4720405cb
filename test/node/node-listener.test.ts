/**
 * The Node listener's fast path, which the sandbox's speed rests on
 * (bench/sandbox.bench.ts): the lazily built Request and its lazy Headers
 * must behave as the real ones do, over real HTTP; any Response is written
 * whole with its length. And its limits, over raw sockets: what it reads,
 * for how long, and what it answers itself.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { types } from 'node:util';
import { jsonResponse, readJsonBody, type WebHandler } from '../../src/http/index.js';
import { listen, type NodeListener, type RunningServer, toNodeListener } from '../../src/http/node/index.js';
import { openRaw, parseAnswer } from '../fixtures/raw-http.js';

const servers: RunningServer[] = [];

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(
  handler: WebHandler,
  maxBodyBytes?: number,
  errorHeaders?: Record<string, string>,
): Promise<string> {
  const server = await listen(toNodeListener(handler, { maxBodyBytes, errorHeaders }));
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
    let sawAbort: (aborted: boolean) => void = () => undefined;
    const aborted = new Promise<boolean>((resolve) => {
      sawAbort = resolve;
    });
    const url = await serve(async (request) => {
      await new Promise<void>((resolve) => {
        const giveUp = setTimeout(resolve, 5000);
        request.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(giveUp);
            resolve();
          },
          { once: true },
        );
      });
      sawAbort(request.signal.aborted);
      return Response.json({});
    });
    const client = new AbortController();
    const clientCall = fetch(url, { method: 'POST', body: '{}', signal: client.signal }).catch(
      () => 'aborted',
    );
    setTimeout(() => client.abort(), 100);
    assert.equal(await clientCall, 'aborted');
    assert.equal(await aborted, true);
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

/** A security header a handler's answers carry beyond the JSON ones, as the demo's do. */
const POLICY = { 'content-security-policy': "default-src 'none'" };

/** Asserts the answer is the listener's own refusal: JSON, never cached or sniffed, the handler's policy, closed. */
function assertOwnRefusal(text: string, status: number, code: string, what: string): void {
  assert.ok(!text.includes('100 Continue'), `${what}: no 100 Continue (${text.slice(0, 40)})`);
  const answer = parseAnswer(text);
  assert.equal(answer.status, status, what);
  assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8', what);
  assert.equal(answer.headers.get('cache-control'), 'no-store', what);
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(answer.headers.get('content-security-policy'), POLICY['content-security-policy'], what);
  assert.equal(answer.headers.get('connection'), 'close', what);
  assert.equal(JSON.parse(answer.body).error.code, code, what);
}

/** A `node:http` server of the merchant's own, handing `checkContinue` to the listener as documented. */
async function merchantServer(listener: NodeListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer(listener);
  server.on('checkContinue', listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("the Node adapter's limits", () => {
  let handled = 0;
  const counting: WebHandler = async (request) => {
    handled += 1;
    return Response.json({ bytes: (await request.arrayBuffer()).byteLength });
  };

  it('reads at most 16 KiB unless told otherwise, declared or streamed', { timeout: 10_000 }, async () => {
    const url = await serve(counting);
    assert.deepEqual(await (await post(url, 'x'.repeat(16 * 1024))).json(), { bytes: 16 * 1024 });
    const before = handled;
    const port = Number(new URL(url).port);
    const declared = await openRaw(port);
    declared.socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${16 * 1024 + 1}\r\n\r\n`);
    const answer = parseAnswer(await declared.received);
    assert.equal(answer.status, 413);
    assert.match(JSON.parse(answer.body).error.message, /over 16384 bytes/);
    const streamed = await fetch(url, {
      method: 'POST',
      body: new Blob(['x'.repeat(16 * 1024 + 1)]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.equal(handled, before, 'the handler saw neither');
  });

  it('refuses a declared 50 MB body at once with 413 and its security headers, never with 100 Continue', {
    timeout: 10_000,
  }, async () => {
    const listener = toNodeListener(counting, { errorHeaders: POLICY });
    const served = await listen(listener);
    servers.push(served);
    const merchant = await merchantServer(listener);
    const before = handled;
    for (const [where, port] of [
      ['listen', served.port],
      ['a server of its own', merchant.port],
    ] as const) {
      for (const expect of ['Expect: 100-continue\r\n', '']) {
        const connection = await openRaw(port);
        // Nothing of the body is sent: the answer must not wait for it.
        connection.socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 52428800\r\n${expect}\r\n`);
        assertOwnRefusal(await connection.received, 413, 'payload_too_large', `${where} ${expect}`);
      }
    }
    await merchant.close();
    assert.equal(handled, before);
  });

  it('answers 100 Continue to a body within the limit, once', async () => {
    const served = await listen(toNodeListener(counting));
    servers.push(served);
    const connection = await openRaw(served.port);
    connection.socket.write(
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n',
    );
    await once(connection.socket, 'data');
    connection.socket.end('{}');
    const text = await connection.received;
    assert.equal(text.split('100 Continue').length, 2, text);
    assert.deepEqual(JSON.parse(parseAnswer(text.slice(text.indexOf('\r\n\r\n') + 4)).body), { bytes: 2 });
  });

  it('drops 30 stalled bodies after its body time-out with 408, the handler never running', {
    timeout: 10_000,
  }, async () => {
    const merchant = await merchantServer(
      toNodeListener(counting, { bodyTimeoutMs: 200, errorHeaders: POLICY }),
    );
    const before = handled;
    const stalled = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const connection = await openRaw(merchant.port);
        // Half of a body the limit admits, and then nothing more.
        connection.socket.write(
          `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 16384\r\n\r\n${'x'.repeat(8192)}`,
        );
        return connection.received;
      }),
    );
    for (const text of stalled) assertOwnRefusal(text, 408, 'request_timeout', 'a stalled body');
    assert.equal(handled, before);
    await merchant.close();
  });

  it('drops 30 requests whose headers stall, and idle connections, with 408', {
    timeout: 10_000,
  }, async () => {
    const served = await listen(toNodeListener(counting), { headersTimeoutMs: 200, errorHeaders: POLICY });
    servers.push(served);
    const stalled = await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const connection = await openRaw(served.port);
        if (index > 0) connection.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Len');
        return connection.received;
      }),
    );
    for (const text of stalled) assertOwnRefusal(text, 408, 'request_timeout', 'stalled headers');
  });

  it('gives its own 413 and 500 the headers it is told to, beside the JSON ones', async () => {
    const url = await serve(() => Response.json({}), undefined, POLICY);
    const tooLarge = await post(url, 'x'.repeat(32 * 1024));
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.headers.get('content-security-policy'), POLICY['content-security-policy']);
    assert.equal(tooLarge.headers.get('x-content-type-options'), 'nosniff');
    const used = await serve(
      async () => {
        const response = jsonResponse({ gone: true }, 200);
        await response.text();
        return response;
      },
      undefined,
      POLICY,
    );
    const failed = await post(used, '{}');
    assert.equal(failed.status, 500);
    assert.equal(failed.headers.get('content-security-policy'), POLICY['content-security-policy']);
    assert.equal(failed.headers.get('cache-control'), 'no-store');
  });
});
