/**
 * The Node listener's limits, over raw sockets where `fetch` would not send
 * what a client may: what it reads (16 KiB unless told), a declared body
 * over it refused before any `100 Continue`, bodies and headers that stall
 * dropped after their time-out (a short one here, so no test waits long),
 * and the security headers on every answer it makes itself.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { jsonResponse, type WebHandler } from '../../../src/http/index.js';
import {
  listen,
  type NodeListener,
  type RunningServer,
  toNodeListener,
} from '../../../src/http/node/index.js';
import { openRaw, parseAnswer } from '../../fixtures/raw-http.js';

/** A security header a handler's answers carry beyond the JSON ones, as the demo's do. */
const POLICY = { 'content-security-policy': "default-src 'none'" };

const servers: RunningServer[] = [];

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Serves `listener` with `listen`, whose own refusals carry {@link POLICY} too. */
async function serve(listener: NodeListener, headersTimeoutMs?: number): Promise<RunningServer> {
  const server = await listen(listener, { headersTimeoutMs, errorHeaders: POLICY });
  servers.push(server);
  return server;
}

function post(url: string, body: string) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

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
    const { url } = await serve(toNodeListener(counting));
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
    const served = await serve(listener);
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

  it('answers 100 Continue to a body within the limit, once, whoever sends it', async () => {
    const listener = toNodeListener(counting);
    const served = await serve(listener);
    // A server of the merchant's own that leaves Expect to Node: Node sends it, the listener does not.
    const plain = createServer(listener).listen(0, '127.0.0.1');
    await once(plain, 'listening');
    after(() => plain.close());
    for (const port of [served.port, (plain.address() as AddressInfo).port]) {
      const connection = await openRaw(port);
      connection.socket.write(
        'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
      );
      await once(connection.socket, 'data');
      connection.socket.write('{}');
      const text = await connection.received;
      assert.equal(text.split('100 Continue').length, 2, text);
      assert.deepEqual(JSON.parse(parseAnswer(text.slice(text.indexOf('\r\n\r\n') + 4)).body), { bytes: 2 });
    }
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

  it('reads a body that came in time while the process was too busy to read it, instead of a 408', {
    timeout: 10_000,
  }, async () => {
    const listener = toNodeListener(counting, { bodyTimeoutMs: 50, errorHeaders: POLICY });
    const server = createServer(listener);
    const connection = { socket: undefined as import('node:net').Socket | undefined };
    // Once the listener has started the body's clock, the body is sent, and the process is then
    // busy past the time-out: the body waits, unread, on the socket.
    server.on('request', () => {
      connection.socket?.write('{}');
      const busyUntil = performance.now() + 200;
      while (performance.now() < busyUntil) {}
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const raw = await openRaw((server.address() as AddressInfo).port);
      connection.socket = raw.socket;
      raw.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n');
      const answer = parseAnswer(await raw.received);
      assert.equal(answer.status, 200, answer.body);
      assert.deepEqual(JSON.parse(answer.body), { bytes: 2 });
    } finally {
      server.close();
    }
  });

  it('drops 30 requests whose headers stall, and idle connections, with 408', {
    timeout: 10_000,
  }, async () => {
    const served = await serve(toNodeListener(counting), 200);
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
    const { url } = await serve(toNodeListener(() => Response.json({}), { errorHeaders: POLICY }));
    const declared = await post(url, 'x'.repeat(32 * 1024));
    const streamed = await fetch(url, {
      method: 'POST',
      body: new Blob(['x'.repeat(32 * 1024)]).stream(),
      duplex: 'half',
    } as RequestInit);
    for (const tooLarge of [declared, streamed]) {
      assert.equal(tooLarge.status, 413);
      assert.equal(tooLarge.headers.get('content-security-policy'), POLICY['content-security-policy']);
      assert.equal(tooLarge.headers.get('x-content-type-options'), 'nosniff');
    }
    const used = await serve(
      toNodeListener(
        async () => {
          const response = jsonResponse({ gone: true }, 200);
          await response.text();
          return response;
        },
        { errorHeaders: POLICY },
      ),
    );
    const failed = await post(used.url, '{}');
    assert.equal(failed.status, 500);
    assert.equal(failed.headers.get('content-security-policy'), POLICY['content-security-policy']);
    assert.equal(failed.headers.get('cache-control'), 'no-store');
  });
});
