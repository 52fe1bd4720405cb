/**
 * The merchant relay (issue #3): its handlers called with real `Request`s
 * while it talks to a real sandbox over loopback; a real proxy where the wire
 * must break; the Node listener over real HTTP where the socket is the point.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { SANDBOX_KEYS, startSandbox } from '../../src/sandbox/index.js';
import {
  CartError,
  type CheckoutRelayEvent,
  type CheckoutRelayOptions,
  createCheckoutRelay,
  createLookupTokens,
  createMemoryRateLimitStore,
  createServiceClient,
  listen,
  type PricedLineItem,
} from '../../src/server/index.js';
import { createCheckoutRelay as createNodeCheckoutRelay } from '../../src/server/node.js';
import { createAnswerSchema, errorBodySchema, lookupAnswerSchema } from '../../src/shared/wire.js';
import { type FaultPlan, startFaultProxy } from './wire-fault-proxy.js';

const SECRET = SANDBOX_KEYS.secret;
const LOOKUP_SECRET = 'test-lookup-secret-0123456789abcdef';
const CUSTOMER_NAME = 'Ama Mensah';
const LOCAL_NUMBER = '0241234567';
const INTERNATIONAL_NUMBER = '+233241234567';
const CLIENT = { clientAddress: '198.51.100.7' };

/** The shop's catalogue: the only prices the relay may charge. */
const CATALOGUE: Record<string, { name: string; value: number }> = {
  tote: { name: 'Kente tote', value: 12_500 },
  scarf: { name: 'Adinkra scarf', value: 4_000 },
};

function priceCart(cart: unknown): PricedLineItem[] {
  const items = (cart as { items?: { sku: string; quantity: number }[] } | null)?.items;
  if (!Array.isArray(items) || items.length === 0) throw new CartError('The cart is empty.');
  return items.map((item, index) => {
    const product = CATALOGUE[item.sku];
    if (!product) throw new CartError('No such product.', { param: `cart.items[${index}].sku` });
    return {
      type: 'product',
      product: {
        name: product.name,
        price: { currency: 'ghs', value: product.value },
        quantity: item.quantity,
      },
    };
  });
}

function intent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customer_data: { name: CUSTOMER_NAME, phone_number: INTERNATIONAL_NUMBER },
    payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number: LOCAL_NUMBER } },
    cart: { items: [{ sku: 'tote', quantity: 2 }] },
    ...overrides,
  };
}

function createRequest(
  body: unknown,
  { key = crypto.randomUUID() as string | null, headers = {} as Record<string, string> } = {},
): Request {
  const all: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (key !== null) all['idempotency-key'] = key;
  return new Request('https://shop.example/api/checkout/orders', {
    method: 'POST',
    headers: all,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function lookupRequest(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request('https://shop.example/api/checkout/lookup', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function errorOf(
  response: Response,
): Promise<{ code: string; message: string; type: string; param?: string }> {
  const body = errorBodySchema.parse(await response.json());
  return body.error;
}

/** Fails the test if any answer text shows the shopper's name or number. */
function assertNoCustomerData(text: string): void {
  for (const secret of [CUSTOMER_NAME, 'Ama', LOCAL_NUMBER, INTERNATIONAL_NUMBER, '241234567']) {
    assert.ok(!text.includes(secret), `the answer shows customer data: ${secret}`);
  }
}

describe('createCheckoutRelay', () => {
  let sandboxUrl: string;
  let sandbox: Awaited<ReturnType<typeof startSandbox>>['sandbox'];
  let closeSandbox: () => Promise<void>;
  let events: CheckoutRelayEvent[];

  function relayWith(options: Partial<CheckoutRelayOptions> = {}) {
    return createCheckoutRelay({
      secretKey: SECRET,
      baseUrl: sandboxUrl,
      priceCart,
      lookupSecret: LOOKUP_SECRET,
      onEvent: (event) => {
        events.push(event);
      },
      ...options,
    });
  }

  before(async () => {
    const started = await startSandbox({ port: 0, approveAfterMs: 60_000 });
    sandboxUrl = started.url;
    sandbox = started.sandbox;
    closeSandbox = started.close;
  });
  after(() => closeSandbox());

  describe('the happy path', () => {
    it('creates an order and answers only its status fields and a lookup token', async () => {
      events = [];
      const relay = relayWith();
      const response = await relay.create(createRequest(intent()), CLIENT);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('cache-control'), 'no-store');
      const text = await response.text();
      assertNoCustomerData(text);
      const answer = JSON.parse(text);
      assert.deepEqual(Object.keys(answer).sort(), ['lookup_token', 'order']);
      assert.deepEqual(Object.keys(answer.order).sort(), ['id', 'payment', 'status']);
      assert.deepEqual(Object.keys(answer.order.payment), ['status']);
      const parsed = createAnswerSchema.parse(answer);
      assert.match(parsed.order.id, /^or_/);
      assert.equal(parsed.order.status, 'requires_payment');
      assert.equal(parsed.order.payment.status, 'requires_action');
      const created = events.find((event) => event.type === 'order_created');
      assert.ok(created && created.type === 'order_created');
      assert.equal(created.orderId, parsed.order.id);
      assert.equal(created.customer.name, CUSTOMER_NAME);
    });

    it('looks the order up with its token, status fields only, through to paid', async () => {
      const relay = relayWith();
      const created = createAnswerSchema.parse(
        await (await relay.create(createRequest(intent()), CLIENT)).json(),
      );
      const ask = () =>
        relay.lookup(
          lookupRequest({ order_id: created.order.id, lookup_token: created.lookup_token }),
          CLIENT,
        );
      const pending = await ask();
      assert.equal(pending.status, 200);
      const pendingText = await pending.text();
      assertNoCustomerData(pendingText);
      assert.deepEqual(JSON.parse(pendingText), {
        order: { id: created.order.id, status: 'requires_payment', payment: { status: 'requires_action' } },
      });
      sandbox.approve(created.order.id);
      const paid = await ask();
      const paidText = await paid.text();
      assertNoCustomerData(paidText);
      const answer = lookupAnswerSchema.parse(JSON.parse(paidText));
      assert.equal(answer.order.status, 'completed');
      assert.equal(answer.order.payment.status, 'paid');
      assert.equal(typeof answer.order.completed_at, 'string');
      assert.deepEqual(Object.keys(JSON.parse(paidText).order).sort(), [
        'completed_at',
        'id',
        'payment',
        'status',
      ]);
    });

    it('routes by path with handle, and serves Node over real HTTP', async () => {
      const relay = relayWith();
      const server = await listen(relay.node);
      try {
        const created = await fetch(`${server.url}/api/checkout/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(intent()),
        });
        assert.equal(created.status, 200);
        const answer = createAnswerSchema.parse(await created.json());
        const looked = await fetch(`${server.url}/api/checkout/lookup/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        });
        assert.equal(looked.status, 200);
        const missing = await fetch(`${server.url}/api/checkout/refund`, { method: 'POST' });
        assert.equal(missing.status, 404);
        assert.equal((await errorOf(missing)).code, 'resource_not_found');
        const wrongMethod = await fetch(`${server.url}/api/checkout/orders`);
        assert.equal(wrongMethod.status, 405);
        assert.equal(wrongMethod.headers.get('allow'), 'POST, OPTIONS');
      } finally {
        await server.close();
      }
    });
  });

  describe("over undici's transport (the Node entry's default)", () => {
    const nodeRelayWith = (options: Partial<CheckoutRelayOptions> = {}) =>
      createNodeCheckoutRelay({
        secretKey: SECRET,
        baseUrl: sandboxUrl,
        priceCart,
        lookupSecret: LOOKUP_SECRET,
        onEvent: (event) => {
          events.push(event);
        },
        ...options,
      });
    it('creates, looks up, and answers 502 when the service is down', async () => {
      const relay = nodeRelayWith();
      const created = await relay.create(createRequest(intent()), CLIENT);
      assert.equal(created.status, 200);
      const answer = createAnswerSchema.parse(await created.json());
      const looked = await relay.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(looked.status, 200);
      assertNoCustomerData(await looked.text());
      const down = nodeRelayWith({ baseUrl: 'http://127.0.0.1:9' });
      assert.equal((await down.create(createRequest(intent()), CLIENT)).status, 502);
    });
  });

  describe('the server decides the price', () => {
    it('ignores prices, amounts and line items sent by the browser', async () => {
      const relay = relayWith();
      const tampered = intent({
        amount: 1,
        total: { currency: 'ghs', value: 1 },
        line_items: [
          {
            type: 'product',
            product: { name: 'Free tote', price: { currency: 'ghs', value: 1 }, quantity: 1 },
          },
        ],
        cart: { items: [{ sku: 'tote', quantity: 2, price: 1, value: 1 }], total: 1, amount: 1 },
      });
      const response = await relay.create(createRequest(tampered), CLIENT);
      assert.equal(response.status, 200);
      const { order } = createAnswerSchema.parse(await response.json());
      const client = createServiceClient({ baseUrl: sandboxUrl, secretKey: SECRET });
      const { order: stored } = await client.orders.lookup(order.id);
      assert.deepEqual(stored.line_item_group.total, { currency: 'ghs', value: 25_000 });
      assert.deepEqual(stored.line_items, [
        {
          type: 'product',
          product: { name: 'Kente tote', price: { currency: 'ghs', value: 12_500 }, quantity: 2 },
        },
      ]);
    });

    it('a CartError is a 400 naming the cart; any other priceCart failure is a bare 500', async () => {
      events = [];
      const relay = relayWith();
      const empty = await relay.create(createRequest(intent({ cart: null })), CLIENT);
      assert.equal(empty.status, 400);
      assert.deepEqual(await errorOf(empty), {
        code: 'invalid_request',
        type: 'invalid_request_error',
        message: 'The cart is empty.',
        param: 'cart',
      });
      const unknown = await relay.create(
        createRequest(intent({ cart: { items: [{ sku: 'x', quantity: 1 }] } })),
        CLIENT,
      );
      assert.equal((await errorOf(unknown)).param, 'cart.items[0].sku');

      const failing = relayWith({
        priceCart: () => {
          throw new Error('connect ECONNREFUSED db.internal:5432 password=hunter2');
        },
      });
      const broken = await failing.create(createRequest(intent()), CLIENT);
      assert.equal(broken.status, 500);
      const text = await broken.text();
      assert.ok(!text.includes('hunter2') && !text.includes('db.internal'));
      assert.ok(events.some((event) => event.type === 'price_cart_failed'));

      const sloppy = relayWith({ priceCart: async () => [{ name: 'tote', price: 12.5 }] as never });
      const sloppyAnswer = await sloppy.create(createRequest(intent()), CLIENT);
      assert.equal(sloppyAnswer.status, 500);
      const reported = events.filter((event) => event.type === 'price_cart_failed').at(-1);
      assert.ok(reported && reported.type === 'price_cart_failed' && /line_items\[0\]/.test(reported.reason));
    });

    it('a free line item from priceCart is refused before the service is called, as the service would', async () => {
      events = [];
      const before = sandbox.createdOrderCount;
      const free = relayWith({
        priceCart: () => [
          {
            type: 'product',
            product: { name: 'Gift wrap', price: { currency: 'ghs', value: 0 }, quantity: 1 },
          },
        ],
      });
      const answer = await free.create(createRequest(intent()), CLIENT);
      assert.equal(answer.status, 500);
      assert.equal(sandbox.createdOrderCount, before);
      const reported = events.filter((event) => event.type === 'price_cart_failed').at(-1);
      assert.ok(reported && reported.type === 'price_cart_failed' && /price\.value/.test(reported.reason));
    });
  });

  describe('idempotency', () => {
    it('a lost create answer retried with the same key gives the same order, once', async () => {
      const relay = relayWith();
      const count = sandbox.createdOrderCount;
      const key = crypto.randomUUID();
      // The first answer never reaches the browser.
      await relay.create(createRequest(intent(), { key }), CLIENT);
      const retried = await relay.create(createRequest(intent(), { key }), CLIENT);
      assert.equal(retried.status, 200);
      const again = await relay.create(createRequest(intent(), { key }), CLIENT);
      const [a, b] = [await retried.json(), await again.json()];
      assert.equal(a.order.id, b.order.id);
      assert.equal(a.lookup_token, b.lookup_token);
      assert.equal(sandbox.createdOrderCount, count + 1);
    });

    it('a create answer cut on the wire after the relay answered: the retry gets the one order', async () => {
      const relay = relayWith();
      const server = await listen(relay.node);
      const proxy = await startFaultProxy(
        server.url,
        (index): FaultPlan => (index === 0 ? { kind: 'cut-after-upstream' } : { kind: 'forward' }),
      );
      try {
        const count = sandbox.createdOrderCount;
        const key = crypto.randomUUID();
        const send = () =>
          fetch(`${proxy.url}/api/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(intent()),
          });
        await assert.rejects(send(), TypeError, 'the first answer is lost');
        assert.equal(proxy.requests[0]?.upstreamStatus, 200, 'the relay had created the order');
        const retried = await send();
        assert.equal(retried.status, 200);
        createAnswerSchema.parse(await retried.json());
        assert.equal(sandbox.createdOrderCount, count + 1);
      } finally {
        await proxy.close();
        await server.close();
      }
    });

    it('a shopper who leaves mid-create: the order is still made once, reported, and the retry gets it', async () => {
      const slow = await startSandbox({ port: 0, approveAfterMs: 60_000, processingDelayMs: 300 });
      events = [];
      const relay = relayWith({ baseUrl: slow.url });
      const server = await listen(relay.node);
      try {
        const key = crypto.randomUUID();
        const send = (signal?: AbortSignal) =>
          fetch(`${server.url}/api/checkout/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(intent()),
            ...(signal ? { signal } : {}),
          });
        await assert.rejects(send(AbortSignal.timeout(100)));
        for (
          let waited = 0;
          !events.some((event) => event.type === 'request_aborted') && waited < 5000;
          waited += 50
        ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const aborted = events.find((event) => event.type === 'request_aborted');
        assert.ok(aborted && aborted.type === 'request_aborted', 'the merchant hears the shopper left');
        const retried = await send();
        assert.equal(retried.status, 200);
        assert.equal((await retried.json()).order.id, aborted.orderId);
        assert.equal(slow.sandbox.createdOrderCount, 1);
      } finally {
        await server.close();
        await slow.close();
      }
    });

    it('the same key with another intent is 422', async () => {
      const relay = relayWith();
      const key = crypto.randomUUID();
      assert.equal((await relay.create(createRequest(intent(), { key }), CLIENT)).status, 200);
      const other = await relay.create(
        createRequest(intent({ cart: { items: [{ sku: 'scarf', quantity: 1 }] } }), { key }),
        CLIENT,
      );
      assert.equal(other.status, 422);
      assert.equal((await errorOf(other)).code, 'idempotency_key_reused');
    });

    it('concurrent creates with one key make one order', async () => {
      const slow = await startSandbox({ port: 0, approveAfterMs: 60_000, processingDelayMs: 100 });
      try {
        const relay = relayWith({ baseUrl: slow.url });
        const key = crypto.randomUUID();
        const answers = await Promise.all(
          [1, 2, 3].map(() => relay.create(createRequest(intent(), { key }), CLIENT)),
        );
        const ids = new Set<string>();
        for (const answer of answers) {
          // Each either got the order or was told the attempt is still in flight: never a second order.
          assert.ok(answer.status === 200 || answer.status === 409, `status ${answer.status}`);
          if (answer.status === 200) ids.add((await answer.json()).order.id);
        }
        assert.equal(ids.size, 1);
        assert.equal(slow.sandbox.createdOrderCount, 1);
      } finally {
        await slow.close();
      }
    });

    it('scopes the key: the service never sees the shopper key, and the scope is stable across restarts', async () => {
      const seenKeys: string[] = [];
      const spyingFetch: typeof fetch = (input, init) => {
        seenKeys.push(new Headers(init?.headers).get('idempotency-key') ?? '');
        return fetch(input, init);
      };
      const shopperKey = crypto.randomUUID();
      const first = relayWith({ fetch: spyingFetch, lookupSecret: undefined });
      const a = await (await first.create(createRequest(intent(), { key: shopperKey }), CLIENT)).json();
      // A "restarted" relay: new process state, a new random lookup secret, the same secret key.
      const restarted = relayWith({ fetch: spyingFetch, lookupSecret: undefined });
      const b = await (await restarted.create(createRequest(intent(), { key: shopperKey }), CLIENT)).json();
      assert.equal(b.order.id, a.order.id, 'a retry after a restart replays the first order');
      assert.equal(seenKeys.length, 2);
      assert.equal(seenKeys[0], seenKeys[1]);
      assert.ok(!seenKeys[0]?.includes(shopperKey));
      const scope = createHmac('sha256', SECRET).update('pay-checkout relay idempotency scope v1').digest();
      const expected = createHmac('sha256', scope).update(`idempotency:${shopperKey}`).digest('base64url');
      assert.equal(seenKeys[0], expected);
    });

    it('another merchant (another secret key) with the same shopper key gets its own order', async () => {
      sandbox.keys.add({ key: 'sk_test_other_merchant' });
      const shopperKey = crypto.randomUUID();
      const ours = await (
        await relayWith().create(createRequest(intent(), { key: shopperKey }), CLIENT)
      ).json();
      const theirs = await (
        await relayWith({ secretKey: 'sk_test_other_merchant' }).create(
          createRequest(intent({ cart: { items: [{ sku: 'scarf', quantity: 1 }] } }), { key: shopperKey }),
          CLIENT,
        )
      ).json();
      assert.match(theirs.order.id, /^or_/);
      assert.notEqual(theirs.order.id, ours.order.id);
    });

    it('requires a well-formed Idempotency-Key', async () => {
      const relay = relayWith();
      for (const key of [null, 'short', 'has spaces in it, sixteen+', 'x'.repeat(256)]) {
        const response = await relay.create(createRequest(intent(), { key }), CLIENT);
        assert.equal(response.status, 400, `key ${key}`);
        const error = await errorOf(response);
        assert.equal(error.param, 'Idempotency-Key');
        assert.equal(error.code, 'invalid_request');
      }
    });
  });

  describe('lookup tokens', () => {
    let relay: ReturnType<typeof relayWith>;
    let order: { id: string };
    let token: string;
    let other: { order: { id: string }; lookup_token: string };
    let lookupCalls: number;

    before(async () => {
      lookupCalls = 0;
      relay = relayWith({
        fetch: (input, init) => {
          if (String(input).endsWith('/orders/lookup')) lookupCalls++;
          return fetch(input, init);
        },
      });
      const answer = createAnswerSchema.parse(
        await (await relay.create(createRequest(intent()), CLIENT)).json(),
      );
      order = answer.order;
      token = answer.lookup_token;
      other = createAnswerSchema.parse(await (await relay.create(createRequest(intent()), CLIENT)).json());
    });

    it('is the HMAC-SHA-256 of the order id under the lookup secret', () => {
      assert.equal(token, createHmac('sha256', LOOKUP_SECRET).update(order.id).digest('base64url'));
    });

    it('forged, missing, empty or another order’s token: 403, and the service is not asked', async () => {
      events = [];
      const before = lookupCalls;
      const forged = createHmac('sha256', 'guess').update(order.id).digest('base64url');
      const bodies = [
        { order_id: order.id, lookup_token: forged },
        { order_id: order.id },
        { order_id: order.id, lookup_token: '' },
        { order_id: order.id, lookup_token: 'not base64url!' },
        { order_id: order.id, lookup_token: other.lookup_token },
        { order_id: other.order.id, lookup_token: token },
        { order_id: order.id, lookup_token: `${token}A` },
      ];
      for (const body of bodies) {
        const response = await relay.lookup(lookupRequest(body), CLIENT);
        assert.equal(response.status, 403, JSON.stringify(body));
        const error = await errorOf(response);
        assert.equal(error.code, 'permission_denied');
      }
      assert.equal(lookupCalls, before, 'the token is checked before the service is called');
      assert.equal(events.filter((event) => event.type === 'lookup_denied').length, bodies.length);
    });

    it('still checks tokens correctly once remembered HMACs are evicted', async () => {
      const tokens = createLookupTokens(LOOKUP_SECRET, { maxRememberedOrders: 1 });
      assert.equal(await tokens.verify(order.id, token), true);
      assert.equal(await tokens.verify(other.order.id, other.lookup_token), true);
      assert.equal(await tokens.verify(order.id, token), true);
      assert.equal(await tokens.verify(order.id, other.lookup_token), false);
      assert.equal(await tokens.sign(other.order.id), other.lookup_token);
    });

    it('a malformed order id is 400 with param order_id', async () => {
      const response = await relay.lookup(
        lookupRequest({ order_id: 'order-1', lookup_token: token }),
        CLIENT,
      );
      assert.equal(response.status, 400);
      assert.equal((await errorOf(response)).param, 'order_id');
    });

    it('a valid token for an order the service does not hold is 404', async () => {
      const missingId = 'or_doesnotexist';
      const validToken = await createLookupTokens(LOOKUP_SECRET).sign(missingId);
      const response = await relay.lookup(
        lookupRequest({ order_id: missingId, lookup_token: validToken }),
        CLIENT,
      );
      assert.equal(response.status, 404);
      assert.equal((await errorOf(response)).code, 'resource_not_found');
    });

    it('without a lookupSecret, a random one is used and the merchant is warned', async () => {
      events = [];
      const random = relayWith({ lookupSecret: undefined });
      assert.ok(events.some((event) => event.type === 'warning' && event.code === 'lookup_secret_generated'));
      const answer = createAnswerSchema.parse(
        await (await random.create(createRequest(intent()), CLIENT)).json(),
      );
      assert.notEqual(
        answer.lookup_token,
        createHmac('sha256', LOOKUP_SECRET).update(answer.order.id).digest('base64url'),
      );
      const ok = await random.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(ok.status, 200);
      // Another relay (another random secret) cannot read it.
      const stranger = relayWith({ lookupSecret: undefined });
      const denied = await stranger.lookup(
        lookupRequest({ order_id: answer.order.id, lookup_token: answer.lookup_token }),
        CLIENT,
      );
      assert.equal(denied.status, 403);
    });
  });

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
  });

  describe('rate limits', () => {
    it('a flood of creates gets 429 with Retry-After, and the bucket refills', async () => {
      let now = 1_000_000;
      events = [];
      const relay = relayWith({
        rateLimit: { create: { capacity: 3, refillPerMinute: 6 }, now: () => now },
      });
      const flood = [];
      for (let index = 0; index < 5; index++) {
        flood.push(await relay.create(createRequest(intent({ customer_data: {} })), CLIENT));
      }
      assert.deepEqual(
        flood.map((response) => response.status),
        [400, 400, 400, 429, 429],
      );
      const limited = flood[3] as Response;
      assert.equal(limited.headers.get('retry-after'), '10');
      assert.equal((await errorOf(limited)).code, 'rate_limited');
      assert.ok(
        events.some((event) => event.type === 'rate_limited' && event.clientKey === CLIENT.clientAddress),
      );

      // Another address has its own bucket.
      const neighbour = await relay.create(createRequest(intent()), { clientAddress: '203.0.113.9' });
      assert.equal(neighbour.status, 200);

      now += 10_000;
      const after = await relay.create(createRequest(intent()), CLIENT);
      assert.equal(after.status, 200, 'one token came back after 10 s');
      assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 429);
    });

    it('limits lookups on their own, more loosely', async () => {
      let now = 5_000_000;
      const relay = relayWith({ rateLimit: { create: { capacity: 1, refillPerMinute: 1 }, now: () => now } });
      const body = { order_id: 'or_abc', lookup_token: 'x'.repeat(43) };
      const statuses = new Set<number>();
      for (let index = 0; index < 120; index++)
        statuses.add((await relay.lookup(lookupRequest(body), CLIENT)).status);
      assert.deepEqual([...statuses], [403]);
      const limited = await relay.lookup(lookupRequest(body), CLIENT);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '1');
      now += 500;
      assert.equal((await relay.lookup(lookupRequest(body), CLIENT)).status, 403);
    });

    it('reads the address from clientAddress, or shares one bucket and says so once', async () => {
      events = [];
      const shared = relayWith({ rateLimit: { create: { capacity: 1, refillPerMinute: 1 } } });
      assert.equal((await shared.create(createRequest(intent({ customer_data: {} })))).status, 400);
      assert.equal((await shared.create(createRequest(intent({ customer_data: {} })))).status, 429);
      assert.equal(
        events.filter((event) => event.type === 'warning' && event.code === 'rate_limit_shared_key').length,
        1,
      );
      const store = createMemoryRateLimitStore();
      const behindProxy = relayWith({
        rateLimit: {
          create: { capacity: 1, refillPerMinute: 1 },
          store,
          clientAddress: (request) => request.headers.get('x-forwarded-for') ?? undefined,
        },
      });
      const from = (address: string) =>
        behindProxy.create(
          createRequest(intent({ customer_data: {} }), { headers: { 'x-forwarded-for': address } }),
        );
      assert.equal((await from('192.0.2.1')).status, 400);
      assert.equal((await from('192.0.2.2')).status, 400);
      assert.equal((await from('192.0.2.1')).status, 429);
      assert.equal(store.size, 2);
    });

    it('rateLimit: false turns both limits off; create: false only the create limit', async () => {
      const body = { order_id: 'or_abc', lookup_token: 'x'.repeat(43) };
      const off = relayWith({ rateLimit: false });
      const statuses = new Set<number>();
      for (let index = 0; index < 150; index++)
        statuses.add((await off.lookup(lookupRequest(body), CLIENT)).status);
      for (let index = 0; index < 15; index++) {
        statuses.add((await off.create(createRequest(intent({ customer_data: {} })), CLIENT)).status);
      }
      assert.deepEqual([...statuses].sort(), [400, 403]);
      const createOff = relayWith({
        rateLimit: { create: false, lookup: { capacity: 1, refillPerMinute: 1 } },
      });
      for (let index = 0; index < 15; index++) {
        assert.equal(
          (await createOff.create(createRequest(intent({ customer_data: {} })), CLIENT)).status,
          400,
        );
      }
      assert.equal((await createOff.lookup(lookupRequest(body), CLIENT)).status, 403);
      assert.equal((await createOff.lookup(lookupRequest(body), CLIENT)).status, 429);
    });

    it('the in-memory store stays bounded', async () => {
      const store = createMemoryRateLimitStore({ maxKeys: 100 });
      for (let index = 0; index < 1000; index++)
        await store.take(`k${index}`, { capacity: 1, refillPerMinute: 1 }, 0);
      assert.equal(store.size, 100);
    });
  });

  describe('when the service fails or refuses the relay', () => {
    it('a key the service rejects is 502 with nothing upstream leaked', async () => {
      const revoked = 'sk_test_revoked_merchant_key';
      sandbox.keys.add({ key: revoked });
      sandbox.keys.revoke(revoked);
      const direct = await fetch(`${sandboxUrl}/orders/new`, {
        method: 'POST',
        headers: { authorization: `Bearer ${revoked}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const upstreamMessage = (await errorOf(direct)).message;
      events = [];
      const relay = relayWith({ secretKey: revoked });
      for (const response of [
        await relay.create(createRequest(intent()), CLIENT),
        await relay.lookup(
          lookupRequest({
            order_id: 'or_abc',
            lookup_token: await createLookupTokens(LOOKUP_SECRET).sign('or_abc'),
          }),
          CLIENT,
        ),
      ]) {
        assert.equal(response.status, 502);
        const text = await response.text();
        assert.ok(!text.includes(revoked), 'the key leaked');
        assert.ok(!text.includes(upstreamMessage), 'the upstream message leaked');
        assert.ok(!/authentication/i.test(text), 'the upstream code leaked');
        assert.equal(JSON.parse(text).error.code, 'service_unavailable');
      }
      const upstream = events.filter((event) => event.type === 'upstream_error');
      assert.equal(upstream.length, 2);
      const first = upstream[0];
      assert.ok(first && first.type === 'upstream_error');
      assert.equal(first.error.status, 401);
      assert.equal(first.error.message, upstreamMessage, 'the merchant gets the details');
    });

    it('a read-only key is 502 too', async () => {
      const relay = relayWith({ secretKey: SANDBOX_KEYS.readOnly });
      assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 502);
    });

    it('a service that is down or answers 5xx is 502; 409 and 400 on a shopper field keep their meaning', async () => {
      const plans: Record<string, FaultPlan> = {
        '500': {
          kind: 'answer',
          status: 500,
          body: { error: { code: 'internal_error', type: 'api_error', message: 'stack at db.query line 7' } },
        },
        '409': {
          kind: 'answer',
          status: 409,
          body: {
            error: {
              code: 'idempotency_request_in_progress',
              type: 'idempotency_error',
              message: 'upstream busy text',
            },
          },
        },
        '400-field': {
          kind: 'answer',
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              type: 'invalid_request_error',
              message: 'upstream says the name is odd',
              param: 'customer_data.name',
            },
          },
        },
        '400-server': {
          kind: 'answer',
          status: 400,
          body: {
            error: {
              code: 'invalid_request',
              type: 'invalid_request_error',
              message: 'upstream',
              param: 'line_items',
            },
          },
        },
      };
      const expected: Record<string, [number, string | undefined]> = {
        '500': [502, undefined],
        '409': [409, undefined],
        '400-field': [400, 'customer_data.name'],
        '400-server': [502, undefined],
      };
      for (const [name, plan] of Object.entries(plans)) {
        const proxy = await startFaultProxy(sandboxUrl, () => plan);
        try {
          const relay = relayWith({ baseUrl: proxy.url });
          const response = await relay.create(createRequest(intent()), CLIENT);
          const [status, param] = expected[name] as [number, string | undefined];
          assert.equal(response.status, status, name);
          const text = await response.text();
          assert.ok(!/upstream|stack|db\.query/.test(text), `${name} leaked upstream text: ${text}`);
          assert.equal(JSON.parse(text).error.param, param);
        } finally {
          await proxy.close();
        }
      }
      const down = relayWith({ baseUrl: 'http://127.0.0.1:9' });
      const response = await down.create(createRequest(intent()), CLIENT);
      assert.equal(response.status, 502);
    });

    it('an onEvent that throws does not break a checkout', async () => {
      const relay = relayWith({
        onEvent: () => {
          throw new Error('logger down');
        },
      });
      assert.equal((await relay.create(createRequest(intent()), CLIENT)).status, 200);
    });
  });

  describe('CORS', () => {
    const origin = 'https://shop.example';
    const preflight = (from: string) =>
      new Request('https://pay.example/api/checkout/orders', {
        method: 'OPTIONS',
        headers: {
          origin: from,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, idempotency-key',
        },
      });

    it('answers preflights of allowed origins with POST, Content-Type and Idempotency-Key', async () => {
      const relay = relayWith({ allowedOrigins: [origin] });
      const response = await relay.handle(preflight(origin), CLIENT);
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), origin);
      assert.equal(response.headers.get('access-control-allow-methods'), 'POST');
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /Content-Type/);
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
      assert.match(response.headers.get('vary') ?? '', /Origin/);
      const created = await relay.create(createRequest(intent(), { headers: { origin } }), CLIENT);
      assert.equal(created.status, 200);
      assert.equal(created.headers.get('access-control-allow-origin'), origin);
      const limited = await relay.create(createRequest(intent(), { key: null, headers: { origin } }), CLIENT);
      assert.equal(limited.headers.get('access-control-allow-origin'), origin, 'errors are readable too');
    });

    it('blocks other origins, and every origin by default', async () => {
      for (const relay of [relayWith({ allowedOrigins: [origin] }), relayWith()]) {
        const response = await relay.handle(preflight('https://evil.example'), CLIENT);
        assert.equal(response.status, 403);
        assert.equal(response.headers.get('access-control-allow-origin'), null);
        const created = await relay.create(
          createRequest(intent(), { headers: { origin: 'https://evil.example' } }),
          CLIENT,
        );
        assert.equal(created.headers.get('access-control-allow-origin'), null);
      }
      const byDefault = await relayWith().handle(preflight(origin), CLIENT);
      assert.equal(byDefault.status, 403);
      assert.equal(byDefault.headers.get('access-control-allow-origin'), null);
    });
  });

  describe('startup errors', () => {
    const base = () => ({
      secretKey: SECRET,
      baseUrl: 'http://127.0.0.1:1',
      priceCart,
      lookupSecret: LOOKUP_SECRET,
    });

    it('refuses a missing, publishable or non-secret key without quoting it', () => {
      const cases: [unknown, RegExp][] = [
        [undefined, /secretKey is required/],
        ['', /secretKey is required/],
        ['pk_test_sandbox', /publishable key/],
        ['pk_live_0123456789', /publishable key/],
        ['rk_live_0123456789', /not a secret key/],
        ['my-password', /not a secret key/],
      ];
      for (const [secretKey, message] of cases) {
        assert.throws(
          () => createCheckoutRelay({ ...base(), secretKey } as CheckoutRelayOptions),
          (error: unknown) => {
            assert.ok(error instanceof TypeError);
            assert.match(error.message, message);
            assert.match(error.message, /^createCheckoutRelay:/);
            if (typeof secretKey === 'string' && secretKey) assert.ok(!error.message.includes(secretKey));
            return true;
          },
        );
      }
    });

    it('refuses a missing priceCart or baseUrl, a short lookupSecret and a bad origin', () => {
      assert.throws(
        () => createCheckoutRelay({ ...base(), priceCart: undefined } as never),
        /priceCart is required: the server decides what is charged/,
      );
      assert.throws(
        () => createCheckoutRelay({ ...base(), baseUrl: undefined } as never),
        /baseUrl is required/,
      );
      assert.throws(
        () => createCheckoutRelay({ ...base(), lookupSecret: 'short' }),
        /at least 16 characters/,
      );
      assert.throws(() => createCheckoutRelay({ ...base(), allowedOrigins: ['*'] }), /allowedOrigins/);
      assert.throws(
        () => createCheckoutRelay({ ...base(), allowedOrigins: ['https://shop.example/checkout'] }),
        /allowedOrigins/,
      );
      assert.throws(
        () => createCheckoutRelay({ ...base(), rateLimit: { create: { capacity: 0, refillPerMinute: 1 } } }),
        /rateLimit\.create/,
      );
    });
  });

  describe('runs on edge runtimes', () => {
    it('nothing under src/server imports a node: module at run time', () => {
      const folder = new URL('../../src/server/', import.meta.url);
      for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
        const source = readFileSync(new URL(file, folder), 'utf8');
        const runtimeNodeImports = source.match(/^import (?!type )[^;]*from 'node:[^']+';/gm) ?? [];
        assert.deepEqual(runtimeNodeImports, [], file);
      }
    });
  });
});
