/**
 * Conformance of the sandbox to the service's endpoints, paging and base path. Every call goes to `sandbox.handle` with a real `Request`, in
 * process (test/fixtures/sandbox.ts); sandbox-node-adapter.test.ts covers the
 * Node listener over real HTTP. Idempotency and memory bounds have their own
 * file, sandbox-idempotency.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PAGE_SIZE_MAX } from '../../../src/shared/service-contract.js';
import { assertError, call, ENDPOINTS, orderInput, sandboxWithClock } from '../../fixtures/sandbox.js';

describe("the service's endpoints", () => {
  it('every endpoint answers only POST: other methods get 405 with Allow: POST, in the error shape', async () => {
    const { url } = await sandboxWithClock();
    for (const path of [...ENDPOINTS, '/_sandbox/payments/approve', '/_sandbox/payments/prompt']) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const answer = await call(url, path, {}, { method });
        assertError(answer, 405, 'method_not_allowed', 'invalid_request_error');
        assert.equal(answer.headers.get('allow'), 'POST');
      }
    }
  });

  it('an unknown path is 404 in the error shape', async () => {
    const { url } = await sandboxWithClock();
    for (const path of ['/', '/orders', '/orders/new/', '/payments/lookup', '/_sandbox/payments/refund']) {
      assertError(await call(url, path, {}), 404, 'resource_not_found', 'invalid_request_error');
    }
  });

  it('under a basePath, answers there and nowhere else', async () => {
    const { url } = await sandboxWithClock({ basePath: '/sandbox' });
    assert.ok(url.endsWith('/sandbox'));
    const created = await call(url, '/orders/new', orderInput());
    assert.equal(created.status, 200);
    const root = url.slice(0, -'/sandbox'.length);
    assertError(
      await call(root, '/orders/new', orderInput()),
      404,
      'resource_not_found',
      'invalid_request_error',
    );
    assertError(
      await call(root, '/sandboxorders/new', orderInput()),
      404,
      'resource_not_found',
      'invalid_request_error',
    );
    const approved = await call(
      url,
      '/_sandbox/payments/approve',
      { order_id: created.body.order.id },
      { key: null },
    );
    assert.equal(approved.status, 200);
  });

  it('/orders/lookup: 200 { order } with the nested payment; 400 for a missing or malformed order_id', async () => {
    const { url } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const looked = await call(url, '/orders/lookup', { order_id: order.id });
    assert.equal(looked.status, 200);
    assert.deepEqual(Object.keys(looked.body), ['order']);
    assert.equal(looked.body.order.payment.status, 'requires_action');
    for (const body of [{}, { order_id: 42 }, { order_id: 'order_1' }, { order_id: '' }]) {
      assertError(
        await call(url, '/orders/lookup', body),
        400,
        'invalid_request',
        'invalid_request_error',
        'order_id',
      );
    }
  });

  it("an application's orders, OTPs and chimes are unknown to another application's key", async () => {
    const { url, sandbox } = await sandboxWithClock();
    sandbox.keys.add({ key: 'sk_test_elsewhere', application: { id: 'app_elsewhere', name: 'Elsewhere' } });
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    sandbox.approve(order.id);
    const paid = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    const other = { key: 'sk_test_elsewhere' };
    assert.equal((await call(url, '/orders/lookup', { order_id: order.id }, other)).status, 404);
    assert.equal((await call(url, '/otp/lookup', { otp_id: paid.payment.otp_id }, other)).status, 404);
    assert.equal((await call(url, '/chimes/lookup', { chime_id: paid.payment.chime_id }, other)).status, 404);
    const page = (await call(url, '/orders/page', { page_number: 1, page_size: 10 }, other)).body.page;
    assert.deepEqual(page.orders, []);
  });

  describe('/orders/page', () => {
    async function sandboxWithOrders(count: number) {
      const server = await sandboxWithClock();
      const ids = server.sandbox.seedOrders(count, orderInput());
      return { ...server, ids };
    }

    async function readAllPages(url: string, pageSize: number) {
      const seen: string[] = [];
      const sizes: number[] = [];
      for (let pageNumber = 1; pageNumber < 1000; pageNumber++) {
        const answer = await call(url, '/orders/page', { page_number: pageNumber, page_size: pageSize });
        assert.equal(answer.status, 200);
        assert.equal(answer.body.page.page_number, pageNumber);
        assert.equal(answer.body.page.page_size, pageSize);
        const orders = answer.body.page.orders as { id: string }[];
        sizes.push(orders.length);
        seen.push(...orders.map((order) => order.id));
        // The service's paging rule: stop at the first page holding fewer than page_size.
        if (orders.length < pageSize) return { seen, sizes };
      }
      throw new Error('the paging rule did not stop');
    }

    const shapes: [number, number][] = [
      [50, 1],
      [50, 7],
      [50, 10],
      [50, 25],
      [50, 50],
      [50, 256],
      [512, 256],
      [513, 256],
      [0, 10],
    ];
    for (const [total, pageSize] of shapes) {
      it(`the paging rule reads ${total} orders at page_size ${pageSize} exactly once, newest first, and stops`, async () => {
        const { url, ids } = await sandboxWithOrders(total);
        const { seen, sizes } = await readAllPages(url, pageSize);
        assert.deepEqual(seen, [...ids].reverse());
        const exactMultiple = total % pageSize === 0;
        assert.equal(sizes.length, Math.floor(total / pageSize) + 1);
        // An exact multiple ends with an empty page; otherwise with the short remainder.
        assert.equal(sizes.at(-1), exactMultiple ? 0 : total % pageSize);
      });
    }

    it("page items carry the service's page fields and the payment status, not the line items", async () => {
      const { url, sandbox } = await sandboxWithOrders(2);
      const [, newest] = sandbox.seedOrders(
        2,
        orderInput({ customer_data: undefined, execute_payment: false }),
      );
      const orders = (await call(url, '/orders/page', { page_number: 1, page_size: 3 })).body.page.orders;
      assert.equal(orders[0].id, newest);
      assert.equal('customer' in orders[0], false);
      assert.deepEqual(Object.keys(orders[2]).sort(), [
        'customer',
        'id',
        'initiated_at',
        'line_item_group',
        'payment',
        'status',
      ]);
      assert.deepEqual(orders[2].payment, { status: 'requires_action' });
    });

    it('page_size must be a whole number 1–256 and page_number a whole number ≥ 1 (400 with param)', async () => {
      const { url } = await sandboxWithOrders(3);
      const invalid: [Record<string, unknown>, string][] = [
        [{ page_number: 1, page_size: 0 }, 'page_size'],
        [{ page_number: 1, page_size: PAGE_SIZE_MAX + 1 }, 'page_size'],
        [{ page_number: 1, page_size: 2.5 }, 'page_size'],
        [{ page_number: 1, page_size: '10' }, 'page_size'],
        [{ page_number: 1 }, 'page_size'],
        [{ page_number: 0, page_size: 10 }, 'page_number'],
        [{ page_number: -1, page_size: 10 }, 'page_number'],
        [{ page_number: 1.5, page_size: 10 }, 'page_number'],
        [{ page_size: 10 }, 'page_number'],
      ];
      for (const [body, param] of invalid) {
        assertError(
          await call(url, '/orders/page', body),
          400,
          'invalid_request',
          'invalid_request_error',
          param,
        );
      }
      for (const pageSize of [1, PAGE_SIZE_MAX]) {
        assert.equal((await call(url, '/orders/page', { page_number: 1, page_size: pageSize })).status, 200);
      }
      const far = await call(url, '/orders/page', { page_number: Number.MAX_SAFE_INTEGER, page_size: 256 });
      assert.deepEqual(far.body.page.orders, []);
    });
  });

  it('/otp/lookup and /chimes/lookup validate their ids (400 with param)', async () => {
    const { url } = await sandboxWithClock();
    for (const body of [{}, { otp_id: 'ch_abc' }, { otp_id: 7 }]) {
      assertError(
        await call(url, '/otp/lookup', body),
        400,
        'invalid_request',
        'invalid_request_error',
        'otp_id',
      );
    }
    for (const body of [{}, { chime_id: 'otp_abc' }, { chime_id: null }]) {
      assertError(
        await call(url, '/chimes/lookup', body),
        400,
        'invalid_request',
        'invalid_request_error',
        'chime_id',
      );
    }
  });
});
