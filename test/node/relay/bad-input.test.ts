/**
 * The merchant relay turns down bad input before calling the service. Its handlers are called with real `Request`s in
 * front of an in-process sandbox (test/fixtures/relay.ts); a real proxy
 * where the wire must break, the Node listener over real HTTP where the
 * socket is the point.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import { listen, toNodeListener } from '../../../src/server/index.js';
import { INTERNATIONAL_NUMBER, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';
import { openRaw, parseAnswer } from '../../fixtures/raw-http.js';
import { CLIENT, createRequest, errorOf, intent, lookupRequest, relayStack } from '../../fixtures/relay.js';

describe('createCheckoutRelay', () => {
  const { relayWith } = relayStack();

  describe('bad input', () => {
    it('400 with the param of the first problem', async () => {
      const relay = relayWith();
      const cases: [Record<string, unknown>, string][] = [
        [intent({ customer_data: { name: '', phone_number: INTERNATIONAL_NUMBER } }), 'customer_data.name'],
        [intent({ customer_data: { phone_number: INTERNATIONAL_NUMBER } }), 'customer_data.name'],
        [
          intent({
            payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '12345' } },
          }),
          'payment_method_data.mobile_money.number',
        ],
        [
          intent({
            payment_method_data: {
              type: 'mobile_money',
              mobile_money: { issuer: 'vodafone', number: LOCAL_NUMBER },
            },
          }),
          'payment_method_data.mobile_money.issuer',
        ],
        [intent({ payment_method_data: { type: 'card' } }), 'payment_method_data.type'],
        [
          intent({ customer_data: { name: 'Ama', phone_number: '+233201234567' } }),
          'customer_data.phone_number',
        ],
      ];
      for (const [body, param] of cases) {
        const response = await relay.create(createRequest(body), CLIENT);
        assert.equal(response.status, 400, param);
        const error = await errorOf(response);
        assert.equal(error.param, param);
        assert.equal(error.type, 'invalid_request_error');
      }
    });

    it('415 for a body that is not JSON, 400 for broken JSON or a non-object', async () => {
      const relay = relayWith();
      const text = await relay.create(
        new Request('https://shop.example/api/checkout/orders', {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(intent()),
        }),
        CLIENT,
      );
      assert.equal(text.status, 415);
      assert.equal((await errorOf(text)).code, 'unsupported_media_type');
      assert.equal((await relay.create(createRequest('{"customer_data":'), CLIENT)).status, 400);
      assert.equal((await relay.create(createRequest('[1,2]'), CLIENT)).status, 400);
      assert.equal((await relay.lookup(lookupRequest('just a string'), CLIENT)).status, 400);
    });

    it('413 for a 17 KiB body, declared or chunked, to the handler and over the wire', async () => {
      const relay = relayWith();
      const big = JSON.stringify(intent({ cart: { items: [], note: 'x'.repeat(17 * 1024) } }));
      const declared = await relay.create(
        createRequest(big, { headers: { 'content-length': String(big.length) } }),
        CLIENT,
      );
      assert.equal(declared.status, 413);
      assert.equal((await errorOf(declared)).code, 'payload_too_large');

      const encoder = new TextEncoder();
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < big.length; offset += 1024) {
            controller.enqueue(encoder.encode(big.slice(offset, offset + 1024)));
          }
          controller.close();
        },
      });
      const streamed = await relay.create(
        new Request('https://shop.example/api/checkout/orders', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: chunked,
          duplex: 'half',
        } as RequestInit),
        CLIENT,
      );
      assert.equal(streamed.status, 413);

      const server = await listen(relay.node);
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const outgoing = httpRequest(`${server.url}/api/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          });
          outgoing.on('response', (incoming) => {
            incoming.resume();
            resolve(incoming.statusCode ?? 0);
          });
          outgoing.on('error', reject);
          assert.equal(outgoing.getHeader('content-length'), undefined);
          for (let offset = 0; offset < big.length; offset += 1024)
            outgoing.write(big.slice(offset, offset + 1024));
          outgoing.end();
        });
        assert.equal(status, 413, 'a chunked body over the wire');
      } finally {
        await server.close();
      }
    });

    it('relay.node reads at most the relay’s 16 KiB, and its own 413 carries the CORS headers', {
      timeout: 10_000,
    }, async () => {
      const origin = 'https://shop.example';
      const relay = relayWith({ allowedOrigins: [origin] });
      const node = await listen(relay.node);
      try {
        const connection = await openRaw(node.port);
        connection.socket.write(
          'POST /api/checkout/orders HTTP/1.1\r\nHost: pay.example\r\n' +
            `Origin: ${origin}\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${16 * 1024 + 1}\r\nExpect: 100-continue\r\n\r\n`,
        );
        const [first] = await once(connection.socket, 'data');
        assert.ok(!String(first).startsWith('HTTP/1.1 100'), 'one byte over 16 KiB is not invited');
        const answer = parseAnswer(await connection.received);
        assert.equal(answer.status, 413);
        assert.equal(JSON.parse(answer.body).error.code, 'payload_too_large');
        assert.equal(answer.headers.get('access-control-allow-origin'), origin, 'the browser can read it');
        assert.equal(answer.headers.get('cache-control'), 'no-store');
        assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
        // Another origin's 413 names none.
        const other = await fetch(`${node.url}/api/checkout/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
          body: 'x'.repeat(20 * 1024),
        });
        assert.equal(other.status, 413);
        assert.equal(other.headers.get('access-control-allow-origin'), null);
        await other.arrayBuffer();
      } finally {
        await node.close();
      }
    });

    it('413 before any 100 Continue for a declared body over the limit: 50 MB to relay.node, 17 KiB to a listener of handle', {
      timeout: 10_000,
    }, async () => {
      const relay = relayWith();
      const node = await listen(relay.node);
      const ofHandle = await listen(toNodeListener(relay.handle));
      try {
        for (const [port, length] of [
          [node.port, 50 * 1024 * 1024],
          [ofHandle.port, 17 * 1024],
        ] as const) {
          const connection = await openRaw(port);
          connection.socket.write(
            'POST /api/checkout/orders HTTP/1.1\r\nHost: shop.example\r\n' +
              `Content-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
          );
          const text = await connection.received;
          assert.ok(!text.includes('100 Continue'), text.slice(0, 40));
          const answer = parseAnswer(text);
          assert.equal(answer.status, 413, String(length));
          assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
          assert.equal(answer.headers.get('cache-control'), 'no-store');
          assert.equal(JSON.parse(answer.body).error.code, 'payload_too_large');
        }
      } finally {
        await Promise.all([node.close(), ofHandle.close()]);
      }
    });
  });
});
