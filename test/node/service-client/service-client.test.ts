/**
 * The service client (issue #2, "service client"): its construction, calls against the sandbox, paging, undici's transport
 * and the backoff. Against the real
 * sandbox over loopback HTTP, with a real proxy in between where the wire
 * must break: a connection cut after the sandbox acted, a held answer, a 429
 * or a 503.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { createUndiciTransport } from '../../../src/http/node/undici-transport.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { createServiceClient, ServiceNotFoundError } from '../../../src/server/index.js';
import { parseRetryAfter } from '../../../src/server/service-client/retry-after.js';
import {
  RETRY_BACKOFF_BASE_MS,
  RETRY_BACKOFF_CAP_MS,
} from '../../../src/server/service-client/service-call.js';
import { fullJitterDelay } from '../../../src/shared/backoff.js';
import { startFaultProxy } from '../../fixtures/fault-proxy.js';
import { loopbackSandbox, orderInput, overEachTransport, SECRET } from '../../fixtures/service-client.js';

describe('createServiceClient', () => {
  const served = loopbackSandbox();

  describe('construction', () => {
    it('refuses a publishable key, a non-key and no key, without quoting the key', () => {
      for (const secretKey of [
        'pk_test_sandbox',
        'pk_live_abcdef123',
        'hello-world',
        'sk_test_with space',
        '',
      ]) {
        assert.throws(
          () => createServiceClient({ baseUrl: 'http://127.0.0.1:1', secretKey }),
          (error: unknown) => {
            assert.ok(error instanceof TypeError);
            assert.match(error.message, /secretKey/);
            if (secretKey) assert.ok(!error.message.includes(secretKey), 'the message quotes the key');
            return true;
          },
        );
      }
      assert.throws(
        () => createServiceClient({ baseUrl: 'http://127.0.0.1:1', secretKey: 'pk_test_sandbox' }),
        /publishable key/,
      );
      assert.throws(
        () => createServiceClient({ baseUrl: 'http://127.0.0.1:1' } as never),
        /secretKey is required/,
      );
    });

    it('refuses a missing or non-http base URL', () => {
      assert.throws(() => createServiceClient({ secretKey: SECRET } as never), /baseUrl is required/);
      assert.throws(() => createServiceClient({ baseUrl: 'ftp://x', secretKey: SECRET }), /http: or https:/);
      assert.throws(() => createServiceClient({ baseUrl: 'not a url', secretKey: SECRET }), /not a URL/);
    });

    it('keeps the key out of the client object', () => {
      const client = createServiceClient({ baseUrl: served.url, secretKey: SECRET });
      assert.ok(!inspect(client, { depth: 10, showHidden: true }).includes(SECRET));
      assert.ok(!JSON.stringify(client).includes(SECRET));
    });
  });

  overEachTransport((newClient) => {
    describe('against the sandbox', () => {
      it('creates an order, validates the answer and keeps fields the spec does not show', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: SECRET });
        const { order } = await client.orders.create(orderInput());
        assert.match(order.id, /^or_/);
        assert.equal(order.status, 'requires_payment');
        assert.equal(order.payment.status, 'requires_action');
        assert.deepEqual(order.line_item_group, {
          products_count: 2,
          total: { currency: 'ghs', value: 10_000 },
        });
        assert.match(order.initiated_at, /\.\d+(?:Z|[+-]\d\d:\d\d)$/);
        // Not a field of the service's: kept, not stripped.
        assert.ok(Array.isArray(order.line_items));
        assert.equal(typeof order.payment.otp_id, 'string');
      });

      it('looks an order up with its nested payment, and sees it paid after approval', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: SECRET });
        const { order: created } = await client.orders.create(orderInput());
        const before = await client.orders.lookup(created.id);
        assert.equal(before.order.id, created.id);
        assert.equal(before.order.payment.status, 'requires_action');
        assert.equal(before.order.completed_at, undefined);
        served.sandbox.approve(created.id);
        const { order } = await client.orders.lookup(created.id);
        assert.equal(order.payment.status, 'paid');
        assert.equal(order.status, 'completed');
        assert.equal(typeof order.completed_at, 'string');
      });

      it('reads the OTP and, once paid, the chime of an order', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: SECRET });
        const { order } = await client.orders.create(orderInput());
        const otp = await client.otp.lookup(String(order.payment.otp_id));
        assert.equal((otp.otp as { order_id: string }).order_id, order.id);
        await assert.rejects(client.chimes.lookup('ch_unknown'), ServiceNotFoundError);
        served.sandbox.approve(order.id);
        const paid = await client.orders.lookup(order.id);
        const chime = await client.chimes.lookup(String(paid.order.payment.chime_id));
        assert.equal(typeof chime.chime, 'object');
      });

      it('uses the same key for an order twice and gets the same order once', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: SECRET });
        const count = served.sandbox.createdOrderCount;
        const key = crypto.randomUUID();
        const first = await client.orders.create(orderInput(), { idempotencyKey: key });
        const second = await client.orders.create(orderInput(), { idempotencyKey: key });
        assert.equal(second.order.id, first.order.id);
        assert.deepEqual([first.replayed, second.replayed], [false, true]);
        assert.equal(served.sandbox.createdOrderCount, count + 1);
      });

      it('generates a fresh key per create when none is given', async () => {
        const proxy = await startFaultProxy(served.url);
        try {
          const client = newClient({ baseUrl: proxy.url, secretKey: SECRET });
          const a = await client.orders.create(orderInput());
          const b = await client.orders.create(orderInput());
          assert.notEqual(a.order.id, b.order.id);
          const keys = proxy.requests.map((request) => request.headers['idempotency-key']);
          assert.equal(keys.length, 2);
          for (const key of keys) assert.match(String(key), /^[0-9a-f-]{36}$/);
          assert.notEqual(keys[0], keys[1]);
        } finally {
          await proxy.close();
        }
      });
    });
  });

  describe('orders.list', () => {
    it('follows the paging rule: pages until one holds fewer than page_size', async () => {
      const fresh = await startSandbox({ port: 0, approveAfterMs: 60_000 });
      const proxy = await startFaultProxy(fresh.url);
      try {
        const client = createServiceClient({ baseUrl: proxy.url, secretKey: SECRET });
        const ids: string[] = [];
        for (let index = 0; index < 7; index++) ids.push((await client.orders.create(orderInput())).order.id);
        const before = proxy.requests.length;
        const listed: string[] = [];
        for await (const order of client.orders.list({ pageSize: 3 })) listed.push(order.id);
        assert.deepEqual(listed, [...ids].reverse(), 'every order once, newest first');
        const pages = proxy.requests.slice(before).map((request) => JSON.parse(request.body));
        assert.deepEqual(pages, [
          { page_number: 1, page_size: 3 },
          { page_number: 2, page_size: 3 },
          { page_number: 3, page_size: 3 },
        ]);

        // An exact multiple of the page size needs one more, empty page to know it is the end.
        ids.push((await client.orders.create(orderInput())).order.id);
        ids.push((await client.orders.create(orderInput())).order.id);
        const counted = proxy.requests.length;
        let seen = 0;
        for await (const _order of client.orders.list({ pageSize: 3 })) seen++;
        assert.equal(seen, 9);
        assert.equal(proxy.requests.length - counted, 4);
      } finally {
        await proxy.close();
        await fresh.close();
      }
    });

    it('reads one page with orders.page', async () => {
      const client = createServiceClient({ baseUrl: served.url, secretKey: SECRET });
      const { page } = await client.orders.page({ pageNumber: 1, pageSize: 2 });
      assert.equal(page.page_number, 1);
      assert.equal(page.page_size, 2);
      assert.ok(page.orders.length <= 2);
      for (const order of page.orders) assert.match(order.id, /^or_/);
    });
  });

  describe("undici's transport", () => {
    it('answers status, headers as Headers.get reads them, the whole body, and null-body statuses', async () => {
      const server = createServer((request, response) => {
        response.writeHead(request.url === '/empty' ? 204 : 201, [
          ['x-echo', String(request.headers['x-test'])],
          ['x-twice', 'a'],
          ['x-twice', 'b'],
        ]);
        response.end(request.url === '/empty' ? undefined : '{"created":true}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const transport = createUndiciTransport();
      const exchange = (path: string) =>
        transport({
          url: `${url}${path}`,
          method: 'POST',
          headers: { 'X-Test': 'yes' },
          body: '{}',
          timeoutMs: 5000,
        });
      try {
        const answer = await exchange('/things');
        assert.equal(answer.status, 201);
        assert.equal(answer.header('X-Echo'), 'yes');
        assert.equal(answer.header('x-twice'), 'a, b');
        assert.equal(answer.header('x-absent'), null);
        assert.equal(answer.text, '{"created":true}');
        const empty = await exchange('/empty');
        assert.equal(empty.status, 204);
        assert.equal(empty.text, '');
        await assert.rejects(
          transport({
            url: 'ftp://example.com/',
            method: 'POST',
            headers: {},
            body: '',
            timeoutMs: 5000,
          }),
        );
      } finally {
        server.close();
        server.closeAllConnections();
      }
    });
  });

  describe('backoff', () => {
    it('draws full jitter under an exponential, capped ceiling', () => {
      assert.deepEqual(
        [0, 1, 2, 3, 10].map((retry) =>
          fullJitterDelay(retry, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS, () => 0.999999),
        ),
        [199, 399, 799, 1599, 4999],
      );
      assert.equal(
        fullJitterDelay(4, RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS, () => 0),
        0,
      );
    });

    it('reads Retry-After in seconds and as an HTTP date', () => {
      assert.equal(parseRetryAfter('3'), 3000);
      assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
      assert.equal(parseRetryAfter('soon'), undefined);
      assert.equal(parseRetryAfter(null), undefined);
    });
  });
});
