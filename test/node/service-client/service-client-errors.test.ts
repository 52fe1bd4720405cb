/**
 * The service client (issue #2, "service client"): its typed errors, none of which ever shows the key. Against the real
 * sandbox over loopback HTTP, with a real proxy in between where the wire
 * must break: a connection cut after the sandbox acted, a held answer, a 429
 * or a 503.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { SANDBOX_KEYS } from '../../../src/sandbox/index.js';
import {
  ServiceApiError,
  ServiceAuthenticationError,
  ServiceError,
  ServiceIdempotencyError,
  ServiceInvalidRequestError,
  ServiceNetworkError,
  ServiceNotFoundError,
  ServicePermissionError,
} from '../../../src/server/index.js';
import { startFaultProxy } from '../../fixtures/fault-proxy.js';
import {
  everythingVisibleOf,
  loopbackSandbox,
  orderInput,
  overEachTransport,
  recordingSleep,
  rejection,
  SECRET,
} from '../../fixtures/service-client.js';

describe('createServiceClient', () => {
  const served = loopbackSandbox();

  overEachTransport((newClient) => {
    describe('typed errors', () => {
      it('401 for a key the service does not know', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: 'sk_test_nobody_has_this' });
        const error = await rejection(client.orders.lookup('or_x'));
        assert.ok(error instanceof ServiceAuthenticationError);
        assert.ok(error instanceof ServiceError);
        assert.equal(error.status, 401);
        assert.equal(error.code, 'authentication_failed');
        assert.equal(error.type, 'authentication_error');
        assert.ok(!everythingVisibleOf(error).includes('sk_test_nobody_has_this'));
      });

      it('403 for a read-only key on a write', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: SANDBOX_KEYS.readOnly });
        const error = await rejection(client.orders.create(orderInput()));
        assert.ok(error instanceof ServicePermissionError);
        assert.equal(error.status, 403);
        assert.equal(error.code, 'permission_denied');
      });

      it('400 with the param the service names', async () => {
        const client = newClient({ baseUrl: served.url, secretKey: SECRET });
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
        const client = newClient({ baseUrl: served.url, secretKey: SECRET });
        const error = await rejection(client.orders.lookup('or_doesnotexist'));
        assert.ok(error instanceof ServiceNotFoundError);
        assert.equal(error.status, 404);
        assert.equal(error.code, 'resource_not_found');
      });

      it('422 for the same key with another body, not retried', async () => {
        const proxy = await startFaultProxy(served.url);
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
          baseUrl: served.url,
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
        const proxy = await startFaultProxy(served.url, () => ({
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
        const proxy = await startFaultProxy(served.url, (_index, request) => ({
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
  });
});
