/**
 * The service client against the real sandbox over loopback HTTP (issue #2,
 * "service client"), with a real proxy in between where the wire must break:
 * a connection cut after the sandbox acted, a held answer, a 429 or a 503.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { createUndiciTransport } from '../../src/http/node/undici-transport.js';
import { SANDBOX_KEYS, startSandbox } from '../../src/sandbox/index.js';
import {
  createServiceClient,
  type OrderCreateInput,
  ServiceApiError,
  ServiceAuthenticationError,
  type ServiceClient,
  type ServiceClientOptions,
  ServiceError,
  ServiceIdempotencyError,
  ServiceInvalidRequestError,
  ServiceNetworkError,
  ServiceNotFoundError,
  ServicePermissionError,
  ServiceRateLimitError,
  ServiceTimeoutError,
} from '../../src/server/index.js';
import { parseRetryAfter } from '../../src/server/retry-after.js';
import { RETRY_BACKOFF_BASE_MS, RETRY_BACKOFF_CAP_MS } from '../../src/server/service-call.js';
import { createServiceClientOn } from '../../src/server/service-client.js';
import { fullJitterDelay } from '../../src/shared/backoff.js';
import { errorAnswer } from '../fixtures/hostile-answers.js';
import { type FaultPlan, startFaultProxy } from './wire-fault-proxy.js';

const SECRET = SANDBOX_KEYS.secret;

/** Every test of calls runs over the global fetch and over undici's transport, the relay's default on Node. */
const TRANSPORTS: { name: string; client: (options: ServiceClientOptions) => ServiceClient }[] = [
  { name: 'the global fetch', client: createServiceClient },
  {
    name: "undici's transport",
    client: (options) => createServiceClientOn(options, createUndiciTransport()),
  },
];
const NUMBER = '0241234567';

function orderInput(overrides: Partial<OrderCreateInput> = {}): OrderCreateInput {
  return {
    execute_payment: true,
    customer_data: { name: 'Ama Mensah', phone_number: '+233241234567' },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: NUMBER } },
    line_items: [
      {
        type: 'product',
        product: { name: 'Kente tote', price: { currency: 'ghs', value: 5000 }, quantity: 2 },
      },
    ],
    ...overrides,
  };
}

/** A sleep that only records: backoff is asserted, never waited. */
function recordingSleep(): { delays: number[]; sleep: (ms: number, signal?: AbortSignal) => Promise<void> } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      delays.push(ms);
    },
  };
}

/** Every string a thrown error exposes: message, toString, inspect, JSON and each own property. */
function everythingVisibleOf(error: unknown): string {
  const own =
    typeof error === 'object' && error !== null
      ? Object.getOwnPropertyNames(error).map((name) =>
          inspect((error as Record<string, unknown>)[name], { depth: 6 }),
        )
      : [];
  return [String(error), inspect(error, { depth: 6, showHidden: true }), JSON.stringify(error), ...own].join(
    '\n',
  );
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the call to reject');
}

describe('createServiceClient', () => {
  let sandboxUrl: string;
  let sandbox: Awaited<ReturnType<typeof startSandbox>>['sandbox'];
  let closeSandbox: () => Promise<void>;

  before(async () => {
    const started = await startSandbox({ port: 0, approveAfterMs: 60_000 });
    sandboxUrl = started.url;
    sandbox = started.sandbox;
    closeSandbox = started.close;
  });
  after(() => closeSandbox());

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
      const client = createServiceClient({ baseUrl: sandboxUrl, secretKey: SECRET });
      assert.ok(!inspect(client, { depth: 10, showHidden: true }).includes(SECRET));
      assert.ok(!JSON.stringify(client).includes(SECRET));
    });
  });

  for (const transport of TRANSPORTS) {
    describe(`over ${transport.name}`, () => {
      const newClient = transport.client;

      describe('against the sandbox', () => {
        it('creates an order, validates the answer and keeps fields the spec does not show', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SECRET });
          const { order } = await client.orders.create(orderInput());
          assert.match(order.id, /^or_/);
          assert.equal(order.status, 'requires_payment');
          assert.equal(order.payment.status, 'requires_action');
          assert.deepEqual(order.line_item_group, {
            products_count: 2,
            total: { currency: 'ghs', value: 10_000 },
          });
          assert.match(order.initiated_at, /\.\d+(?:Z|[+-]\d\d:\d\d)$/);
          // Not in spec §2: kept, not stripped.
          assert.ok(Array.isArray(order.line_items));
          assert.equal(typeof order.payment.otp_id, 'string');
        });

        it('looks an order up with its nested payment, and sees it paid after approval', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SECRET });
          const { order: created } = await client.orders.create(orderInput());
          const before = await client.orders.lookup(created.id);
          assert.equal(before.order.id, created.id);
          assert.equal(before.order.payment.status, 'requires_action');
          assert.equal(before.order.completed_at, undefined);
          sandbox.approve(created.id);
          const { order } = await client.orders.lookup(created.id);
          assert.equal(order.payment.status, 'paid');
          assert.equal(order.status, 'completed');
          assert.equal(typeof order.completed_at, 'string');
        });

        it('reads the OTP and, once paid, the chime of an order', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SECRET });
          const { order } = await client.orders.create(orderInput());
          const otp = await client.otp.lookup(String(order.payment.otp_id));
          assert.equal((otp.otp as { order_id: string }).order_id, order.id);
          await assert.rejects(client.chimes.lookup('ch_unknown'), ServiceNotFoundError);
          sandbox.approve(order.id);
          const paid = await client.orders.lookup(order.id);
          const chime = await client.chimes.lookup(String(paid.order.payment.chime_id));
          assert.equal(typeof chime.chime, 'object');
        });

        it('uses the same key for an order twice and gets the same order once', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SECRET });
          const count = sandbox.createdOrderCount;
          const key = crypto.randomUUID();
          const first = await client.orders.create(orderInput(), { idempotencyKey: key });
          const second = await client.orders.create(orderInput(), { idempotencyKey: key });
          assert.equal(second.order.id, first.order.id);
          assert.equal(sandbox.createdOrderCount, count + 1);
        });

        it('generates a fresh key per create when none is given', async () => {
          const proxy = await startFaultProxy(sandboxUrl);
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

      describe('typed errors', () => {
        it('401 for a key the service does not know', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: 'sk_test_nobody_has_this' });
          const error = await rejection(client.orders.lookup('or_x'));
          assert.ok(error instanceof ServiceAuthenticationError);
          assert.ok(error instanceof ServiceError);
          assert.equal(error.status, 401);
          assert.equal(error.code, 'authentication_failed');
          assert.equal(error.type, 'authentication_error');
          assert.ok(!everythingVisibleOf(error).includes('sk_test_nobody_has_this'));
        });

        it('403 for a read-only key on a write', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SANDBOX_KEYS.readOnly });
          const error = await rejection(client.orders.create(orderInput()));
          assert.ok(error instanceof ServicePermissionError);
          assert.equal(error.status, 403);
          assert.equal(error.code, 'permission_denied');
        });

        it('400 with the param the service names', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SECRET });
          const error = await rejection(
            client.orders.create(
              orderInput({
                payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '12' } },
              }),
            ),
          );
          assert.ok(error instanceof ServiceInvalidRequestError);
          assert.equal(error.status, 400);
          assert.equal(error.code, 'invalid_request');
          assert.equal(error.param, 'payment_method_data.mobile_money.number');
        });

        it('404 for an unknown order', async () => {
          const client = newClient({ baseUrl: sandboxUrl, secretKey: SECRET });
          const error = await rejection(client.orders.lookup('or_doesnotexist'));
          assert.ok(error instanceof ServiceNotFoundError);
          assert.equal(error.status, 404);
          assert.equal(error.code, 'resource_not_found');
        });

        it('422 for the same key with another body, not retried', async () => {
          const proxy = await startFaultProxy(sandboxUrl);
          try {
            const client = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              sleep: recordingSleep().sleep,
            });
            const key = crypto.randomUUID();
            await client.orders.create(orderInput(), { idempotencyKey: key });
            const error = await rejection(
              client.orders.create(
                orderInput({ customer_data: { name: 'Kofi', phone_number: '+233241234567' } }),
                {
                  idempotencyKey: key,
                },
              ),
            );
            assert.ok(error instanceof ServiceIdempotencyError);
            assert.equal(error.status, 422);
            assert.equal(error.code, 'idempotency_key_reused');
            assert.equal(proxy.requests.length, 2);
          } finally {
            await proxy.close();
          }
        });

        it('checks requests before sending: page sizes, order ids, idempotency keys', async () => {
          let calls = 0;
          const client = newClient({
            baseUrl: sandboxUrl,
            secretKey: SECRET,
            fetch: (input, init) => {
              calls++;
              return fetch(input, init);
            },
          });
          const tooBig = await rejection(client.orders.page({ pageNumber: 1, pageSize: 257 }));
          assert.ok(tooBig instanceof ServiceInvalidRequestError);
          assert.equal(tooBig.param, 'page_size');
          const zeroPage = await rejection(client.orders.page({ pageNumber: 0, pageSize: 10 }));
          assert.equal((zeroPage as ServiceError).param, 'page_number');
          const badId = await rejection(client.orders.lookup('12345'));
          assert.equal((badId as ServiceError).param, 'order_id');
          const badKey = await rejection(client.orders.create(orderInput(), { idempotencyKey: 'short' }));
          assert.equal((badKey as ServiceError).param, 'Idempotency-Key');
          const badPrice = await rejection(
            client.orders.create(
              orderInput({
                line_items: [
                  {
                    type: 'product',
                    product: { name: 'x', price: { currency: 'ghs', value: 1.5 }, quantity: 1 },
                  },
                ],
              }),
            ),
          );
          assert.equal((badPrice as ServiceError).param, 'line_items[0].product.price.value');
          assert.equal(calls, 0);
        });

        it('an answer that is not the documented shape is a ServiceApiError', async () => {
          const proxy = await startFaultProxy(sandboxUrl, () => ({
            kind: 'answer',
            status: 200,
            body: { order: { id: 'or_1', status: 'requires_payment' } },
          }));
          try {
            const client = newClient({ baseUrl: proxy.url, secretKey: SECRET });
            const error = await rejection(client.orders.lookup('or_1'));
            assert.ok(error instanceof ServiceApiError);
            assert.equal(error.code, 'invalid_response');
            assert.equal(proxy.requests.length, 1, 'a bad answer is not retried');
          } finally {
            await proxy.close();
          }
        });

        it('never shows the key, even when the service echoes it back', async () => {
          const proxy = await startFaultProxy(sandboxUrl, (_index, request) => ({
            kind: 'answer',
            status: 400,
            body: {
              error: {
                code: 'invalid_request',
                type: 'invalid_request_error',
                message: `Bad request for ${request.headers.authorization}`,
                param: String(request.headers.authorization),
              },
            },
          }));
          try {
            const client = newClient({ baseUrl: proxy.url, secretKey: SECRET });
            const error = await rejection(client.orders.lookup('or_1'));
            assert.ok(error instanceof ServiceInvalidRequestError);
            assert.match(error.message, /\[redacted\]/);
            assert.ok(!everythingVisibleOf(error).includes(SECRET));
          } finally {
            await proxy.close();
          }
        });

        it('a refused connection is a ServiceNetworkError without the key', async () => {
          const closed = createServer();
          await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
          const { port } = closed.address() as AddressInfo;
          await new Promise<void>((resolve) => closed.close(() => resolve()));
          const timing = recordingSleep();
          const client = newClient({
            baseUrl: `http://127.0.0.1:${port}`,
            secretKey: SECRET,
            maxRetries: 2,
            sleep: timing.sleep,
          });
          const error = await rejection(client.orders.lookup('or_1'));
          assert.ok(error instanceof ServiceNetworkError);
          assert.equal(error.status, 0);
          assert.equal(error.code, 'network_error');
          assert.equal(timing.delays.length, 2, 'retried twice, then gave up');
          assert.ok(!everythingVisibleOf(error).includes(SECRET));
        });
      });

      describe('retries with the same idempotency key', () => {
        it('a connection cut after the sandbox created the order: the retry returns the same order, the sandbox holds one', async () => {
          const proxy = await startFaultProxy(
            sandboxUrl,
            (index): FaultPlan => (index === 0 ? { kind: 'cut-after-upstream' } : { kind: 'forward' }),
          );
          try {
            const timing = recordingSleep();
            const client = newClient({ baseUrl: proxy.url, secretKey: SECRET, sleep: timing.sleep });
            const count = sandbox.createdOrderCount;
            const { order } = await client.orders.create(orderInput());
            assert.equal(sandbox.createdOrderCount, count + 1, 'exactly one order');
            assert.equal(proxy.requests.length, 2);
            const [first, second] = proxy.requests;
            assert.equal(first?.upstreamStatus, 200, 'the sandbox acted on the first attempt');
            assert.equal(second?.headers['idempotency-key'], first?.headers['idempotency-key']);
            assert.equal(second?.upstreamHeaders?.get('idempotent-replayed'), 'true');
            const { order: read } = await client.orders.lookup(order.id);
            assert.equal(read.id, order.id);
            assert.equal(timing.delays.length, 1);
          } finally {
            await proxy.close();
          }
        });

        it('an answer held past timeoutMs: ServiceTimeoutError, and the retry gets the one order', async () => {
          const proxy = await startFaultProxy(
            sandboxUrl,
            (index): FaultPlan => (index === 0 ? { kind: 'delay-answer', ms: 1500 } : { kind: 'forward' }),
          );
          try {
            const count = sandbox.createdOrderCount;
            const noRetry = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              timeoutMs: 300,
              maxRetries: 0,
            });
            const key = crypto.randomUUID();
            const error = await rejection(noRetry.orders.create(orderInput(), { idempotencyKey: key }));
            assert.ok(error instanceof ServiceTimeoutError);
            assert.equal(error.code, 'timeout');
            const retrying = newClient({ baseUrl: proxy.url, secretKey: SECRET, timeoutMs: 300 });
            const { order } = await retrying.orders.create(orderInput(), { idempotencyKey: key });
            assert.match(order.id, /^or_/);
            assert.equal(sandbox.createdOrderCount, count + 1);
          } finally {
            await proxy.close();
          }
        });

        it('503 then success: retried with the same key after a full-jitter wait', async () => {
          const proxy = await startFaultProxy(
            sandboxUrl,
            (index): FaultPlan =>
              index < 2 ? errorAnswer(503, 'unavailable', 'api_error', 'down') : { kind: 'forward' },
          );
          try {
            const timing = recordingSleep();
            const client = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              random: () => 0.5,
              sleep: timing.sleep,
            });
            const { order } = await client.orders.create(orderInput());
            assert.match(order.id, /^or_/);
            assert.deepEqual(timing.delays, [100, 200]);
            const keys = new Set(proxy.requests.map((request) => request.headers['idempotency-key']));
            assert.equal(keys.size, 1);
          } finally {
            await proxy.close();
          }
        });

        it('gives up after maxRetries with the last error', async () => {
          const proxy = await startFaultProxy(sandboxUrl, () =>
            errorAnswer(500, 'internal_error', 'api_error', 'boom'),
          );
          try {
            const client = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              maxRetries: 3,
              sleep: recordingSleep().sleep,
            });
            const error = await rejection(client.orders.lookup('or_1'));
            assert.ok(error instanceof ServiceApiError);
            assert.equal(error.status, 500);
            assert.equal(proxy.requests.length, 4);
          } finally {
            await proxy.close();
          }
        });

        it('429: waits out Retry-After, then succeeds', async () => {
          const proxy = await startFaultProxy(
            sandboxUrl,
            (index): FaultPlan =>
              index === 0
                ? errorAnswer(429, 'rate_limited', 'rate_limit_error', 'slow down', {
                    headers: { 'retry-after': '2' },
                  })
                : { kind: 'forward' },
          );
          try {
            const timing = recordingSleep();
            const client = newClient({ baseUrl: proxy.url, secretKey: SECRET, sleep: timing.sleep });
            const { order } = await client.orders.create(orderInput());
            assert.match(order.id, /^or_/);
            assert.deepEqual(timing.delays, [2000]);
          } finally {
            await proxy.close();
          }
        });

        it('429 asking for longer than maxRetryAfterMs is thrown at once with retryAfterMs', async () => {
          const proxy = await startFaultProxy(sandboxUrl, () =>
            errorAnswer(429, 'rate_limited', 'rate_limit_error', 'slow down', {
              headers: { 'retry-after': '120' },
            }),
          );
          try {
            const client = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              sleep: recordingSleep().sleep,
            });
            const error = await rejection(client.orders.lookup('or_1'));
            assert.ok(error instanceof ServiceRateLimitError);
            assert.equal(error.retryAfterMs, 120_000);
            assert.equal(proxy.requests.length, 1);
          } finally {
            await proxy.close();
          }
        });

        it('409 in flight: concurrent creates with one key end with one order', async () => {
          const slow = await startSandbox({ port: 0, approveAfterMs: 60_000, processingDelayMs: 150 });
          const proxy = await startFaultProxy(slow.url);
          try {
            const client = newClient({ baseUrl: proxy.url, secretKey: SECRET, maxRetries: 6 });
            const key = crypto.randomUUID();
            const answers = await Promise.all([
              client.orders.create(orderInput(), { idempotencyKey: key }),
              client.orders.create(orderInput(), { idempotencyKey: key }),
              client.orders.create(orderInput(), { idempotencyKey: key }),
            ]);
            assert.equal(new Set(answers.map((answer) => answer.order.id)).size, 1);
            assert.equal(slow.sandbox.createdOrderCount, 1);
            assert.ok(
              proxy.requests.some((request) => request.upstreamStatus === 409),
              'at least one attempt met the in-flight 409 and was retried',
            );
          } finally {
            await proxy.close();
            await slow.close();
          }
        });

        it('does not retry 400, 401, 403 or 404', async () => {
          for (const status of [400, 401, 403, 404]) {
            const proxy = await startFaultProxy(sandboxUrl, () => ({
              kind: 'answer',
              status,
              body: { error: { code: 'x', type: 'y', message: 'no' } },
            }));
            try {
              const client = newClient({
                baseUrl: proxy.url,
                secretKey: SECRET,
                sleep: recordingSleep().sleep,
              });
              await assert.rejects(client.orders.lookup('or_1'), ServiceError);
              assert.equal(proxy.requests.length, 1, `status ${status} was retried`);
            } finally {
              await proxy.close();
            }
          }
        });

        it('an aborted signal stops the call and its retries', async () => {
          const proxy = await startFaultProxy(sandboxUrl, () =>
            errorAnswer(503, 'unavailable', 'api_error', 'down'),
          );
          try {
            const controller = new AbortController();
            const client = newClient({
              baseUrl: proxy.url,
              secretKey: SECRET,
              sleep: async (_ms, signal) => {
                controller.abort(new Error('shopper left'));
                signal?.throwIfAborted();
              },
            });
            const error = await rejection(client.orders.lookup('or_1', { signal: controller.signal }));
            assert.equal((error as Error).message, 'shopper left');
            assert.equal(proxy.requests.length, 1);
          } finally {
            await proxy.close();
          }
        });
      });
    });
  }

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
      const client = createServiceClient({ baseUrl: sandboxUrl, secretKey: SECRET });
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
