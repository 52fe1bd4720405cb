/**
 * Conformance of the sandbox to the service's general rules and its
 * resources and their fields. Every call goes to `sandbox.handle` with a real `Request`, in
 * process (test/fixtures/sandbox.ts); sandbox-node-adapter.test.ts covers the
 * Node listener over real HTTP. Idempotency and memory bounds have their own
 * file, sandbox-idempotency.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSandbox, type SandboxOptions } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { TEST_MODE_OTP_CODE } from '../../../src/shared/service-contract.js';
import {
  assertError,
  call,
  ENDPOINTS,
  orderInput,
  sandboxWithClock,
  sharedSandbox,
} from '../../fixtures/sandbox.js';

describe('the sandbox’s options', () => {
  it('takes one clock, and refuses the now option it replaced with a TypeError naming clock', () => {
    assert.doesNotThrow(() => createSandbox({ clock: systemClock }));
    const stale = { now: () => 0 } as SandboxOptions;
    assert.throws(
      () => createSandbox(stale),
      (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /\bclock\b/);
        return true;
      },
    );
    const halfClock = { clock: { now: () => 0 } } as unknown as SandboxOptions;
    assert.throws(
      () => createSandbox(halfClock),
      /clock must have now\(\), setTimeout\(\) and clearTimeout\(\)/,
    );
  });
});

describe("the service's general rules", () => {
  it('every call carries a JSON body: non-JSON is 415, malformed or empty JSON is 400, a non-object is 400', async () => {
    const { url } = await sandboxWithClock();
    for (const path of ENDPOINTS) {
      assertError(
        await call(url, path, undefined, { contentType: 'text/plain', rawBody: 'order_id=or_x' }),
        415,
        'unsupported_media_type',
        'invalid_request_error',
      );
      assertError(
        await call(url, path, undefined, { rawBody: '{"order_id":' }),
        400,
        'invalid_request',
        'invalid_request_error',
      );
      assertError(
        await call(url, path, undefined, { rawBody: '' }),
        400,
        'invalid_request',
        'invalid_request_error',
      );
      assertError(await call(url, path, [1, 2]), 400, 'invalid_request', 'invalid_request_error');
      assertError(await call(url, path, null), 400, 'invalid_request', 'invalid_request_error');
    }
  });

  it('creation answers the authoritative state: 200 { order } with the nested payment', async () => {
    const { url } = await sandboxWithClock();
    const created = await call(url, '/orders/new', orderInput());
    assert.equal(created.status, 200);
    assert.equal(created.body.order.status, 'requires_payment');
    assert.equal(created.body.order.payment.status, 'requires_action');
    const looked = await call(url, '/orders/lookup', { order_id: created.body.order.id });
    assert.deepEqual(looked.body.order, created.body.order);
  });

  it('every resource has a lookup: order, OTP and chime, each 404 when unknown', async () => {
    const { url, sandbox } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    sandbox.approve(order.id);
    const paid = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    const otp = await call(url, '/otp/lookup', { otp_id: paid.payment.otp_id });
    assert.equal(otp.status, 200);
    assert.equal(otp.body.otp.order_id, order.id);
    const chime = await call(url, '/chimes/lookup', { chime_id: paid.payment.chime_id });
    assert.equal(chime.status, 200);
    assert.equal(chime.body.chime.order_id, order.id);
    const unknown = [
      ['/orders/lookup', { order_id: 'or_000000000000000000000000' }, 'order_id'],
      ['/otp/lookup', { otp_id: 'otp_000000000000000000000000' }, 'otp_id'],
      ['/chimes/lookup', { chime_id: 'ch_000000000000000000000000' }, 'chime_id'],
    ] as const;
    for (const [path, body, param] of unknown) {
      assertError(await call(url, path, body), 404, 'resource_not_found', 'invalid_request_error', param);
    }
  });

  it('test mode: the OTP of every payment is 000000', async () => {
    const { url } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const otp = (await call(url, '/otp/lookup', { otp_id: order.payment.otp_id })).body.otp;
    assert.equal(otp.code, TEST_MODE_OTP_CODE);
    assert.equal(otp.code, '000000');
  });
});

describe("the service's resources and their fields", () => {
  it('gives orders or_ + 24 base62 characters and customers py_ + 24', async () => {
    const { url } = await sandboxWithClock();
    const ids = new Set<string>();
    for (let index = 0; index < 20; index++) {
      const { order } = (await call(url, '/orders/new', orderInput())).body;
      assert.match(order.id, /^or_[A-Za-z0-9]{24}$/);
      assert.match(order.customer.id, /^py_[A-Za-z0-9]{24}$/);
      ids.add(order.id);
    }
    assert.equal(ids.size, 20);
  });

  it('keeps one customer id per phone number within an application, and not across applications', async () => {
    const { url, sandbox } = await sandboxWithClock();
    sandbox.keys.add({ key: 'sk_test_other_shop', application: { id: 'app_other', name: 'Other Shop' } });
    const first = (await call(url, '/orders/new', orderInput())).body.order.customer;
    const again = (await call(url, '/orders/new', orderInput())).body.order.customer;
    const otherPhone = (
      await call(
        url,
        '/orders/new',
        orderInput({ customer_data: { name: 'Kofi', phone_number: '+233201234567' } }),
      )
    ).body.order.customer;
    const otherApp = (await call(url, '/orders/new', orderInput(), { key: 'sk_test_other_shop' })).body.order
      .customer;
    assert.equal(again.id, first.id);
    assert.notEqual(otherPhone.id, first.id);
    assert.notEqual(otherApp.id, first.id);
    assert.deepEqual(first, { id: first.id, name: 'Ama Mensah', phone_number: '+233241234567' });
  });

  it('stamps initiated_at in ISO 8601 with milliseconds and Z, from the clock', async () => {
    const { url } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    assert.equal(order.initiated_at, '2025-01-15T09:30:00.123Z');
    assert.match(order.initiated_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:Z|[+-]\d{2}:\d{2})$/);
    assert.equal('completed_at' in order, false);
  });

  it('computes line_item_group from the items (products_count counts units) and keeps the items', async () => {
    const { url } = await sandboxWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    assert.deepEqual(order.line_item_group, { products_count: 4, total: { currency: 'ghs', value: 19_500 } });
    assert.equal(order.line_items.length, 2);
    assert.deepEqual(order.line_items[1], {
      type: 'product',
      product: { name: 'Shea butter', price: { currency: 'ghs', value: 2_500 }, quantity: 3 },
    });
  });

  it('trims names, drops unknown fields, and leaves customer out when no customer_data is sent', async () => {
    const { url } = await sandboxWithClock();
    const input = {
      amount: 1,
      line_items: [
        {
          type: 'product',
          note: 'ignored',
          product: { name: '  Kelewele  ', price: { currency: 'ghs', value: 500 }, quantity: 2 },
        },
      ],
    };
    const { order } = (await call(url, '/orders/new', input)).body;
    assert.equal('customer' in order, false);
    assert.equal('amount' in order, false);
    assert.deepEqual(order.line_items, [
      { type: 'product', product: { name: 'Kelewele', price: { currency: 'ghs', value: 500 }, quantity: 2 } },
    ]);
    assert.equal(order.payment.status, 'not_started');
  });

  it('accepts a total of exactly Number.MAX_SAFE_INTEGER', async () => {
    const { url } = await sandboxWithClock();
    const input = {
      line_items: [
        {
          type: 'product',
          product: { name: 'Gold', price: { currency: 'ghs', value: Number.MAX_SAFE_INTEGER }, quantity: 1 },
        },
      ],
    };
    const created = await call(url, '/orders/new', input);
    assert.equal(created.status, 200);
    assert.equal(created.body.order.line_item_group.total.value, Number.MAX_SAFE_INTEGER);
  });

  describe('400 invalid_request with the dotted param of the first problem', () => {
    const item = (product: Record<string, unknown>) => ({
      type: 'product',
      product: { name: 'Tea', price: { currency: 'ghs', value: 100 }, quantity: 1, ...product },
    });
    const cases: [string, Record<string, unknown>, string][] = [
      ['customer_data not an object', { customer_data: 'Ama' }, 'customer_data'],
      [
        'customer_data.name missing',
        { customer_data: { phone_number: '+233241234567' } },
        'customer_data.name',
      ],
      [
        'customer_data.name blank',
        { customer_data: { name: '   ', phone_number: '+233241234567' } },
        'customer_data.name',
      ],
      [
        'customer_data.name over 120',
        { customer_data: { name: 'a'.repeat(121), phone_number: '+233241234567' } },
        'customer_data.name',
      ],
      [
        'customer_data.phone_number local',
        { customer_data: { name: 'Ama', phone_number: '0241234567' } },
        'customer_data.phone_number',
      ],
      [
        'customer_data.phone_number missing',
        { customer_data: { name: 'Ama' } },
        'customer_data.phone_number',
      ],
      ['payment_method_data not an object', { payment_method_data: [] }, 'payment_method_data'],
      [
        'payment_method_data.type card',
        { payment_method_data: { type: 'card', mobile_money: { issuer: 'mtn', number: '0241234567' } } },
        'payment_method_data.type',
      ],
      [
        'payment_method_data.mobile_money missing',
        { payment_method_data: { type: 'mobile_money' } },
        'payment_method_data.mobile_money',
      ],
      [
        'issuer unknown',
        {
          payment_method_data: {
            type: 'mobile_money',
            mobile_money: { issuer: 'vodafone', number: '0241234567' },
          },
        },
        'payment_method_data.mobile_money.issuer',
      ],
      [
        'number in international form',
        {
          payment_method_data: {
            type: 'mobile_money',
            mobile_money: { issuer: 'mtn', number: '+233241234567' },
          },
        },
        'payment_method_data.mobile_money.number',
      ],
      [
        'number of an unknown prefix',
        {
          payment_method_data: {
            type: 'mobile_money',
            mobile_money: { issuer: 'mtn', number: '0211234567' },
          },
        },
        'payment_method_data.mobile_money.number',
      ],
      [
        'number too short',
        {
          payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '024123456' } },
        },
        'payment_method_data.mobile_money.number',
      ],
      [
        'number not a string',
        { payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: 241234567 } } },
        'payment_method_data.mobile_money.number',
      ],
      ['line_items missing', { line_items: undefined }, 'line_items'],
      ['line_items not an array', { line_items: { type: 'product' } }, 'line_items'],
      ['line_items empty', { line_items: [] }, 'line_items'],
      ['line_items over 100', { line_items: Array.from({ length: 101 }, () => item({})) }, 'line_items'],
      ['line item not an object', { line_items: ['tea'] }, 'line_items[0]'],
      ['line item type', { line_items: [{ ...item({}), type: 'service' }] }, 'line_items[0].type'],
      ['product missing', { line_items: [{ type: 'product' }] }, 'line_items[0].product'],
      ['product.name empty', { line_items: [item({ name: '' })] }, 'line_items[0].product.name'],
      [
        'product.name over 200',
        { line_items: [item({ name: 'x'.repeat(201) })] },
        'line_items[0].product.name',
      ],
      ['price missing', { line_items: [item({ price: undefined })] }, 'line_items[0].product.price'],
      [
        'price.currency usd',
        { line_items: [item({ price: { currency: 'usd', value: 100 } })] },
        'line_items[0].product.price.currency',
      ],
      [
        'price.currency uppercase',
        { line_items: [item({ price: { currency: 'GHS', value: 100 } })] },
        'line_items[0].product.price.currency',
      ],
      [
        'price.value zero',
        { line_items: [item({ price: { currency: 'ghs', value: 0 } })] },
        'line_items[0].product.price.value',
      ],
      [
        'price.value negative',
        { line_items: [item({ price: { currency: 'ghs', value: -100 } })] },
        'line_items[0].product.price.value',
      ],
      [
        'price.value fractional',
        { line_items: [item({ price: { currency: 'ghs', value: 1.5 } })] },
        'line_items[0].product.price.value',
      ],
      [
        'price.value a string',
        { line_items: [item({ price: { currency: 'ghs', value: '100' } })] },
        'line_items[0].product.price.value',
      ],
      [
        'price.value past MAX_SAFE_INTEGER',
        { line_items: [item({ price: { currency: 'ghs', value: 2 ** 53 } })] },
        'line_items[0].product.price.value',
      ],
      ['quantity zero', { line_items: [item({ quantity: 0 })] }, 'line_items[0].product.quantity'],
      ['quantity over 1000', { line_items: [item({ quantity: 1001 })] }, 'line_items[0].product.quantity'],
      ['quantity fractional', { line_items: [item({ quantity: 2.5 })] }, 'line_items[0].product.quantity'],
      ['a later item', { line_items: [item({}), item({ quantity: -1 })] }, 'line_items[1].product.quantity'],
      [
        'total past MAX_SAFE_INTEGER',
        {
          line_items: [
            item({ price: { currency: 'ghs', value: Number.MAX_SAFE_INTEGER }, quantity: 1 }),
            item({ price: { currency: 'ghs', value: 1 }, quantity: 1 }),
          ],
        },
        'line_items',
      ],
      ['execute_payment not a boolean', { execute_payment: 'yes' }, 'execute_payment'],
      [
        'execute_payment without payment_method_data',
        { payment_method_data: undefined },
        'payment_method_data',
      ],
    ];
    for (const [name, overrides, param] of cases) {
      it(`${name} -> param ${param}`, async () => {
        const { url, sandbox } = await sharedSandbox();
        const before = sandbox.createdOrderCount;
        const answer = await call(url, '/orders/new', orderInput(overrides));
        assertError(answer, 400, 'invalid_request', 'invalid_request_error', param);
        assert.equal(sandbox.createdOrderCount, before, 'no order is created');
      });
    }
  });
});
