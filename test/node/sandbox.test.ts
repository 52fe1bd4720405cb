/**
 * Conformance of the sandbox (`pay-checkout/sandbox`) to the service
 * specification (spec §1–§8) and contract §4, over real HTTP on loopback.
 * Idempotency and memory bounds have their own file, sandbox-idempotency.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import {
  createSandbox,
  type RunningSandbox,
  SANDBOX_KEYS,
  SANDBOX_TEST_NUMBERS,
  SandboxControlError,
  type SandboxOptions,
  startSandbox,
} from '../../src/sandbox/index.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  PAGE_SIZE_MAX,
  SESSION_LIFETIME_MS,
  TEST_MODE_OTP_CODE,
} from '../../src/shared/service-contract.js';

const START = Date.UTC(2025, 0, 15, 9, 30, 0, 123);
const APPROVE_AFTER_MS = 6000;
const running: RunningSandbox[] = [];

after(async () => {
  await Promise.all(running.map((server) => server.close()));
});

/** A sandbox on loopback with a fake clock the test moves by hand. */
async function startWithClock(options: SandboxOptions = {}) {
  const clock = { now: START };
  const server = await startSandbox({ approveAfterMs: APPROVE_AFTER_MS, now: () => clock.now, ...options });
  running.push(server);
  return { ...server, clock };
}

interface CallOptions {
  key?: string | null;
  authorization?: string;
  method?: string;
  contentType?: string;
  rawBody?: string;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field and asserted.
  body: any;
}

async function call(
  baseUrl: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  const key = options.key === undefined ? SANDBOX_KEYS.secret : options.key;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (key !== null) headers.authorization = `Bearer ${key}`;
  Object.assign(headers, options.headers);
  const method = options.method ?? 'POST';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: method === 'GET' || method === 'HEAD' ? undefined : (options.rawBody ?? JSON.stringify(body ?? {})),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

function orderInput(overrides: Record<string, unknown> = {}) {
  return {
    execute_payment: true,
    customer_data: { name: 'Ama Mensah', phone_number: '+233241234567' },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: '0241234567' } },
    line_items: [
      {
        type: 'product',
        product: { name: 'Kente scarf', price: { currency: 'ghs', value: 12_000 }, quantity: 1 },
      },
      {
        type: 'product',
        product: { name: 'Shea butter', price: { currency: 'ghs', value: 2_500 }, quantity: 3 },
      },
    ],
    ...overrides,
  };
}

function withNumber(number: string) {
  return orderInput({
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
  });
}

function assertError(answer: Answer, status: number, code: string, type: string, param?: string) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error.code, code);
  assert.equal(answer.body.error.type, type);
  assert.equal(typeof answer.body.error.message, 'string');
  assert.ok(answer.body.error.message.length > 0);
  if (param !== undefined) assert.equal(answer.body.error.param, param);
}

const ENDPOINTS = ['/orders/new', '/orders/lookup', '/orders/page', '/otp/lookup', '/chimes/lookup'];

describe('spec §1: general rules', () => {
  it('§1.1 every call carries a JSON body: non-JSON is 415, malformed or empty JSON is 400, a non-object is 400', async () => {
    const { url } = await startWithClock();
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

  it('§1.2 creation answers the authoritative state: 200 { order } with the nested payment', async () => {
    const { url } = await startWithClock();
    const created = await call(url, '/orders/new', orderInput());
    assert.equal(created.status, 200);
    assert.equal(created.body.order.status, 'requires_payment');
    assert.equal(created.body.order.payment.status, 'requires_action');
    const looked = await call(url, '/orders/lookup', { order_id: created.body.order.id });
    assert.deepEqual(looked.body.order, created.body.order);
  });

  it('§1.3 every resource has a lookup: order, OTP and chime, each 404 when unknown', async () => {
    const { url, sandbox } = await startWithClock();
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

  it('§1.6 test mode: the OTP of every payment is 000000', async () => {
    const { url } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const otp = (await call(url, '/otp/lookup', { otp_id: order.payment.otp_id })).body.otp;
    assert.equal(otp.code, TEST_MODE_OTP_CODE);
    assert.equal(otp.code, '000000');
  });
});

describe('spec §2: resources and their fields', () => {
  it('gives orders or_ + 24 base62 characters and customers py_ + 24', async () => {
    const { url } = await startWithClock();
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
    const { url, sandbox } = await startWithClock();
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
    const { url } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    assert.equal(order.initiated_at, '2025-01-15T09:30:00.123Z');
    assert.match(order.initiated_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:Z|[+-]\d{2}:\d{2})$/);
    assert.equal('completed_at' in order, false);
  });

  it('computes line_item_group from the items (products_count counts units) and keeps the items', async () => {
    const { url } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    assert.deepEqual(order.line_item_group, { products_count: 4, total: { currency: 'ghs', value: 19_500 } });
    assert.equal(order.line_items.length, 2);
    assert.deepEqual(order.line_items[1], {
      type: 'product',
      product: { name: 'Shea butter', price: { currency: 'ghs', value: 2_500 }, quantity: 3 },
    });
  });

  it('trims names, drops unknown fields, and leaves customer out when no customer_data is sent', async () => {
    const { url } = await startWithClock();
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
    const { url } = await startWithClock();
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

let shared: Awaited<ReturnType<typeof startWithClock>> | undefined;
async function sharedSandbox() {
  shared ??= await startWithClock();
  return shared;
}

describe('spec §3: states and transitions, settled lazily by the clock', () => {
  it('an order created without execute_payment requires payment, its payment not_started, for ever', async () => {
    const { url, clock } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput({ execute_payment: false }))).body;
    assert.equal(order.status, 'requires_payment');
    assert.equal(order.payment.status, 'not_started');
    assert.equal('otp_id' in order.payment, false);
    clock.now += 365 * 24 * 3600 * 1000;
    const later = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(later.payment.status, 'not_started');
  });

  it('a normal number: requires_action until the approval delay, then paid and completed at the approval time', async () => {
    const { url, clock } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    clock.now += APPROVE_AFTER_MS - 1;
    const pending = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(pending.status, 'requires_payment');
    assert.equal(pending.payment.status, 'requires_action');
    assert.equal('completed_at' in pending, false);
    clock.now += 60_000;
    const paid = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(paid.status, 'completed');
    assert.equal(paid.payment.status, 'paid');
    assert.equal(paid.completed_at, new Date(START + APPROVE_AFTER_MS).toISOString());
    assert.equal(paid.payment.settled_at, paid.completed_at);
  });

  const failures = [
    [SANDBOX_TEST_NUMBERS.declines, 'declined'],
    [SANDBOX_TEST_NUMBERS.insufficientFunds, 'insufficient_funds'],
  ] as const;
  for (const [number, failureCode] of failures) {
    it(`${number}: failed (${failureCode}) after the delay; the order stays requires_payment`, async () => {
      const { url, clock } = await startWithClock();
      const { order } = (await call(url, '/orders/new', withNumber(number))).body;
      clock.now += APPROVE_AFTER_MS - 1;
      assert.equal(
        (await call(url, '/orders/lookup', { order_id: order.id })).body.order.payment.status,
        'requires_action',
      );
      clock.now += 1;
      const failed = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
      assert.equal(failed.payment.status, 'failed');
      assert.equal(failed.payment.failure_code, failureCode);
      assert.equal(failed.status, 'requires_payment');
      assert.equal('completed_at' in failed, false);
    });
  }

  it(`${SANDBOX_TEST_NUMBERS.neverAnswers}: stays requires_action for ever`, async () => {
    const { url, clock } = await startWithClock();
    const { order } = (await call(url, '/orders/new', withNumber(SANDBOX_TEST_NUMBERS.neverAnswers))).body;
    clock.now += 10 * 365 * 24 * 3600 * 1000;
    const later = (await call(url, '/orders/lookup', { order_id: order.id })).body.order;
    assert.equal(later.payment.status, 'requires_action');
    assert.equal(later.status, 'requires_payment');
  });

  it('the test numbers work on any network', async () => {
    const { url, clock } = await startWithClock();
    const input = orderInput({
      payment_method_data: {
        type: 'mobile_money',
        mobile_money: { issuer: 'telecel', number: SANDBOX_TEST_NUMBERS.declines },
      },
    });
    const { order } = (await call(url, '/orders/new', input)).body;
    clock.now += APPROVE_AFTER_MS;
    assert.equal(
      (await call(url, '/orders/lookup', { order_id: order.id })).body.order.payment.status,
      'failed',
    );
  });

  it('approve() settles at once, completed_at = now; decline() fails at once with the reason', async () => {
    const { url, clock, sandbox } = await startWithClock();
    const first = (await call(url, '/orders/new', withNumber(SANDBOX_TEST_NUMBERS.neverAnswers))).body.order;
    const second = (await call(url, '/orders/new', orderInput())).body.order;
    const third = (await call(url, '/orders/new', orderInput())).body.order;
    clock.now += 1500;
    const approved = sandbox.approve(first.id);
    assert.deepEqual(approved, {
      id: first.id,
      status: 'completed',
      completed_at: new Date(START + 1500).toISOString(),
      payment: { status: 'paid' },
    });
    assert.deepEqual(sandbox.decline(second.id), {
      id: second.id,
      status: 'requires_payment',
      payment: { status: 'failed' },
    });
    sandbox.decline(third.id, 'insufficient_funds');
    const looked = (await call(url, '/orders/lookup', { order_id: third.id })).body.order;
    assert.equal(looked.payment.failure_code, 'insufficient_funds');
    // Later delays change nothing: the payer already answered.
    clock.now += APPROVE_AFTER_MS * 2;
    assert.equal(
      (await call(url, '/orders/lookup', { order_id: second.id })).body.order.payment.status,
      'failed',
    );
  });

  it('approve()/decline() throw for an unknown order and for a payment that is final or not started', async () => {
    const { url, clock, sandbox } = await startWithClock();
    const paid = (await call(url, '/orders/new', orderInput())).body.order;
    const notStarted = (await call(url, '/orders/new', orderInput({ execute_payment: false }))).body.order;
    clock.now += APPROVE_AFTER_MS;
    const kindOf = (action: () => unknown) => {
      try {
        action();
      } catch (error) {
        assert.ok(error instanceof SandboxControlError);
        return error.kind;
      }
      return 'no error';
    };
    assert.equal(
      kindOf(() => sandbox.approve('or_000000000000000000000000')),
      'resourceNotFound',
    );
    assert.equal(
      kindOf(() => sandbox.decline(paid.id)),
      'paymentNotPending',
      'the delay passed: it is paid',
    );
    assert.equal(
      kindOf(() => sandbox.approve(notStarted.id)),
      'paymentNotPending',
    );
  });

  it('the OTP follows its payment (pending, verified, failed); the chime exists once paid', async () => {
    const { url, sandbox } = await startWithClock();
    const paid = (await call(url, '/orders/new', orderInput())).body.order;
    const failed = (await call(url, '/orders/new', orderInput())).body.order;
    const otpOf = async (id: string) => (await call(url, '/otp/lookup', { otp_id: id })).body.otp.status;
    assert.equal(await otpOf(paid.payment.otp_id), 'pending');
    assert.equal('chime_id' in paid.payment, false);
    sandbox.approve(paid.id);
    sandbox.decline(failed.id);
    assert.equal(await otpOf(paid.payment.otp_id), 'verified');
    assert.equal(await otpOf(failed.payment.otp_id), 'failed');
    const after = (await call(url, '/orders/lookup', { order_id: paid.id })).body.order;
    const chime = (await call(url, '/chimes/lookup', { chime_id: after.payment.chime_id })).body.chime;
    assert.deepEqual(chime, {
      id: after.payment.chime_id,
      order_id: paid.id,
      event: 'payment.paid',
      amount: { currency: 'ghs', value: 19_500 },
      created_at: after.completed_at,
    });
  });
});

describe('spec §4: endpoints', () => {
  it('every endpoint answers only POST: other methods get 405 with Allow: POST, in the error shape', async () => {
    const { url } = await startWithClock();
    for (const path of [...ENDPOINTS, '/_sandbox/payments/approve', '/_sandbox/payments/prompt']) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const answer = await call(url, path, {}, { method });
        assertError(answer, 405, 'method_not_allowed', 'invalid_request_error');
        assert.equal(answer.headers.get('allow'), 'POST');
      }
    }
  });

  it('an unknown path is 404 in the error shape', async () => {
    const { url } = await startWithClock();
    for (const path of ['/', '/orders', '/orders/new/', '/payments/lookup', '/_sandbox/payments/refund']) {
      assertError(await call(url, path, {}), 404, 'resource_not_found', 'invalid_request_error');
    }
  });

  it('under a basePath, answers there and nowhere else', async () => {
    const { url } = await startWithClock({ basePath: '/sandbox' });
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
    const { url } = await startWithClock();
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
    const { url, sandbox } = await startWithClock();
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
      const server = await startWithClock();
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
        // The paging rule of spec §4: stop at the first page holding fewer than page_size.
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

    it('page items carry the spec §2 page fields and the payment status, not the line items', async () => {
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
    const { url } = await startWithClock();
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

describe('spec §5: authentication', () => {
  const unauthenticated: [string, CallOptions][] = [
    ['§5.5 a missing Authorization header', { key: null }],
    [
      '§5.5 a header not in Bearer form (lowercase bearer)',
      { authorization: `bearer ${SANDBOX_KEYS.secret}` },
    ],
    ['§5.5 a header with two spaces', { authorization: `Bearer  ${SANDBOX_KEYS.secret}` }],
    ['§5.5 a header with no key', { authorization: 'Bearer' }],
    ['§5.5 a Basic header', { authorization: `Basic ${btoa(`${SANDBOX_KEYS.secret}:`)}` }],
    ['§5.5 a header with words after the key', { authorization: `Bearer ${SANDBOX_KEYS.secret} extra` }],
    ['§5.5 the bare key with no scheme', { authorization: SANDBOX_KEYS.secret }],
    ['§5.5 an invalid key', { key: 'sk_test_nobody' }],
    ['§5.5 a key of the wrong mode (sk_live_)', { key: 'sk_live_sandbox' }],
    ['§5.5 a key of the wrong mode (pk_live_)', { key: 'pk_live_sandbox' }],
  ];
  for (const [name, options] of unauthenticated) {
    it(`${name} is 401 authentication_failed on every endpoint`, async () => {
      const { url } = await sharedSandbox();
      for (const path of ENDPOINTS) {
        const answer = await call(url, path, { order_id: 'or_x' }, options);
        assertError(answer, 401, 'authentication_failed', 'authentication_error');
        assert.equal(answer.body.error.message.includes(SANDBOX_KEYS.secret), false, 'never echoes the key');
      }
    });
  }

  it('§5.5 the key is checked before the body: 401 even for a body that is not JSON', async () => {
    const { url } = await sharedSandbox();
    const answer = await call(url, '/orders/new', undefined, {
      key: null,
      contentType: 'text/plain',
      rawBody: 'x',
    });
    assertError(answer, 401, 'authentication_failed', 'authentication_error');
  });

  it('§5.3 §5.5 a deleted key is 401 from then on', async () => {
    const { url, sandbox } = await startWithClock();
    sandbox.keys.add({ key: 'sk_test_to_delete' });
    assert.equal(
      (await call(url, '/orders/page', { page_number: 1, page_size: 1 }, { key: 'sk_test_to_delete' }))
        .status,
      200,
    );
    assert.equal(sandbox.keys.revoke('sk_test_to_delete'), true);
    assert.equal(sandbox.keys.sessionFor('sk_test_to_delete'), undefined);
    const answer = await call(
      url,
      '/orders/page',
      { page_number: 1, page_size: 1 },
      { key: 'sk_test_to_delete' },
    );
    assertError(answer, 401, 'authentication_failed', 'authentication_error');
    assert.equal(answer.body.error.message.includes('sk_test_to_delete'), false);
  });

  it('§5.5 an expired key is 401 once the clock reaches its expiry', async () => {
    const { url, sandbox, clock } = await startWithClock();
    sandbox.keys.add({ key: 'sk_test_expiring', expiresAt: START + 1000 });
    const page = { page_number: 1, page_size: 1 };
    assert.equal((await call(url, '/orders/page', page, { key: 'sk_test_expiring' })).status, 200);
    clock.now = START + 1000;
    assertError(
      await call(url, '/orders/page', page, { key: 'sk_test_expiring' }),
      401,
      'authentication_failed',
      'authentication_error',
    );
  });

  it('§5.6 the publishable key is 403 permission_denied on every endpoint (no server-side operation)', async () => {
    const { url } = await sharedSandbox();
    for (const path of ENDPOINTS) {
      const answer = await call(url, path, { order_id: 'or_x' }, { key: SANDBOX_KEYS.publishable });
      assertError(answer, 403, 'permission_denied', 'authorization_error');
    }
  });

  it('§5.6 the read-only key is 403 on writes and allowed on every lookup and page', async () => {
    const { url, sandbox } = await startWithClock();
    const readOnly = { key: SANDBOX_KEYS.readOnly };
    assertError(
      await call(url, '/orders/new', orderInput(), readOnly),
      403,
      'permission_denied',
      'authorization_error',
    );
    assert.equal(sandbox.createdOrderCount, 0);
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    sandbox.approve(order.id);
    const paid = (await call(url, '/orders/lookup', { order_id: order.id }, readOnly)).body.order;
    assert.equal(paid.payment.status, 'paid');
    assert.equal((await call(url, '/orders/page', { page_number: 1, page_size: 5 }, readOnly)).status, 200);
    assert.equal((await call(url, '/otp/lookup', { otp_id: paid.payment.otp_id }, readOnly)).status, 200);
    assert.equal(
      (await call(url, '/chimes/lookup', { chime_id: paid.payment.chime_id }, readOnly)).status,
      200,
    );
  });

  it('§5.6 a key restricted to some permissions is 403 outside them', async () => {
    const { url, sandbox } = await startWithClock();
    sandbox.keys.add({ key: 'sk_test_orders_only', permissions: ['orders:read'] });
    const restricted = { key: 'sk_test_orders_only' };
    assert.equal((await call(url, '/orders/page', { page_number: 1, page_size: 5 }, restricted)).status, 200);
    const otp = await call(url, '/otp/lookup', { otp_id: 'otp_abc' }, restricted);
    assertError(otp, 403, 'permission_denied', 'authorization_error');
    assert.equal(otp.body.error.message.includes('otp:read'), true);
  });

  it('§5.2 the sandbox refuses to hold live keys and malformed keys', () => {
    const sandbox = createSandbox();
    assert.throws(() => sandbox.keys.add({ key: 'sk_live_real' }), TypeError);
    assert.throws(() => sandbox.keys.add({ key: 'pk_live_real' }), TypeError);
    assert.throws(() => sandbox.keys.add({ key: 'secret' }), TypeError);
  });

  it('§5.4 a multi-use session of about 60 minutes is created on first use, cached, then created anew', async () => {
    const { url, sandbox, clock } = await startWithClock();
    const page = { page_number: 1, page_size: 1 };
    assert.equal(sandbox.keys.sessionFor(SANDBOX_KEYS.secret), undefined, 'no session before first use');
    await call(url, '/orders/page', page);
    const first = sandbox.keys.sessionFor(SANDBOX_KEYS.secret);
    assert.ok(first);
    assert.match(first.id, /^ses_[A-Za-z0-9]{24}$/);
    assert.deepEqual(first.application, {
      id: 'app_sandbox',
      name: 'Sandbox Shop',
      permissions: ['orders:write', 'orders:read', 'otp:read', 'chimes:read'],
    });
    assert.equal(first.expiresAt, START + SESSION_LIFETIME_MS);
    assert.equal(first.multiUse, true);
    clock.now += SESSION_LIFETIME_MS - 1;
    await call(url, '/orders/page', page);
    assert.equal(sandbox.keys.sessionFor(SANDBOX_KEYS.secret)?.id, first.id, 'cached while valid');
    clock.now += 1;
    assert.equal(sandbox.keys.sessionFor(SANDBOX_KEYS.secret), undefined, 'expired');
    await call(url, '/orders/page', page);
    const second = sandbox.keys.sessionFor(SANDBOX_KEYS.secret);
    assert.ok(second);
    assert.notEqual(second.id, first.id);
    assert.equal(second.expiresAt, clock.now + SESSION_LIFETIME_MS);
    await call(url, '/orders/page', page, { key: SANDBOX_KEYS.readOnly });
    const readOnlySession = sandbox.keys.sessionFor(SANDBOX_KEYS.readOnly);
    assert.ok(readOnlySession);
    assert.notEqual(readOnlySession.id, second.id, 'one session per key');
    assert.deepEqual(readOnlySession.application.permissions, ['orders:read', 'otp:read', 'chimes:read']);
  });
});

describe('spec §7: errors', () => {
  it('every error answer has error.code, error.message and error.type, as JSON with no-store', async () => {
    const { url } = await sharedSandbox();
    const answers = [
      await call(url, '/orders/new', orderInput(), { key: null }),
      await call(url, '/orders/new', orderInput(), { key: SANDBOX_KEYS.publishable }),
      await call(url, '/orders/new', { line_items: [] }),
      await call(url, '/orders/lookup', { order_id: 'or_unknown' }),
      await call(url, '/orders/lookup', {}, { method: 'GET' }),
      await call(url, '/orders/lookup', undefined, { contentType: 'text/plain', rawBody: 'x' }),
      await call(url, '/nowhere', {}),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [401, 403, 400, 404, 405, 415, 404],
    );
    for (const answer of answers) {
      assert.deepEqual(Object.keys(answer.body), ['error']);
      for (const field of ['code', 'message', 'type'])
        assert.equal(typeof answer.body.error[field], 'string');
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
  });

  it('a body over 64 KiB is 413 payload_too_large', async () => {
    const { url } = await sharedSandbox();
    const big = orderInput({ padding: 'x'.repeat(70 * 1024) });
    assertError(await call(url, '/orders/new', big), 413, 'payload_too_large', 'invalid_request_error');
    // Also when the handler is called directly, without the Node adapter's own limit.
    const direct = createSandbox();
    const response = await direct.handle(
      new Request('http://sandbox/orders/new', {
        method: 'POST',
        headers: { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(big),
      }),
    );
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'payload_too_large');
  });
});

describe('spec §8: limits', () => {
  it('page_size is at most 256 and the session lasts about 60 minutes', () => {
    assert.equal(PAGE_SIZE_MAX, 256);
    assert.equal(SESSION_LIFETIME_MS, 60 * 60 * 1000);
  });
});

describe('contract §4: the control surface', () => {
  it('approve: 200 { order } with status fields only; then lookup shows paid; a second approve is 409', async () => {
    const { url, clock } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    clock.now += 2000;
    const approved = await call(url, '/_sandbox/payments/approve', { order_id: order.id }, { key: null });
    assert.equal(approved.status, 200);
    assert.deepEqual(approved.body, {
      order: {
        id: order.id,
        status: 'completed',
        completed_at: new Date(START + 2000).toISOString(),
        payment: { status: 'paid' },
      },
    });
    assert.equal((await call(url, '/orders/lookup', { order_id: order.id })).body.order.status, 'completed');
    assertError(
      await call(url, '/_sandbox/payments/approve', { order_id: order.id }, { key: null }),
      409,
      'payment_not_pending',
      'invalid_request_error',
    );
    assertError(
      await call(url, '/_sandbox/payments/decline', { order_id: order.id }, { key: null }),
      409,
      'payment_not_pending',
      'invalid_request_error',
    );
  });

  it('decline: failed with the reason given (default declined); a bad reason is 400', async () => {
    const { url } = await startWithClock();
    const first = (await call(url, '/orders/new', orderInput())).body.order;
    const second = (await call(url, '/orders/new', orderInput())).body.order;
    const declined = await call(url, '/_sandbox/payments/decline', { order_id: first.id }, { key: null });
    assert.deepEqual(declined.body, {
      order: { id: first.id, status: 'requires_payment', payment: { status: 'failed' } },
    });
    assertError(
      await call(url, '/_sandbox/payments/decline', { order_id: second.id, reason: 'fraud' }, { key: null }),
      400,
      'invalid_request',
      'invalid_request_error',
      'reason',
    );
    await call(
      url,
      '/_sandbox/payments/decline',
      { order_id: second.id, reason: 'insufficient_funds' },
      { key: null },
    );
    const looked = (await call(url, '/orders/lookup', { order_id: second.id })).body.order;
    assert.equal(looked.payment.failure_code, 'insufficient_funds');
    assert.equal(
      (await call(url, '/orders/lookup', { order_id: first.id })).body.order.payment.failure_code,
      'declined',
    );
  });

  it('unknown orders are 404, malformed ids 400, non-JSON 415', async () => {
    const { url } = await sharedSandbox();
    for (const action of ['approve', 'decline', 'prompt']) {
      const path = `/_sandbox/payments/${action}`;
      assertError(
        await call(url, path, { order_id: 'or_000000000000000000000000' }, { key: null }),
        404,
        'resource_not_found',
        'invalid_request_error',
      );
      assertError(
        await call(url, path, { order_id: 'x' }, { key: null }),
        400,
        'invalid_request',
        'invalid_request_error',
        'order_id',
      );
      assertError(
        await call(url, path, undefined, { key: null, contentType: 'text/plain', rawBody: 'x' }),
        415,
        'unsupported_media_type',
        'invalid_request_error',
      );
    }
  });

  it('prompt: what the payer sees, with the number masked and no customer name', async () => {
    const { url, sandbox } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const prompt = await call(url, '/_sandbox/payments/prompt', { order_id: order.id }, { key: null });
    assert.deepEqual(prompt.body, {
      prompt: {
        order_id: order.id,
        status: 'requires_action',
        amount: { currency: 'ghs', value: 19_500 },
        issuer: 'mtn',
        number_masked: '024•••4567',
        merchant_name: 'Sandbox Shop',
      },
    });
    const text = JSON.stringify(prompt.body);
    assert.equal(text.includes('Ama'), false);
    assert.equal(text.includes('0241234567'), false);
    assert.equal(text.includes('241234567'), false);
    sandbox.approve(order.id);
    const after = await call(url, '/_sandbox/payments/prompt', { order_id: order.id }, { key: null });
    assert.equal(after.body.prompt.status, 'paid');
    const notStarted = (await call(url, '/orders/new', orderInput({ execute_payment: false }))).body.order;
    assertError(
      await call(url, '/_sandbox/payments/prompt', { order_id: notStarted.id }, { key: null }),
      404,
      'resource_not_found',
      'invalid_request_error',
    );
  });

  it('control answers never hold the customer name or full number', async () => {
    const { url } = await startWithClock();
    const { order } = (await call(url, '/orders/new', orderInput())).body;
    const approved = JSON.stringify(
      (await call(url, '/_sandbox/payments/approve', { order_id: order.id }, { key: null })).body,
    );
    assert.equal(approved.includes('Ama'), false);
    assert.equal(approved.includes('241234567'), false);
  });
});

describe('the handler on its own', () => {
  it('works when called directly with a Request, no port', async () => {
    const sandbox = createSandbox({ basePath: '/sandbox/' });
    const headers = { authorization: `Bearer ${SANDBOX_KEYS.secret}`, 'content-type': 'application/json' };
    const created = await sandbox.handle(
      new Request('https://shop.example/sandbox/orders/new?x=1', {
        method: 'POST',
        headers: { ...headers, [IDEMPOTENCY_KEY_HEADER]: 'direct-call-key-0001' },
        body: JSON.stringify(orderInput()),
      }),
    );
    assert.equal(created.status, 200);
    const { order } = (await created.json()) as { order: { id: string } };
    const { handle } = sandbox;
    const looked = await handle(
      new Request('https://shop.example/sandbox/orders/lookup', {
        method: 'POST',
        headers,
        body: JSON.stringify({ order_id: order.id }),
      }),
    );
    assert.equal(looked.status, 200);
    assert.equal(((await looked.json()) as { order: { id: string } }).order.id, order.id);
    assert.equal(sandbox.orderCount, 1);
  });

  it("keeps node: modules out of the handler's module graph (edge runtimes)", async () => {
    const seen = new Set<string>();
    const nodeImports: string[] = [];
    const visit = async (file: URL) => {
      if (seen.has(file.href)) return;
      seen.add(file.href);
      const source = await readFile(file, 'utf8');
      // Static value imports and re-exports; `import type` and dynamic `import()` load nothing up front.
      const specifiers = [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map(
        (match) => match[1] as string,
      );
      for (const specifier of specifiers) {
        if (specifier.startsWith('node:')) nodeImports.push(`${file.pathname} -> ${specifier}`);
        else if (specifier.startsWith('.')) await visit(new URL(specifier.replace(/\.js$/, '.ts'), file));
      }
    };
    await visit(new URL('../../src/sandbox/index.ts', import.meta.url));
    assert.ok(seen.size > 5, 'the graph was walked');
    assert.deepEqual(nodeImports, []);
  });
});
