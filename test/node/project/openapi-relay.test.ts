/**
 * The OpenAPI document of the relay wire (`openapi/relay.json`, exported as
 * `pay-checkout/openapi.json`): it parses, every reference resolves, its
 * patterns and codes are the ones the code enforces, and the real relay's
 * answers (handlers called with real `Request`s, the sandbox behind them)
 * validate against its schemas, headers included. The schemas are read with
 * zod's `fromJSONSchema`, which the package already depends on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import * as z from 'zod';
import { openJournal } from '../../../src/server/index.js';
import { INTERNATIONAL_PHONE_PATTERN } from '../../../src/shared/ghana-mobile-money.js';
import {
  CUSTOMER_NAME_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
  ISSUERS,
  ORDER_ID_PATTERN,
  SERVICE_ERRORS,
} from '../../../src/shared/service-contract.js';
import { REFERENCE_PATTERN } from '../../../src/shared/wire.js';
import { customerPayingFrom, lineItems } from '../../fixtures/checkout-data.js';
import {
  CLIENT,
  createRequest,
  intent,
  lookupRequest,
  priceRequest,
  relayStack,
} from '../../fixtures/relay.js';
import { clockAhead } from '../../fixtures/relay-clock.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON.
type Node = any;

const documentPath = new URL('../../../openapi/relay.json', import.meta.url);
const doc: Node = JSON.parse(readFileSync(documentPath, 'utf8'));
const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));

/** The node a local `$ref` (`#/components/…`) points at. */
function resolve(node: Node): Node {
  if (typeof node?.$ref !== 'string') return node;
  const path = (node.$ref as string).replace(/^#\//, '').split('/');
  return path.reduce((at: Node, part) => at?.[part], doc);
}

/** A schema of the document as zod: components/schemas become the `$defs` zod resolves. */
function zodOf(schema: Node): z.ZodType {
  const local = (value: Node) =>
    JSON.parse(JSON.stringify(value).replaceAll('#/components/schemas/', '#/$defs/'));
  return z.fromJSONSchema({ ...local(schema), $defs: local(doc.components.schemas) });
}

/** The path of the checkout read; the others are POST routes. */
const CHECKOUT_READ = '/checkouts/{client_secret}';
/** A route of the document. */
type DocumentedPath = '/orders' | '/lookup' | '/price' | typeof CHECKOUT_READ;

/** The operation of `path`: its one method's. */
function operationOf(path: DocumentedPath): Node {
  return path === CHECKOUT_READ ? doc.paths[path].get : doc.paths[path].post;
}

/** The document's response for `status` on `path`. */
function responseOf(path: DocumentedPath, status: number): Node {
  const response = resolve(operationOf(path).responses[String(status)]);
  assert.ok(response, `the document has no ${status} answer for ${path}`);
  return response;
}

/** Asserts `response` is what the document says `path` answers with its status: body and headers. */
async function assertDocumented(path: DocumentedPath, response: Response): Promise<Node> {
  const documented = responseOf(path, response.status);
  const body = await response.json();
  const parsed = zodOf(documented.content['application/json'].schema).safeParse(body);
  assert.ok(parsed.success, `${path} ${response.status}: ${JSON.stringify(body)}\n${parsed.error?.message}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    const spec = resolve(header);
    const value = response.headers.get(name);
    if (spec.required) assert.notEqual(value, null, `${path} ${response.status} lacks ${name}`);
    if (value !== null) assert.ok(zodOf(spec.schema).safeParse(value).success, `${name}: ${value}`);
  }
  return body;
}

/** Every `$ref` string anywhere in `node`. */
function refsIn(node: Node): string[] {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [value] : refsIn(value),
  );
}

describe('openapi/relay.json', () => {
  it('is an OpenAPI 3.1 document whose every reference resolves, shipped and exported by the package', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.paths).sort(), [CHECKOUT_READ, '/lookup', '/orders', '/price']);
    const refs = refsIn(doc);
    assert.ok(refs.length > 20);
    for (const ref of refs) assert.ok(resolve({ $ref: ref }), `${ref} does not resolve`);
    assert.equal(packageJson.exports['./openapi.json'], './openapi/relay.json');
    assert.ok(packageJson.files.includes('openapi'));
  });

  it('states the patterns, limits and codes the relay enforces', () => {
    const schemas = doc.components.schemas;
    assert.equal(doc.components.parameters.IdempotencyKey.schema.pattern, IDEMPOTENCY_KEY_PATTERN.source);
    assert.equal(schemas.OrderId.pattern, ORDER_ID_PATTERN.source);
    assert.equal(schemas.Reference.pattern, REFERENCE_PATTERN.source);
    const customer = schemas.CheckoutIntent.properties.customer_data.properties;
    assert.equal(customer.phone_number.pattern, INTERNATIONAL_PHONE_PATTERN.source);
    assert.equal(customer.name.maxLength, CUSTOMER_NAME_MAX_LENGTH);
    const mobileMoney = schemas.CheckoutIntent.properties.payment_method_data.properties.mobile_money;
    assert.deepEqual(mobileMoney.properties.issuer.enum, [...ISSUERS]);
    const codes = Object.values(SERVICE_ERRORS);
    for (const path of ['/orders', '/lookup', '/price', CHECKOUT_READ] as const) {
      for (const [status, entry] of Object.entries(operationOf(path).responses)) {
        if (status === '200') continue;
        const code =
          resolve(entry).content['application/json'].schema.allOf[1].properties.error.properties.code;
        for (const documented of code.enum ?? [code.const]) {
          // One code may stand at two statuses (`service_unavailable`: 502 upstream, 503 closing).
          const known = codes.find((error) => error.code === documented && error.status === Number(status));
          assert.ok(known, `${path} ${status} ${documented}`);
        }
      }
    }
  });

  it('takes the intent the element sends', () => {
    const schema = zodOf(doc.paths['/orders'].post.requestBody.content['application/json'].schema);
    assert.ok(schema.safeParse(intent()).success);
    assert.ok(schema.safeParse({ ...intent(), cart: null }).success);
    assert.equal(
      schema.safeParse(customerPayingFrom('241234567')).success,
      false,
      'a number not in local form',
    );
  });

  it('refuses answers that break the wire: customer data on lookup, an error without its code', () => {
    const lookup = zodOf(responseOf('/lookup', 200).content['application/json'].schema);
    const order = { id: 'or_abc', status: 'requires_payment', payment: { status: 'requires_action' } };
    assert.ok(lookup.safeParse({ order }).success);
    assert.equal(lookup.safeParse({ order: { ...order, customer: { name: 'Ama' } } }).success, false);
    assert.equal(lookup.safeParse({ order: { ...order, id: 'order-1' } }).success, false);
    const amount = { currency: 'ghs', value: 16_500 };
    assert.ok(lookup.safeParse({ order: { ...order, amount } }).success);
    assert.equal(lookup.safeParse({ order: { ...order, amount: 'GH₵ 165.00' } }).success, false);
    assert.equal(lookup.safeParse({ order: { ...order, amount: { ...amount, value: 1.5 } } }).success, false);
    const create = zodOf(responseOf('/orders', 200).content['application/json'].schema);
    const created = { order: { ...order, amount }, lookup_token: 'token' };
    for (const reference of ['cart-8812', null, undefined]) {
      assert.ok(create.safeParse({ ...created, reference }).success, `reference ${reference}`);
    }
    assert.equal(create.safeParse({ ...created, reference: 'cart 8812' }).success, false);
    const denied = zodOf(responseOf('/lookup', 403).content['application/json'].schema);
    assert.equal(denied.safeParse({ error: { message: 'No.', type: 'authorization_error' } }).success, false);
    assert.equal(
      denied.safeParse({ error: { code: 'rate_limited', message: 'No.', type: 'x' } }).success,
      false,
    );
  });

  describe("the relay's real answers validate against it", () => {
    const { sandbox, relayWith } = relayStack();

    it('create, replay, lookup pending and paid, and every refusal of the wire', async () => {
      const relayTime = clockAhead();
      const relay = relayWith({
        rateLimit: { create: { capacity: 100, refillPerMinute: 100 } },
        clock: relayTime.clock,
      });
      const key = crypto.randomUUID();
      const created = await assertDocumented(
        '/orders',
        await relay.create(createRequest(intent(), { key }), CLIENT),
      );
      assert.deepEqual(created.order.amount, { currency: 'ghs', value: 25_000 });
      assert.equal(created.reference, null);
      await assertDocumented('/orders', await relay.create(createRequest(intent(), { key }), CLIENT));
      const withReference = relayWith({
        priceCart: () => ({ lineItems, reference: 'cart-8812', metadata: { channel: 'web' } }),
      });
      const referenced = await assertDocumented(
        '/orders',
        await withReference.create(createRequest(intent()), CLIENT),
      );
      assert.equal(referenced.reference, 'cart-8812');
      const lookupBody = { order_id: created.order.id, lookup_token: created.lookup_token };
      const pending = await assertDocumented(
        '/lookup',
        await relay.lookup(lookupRequest(lookupBody), CLIENT),
      );
      assert.equal(pending.order.payment.status, 'requires_action');
      sandbox.approve(created.order.id);
      // A poll later: a lookup within the sharing window is answered the read before the approval.
      relayTime.pastSharedReads();
      const paid = await assertDocumented('/lookup', await relay.lookup(lookupRequest(lookupBody), CLIENT));
      assert.equal(typeof paid.order.completed_at, 'string');
      assert.deepEqual(paid.order.amount, created.order.amount);

      const refusals: [number, Response][] = [
        [400, await relay.create(createRequest(intent(), { key: null }), CLIENT)],
        [400, await relay.create(createRequest({ ...intent(), customer_data: {} }), CLIENT)],
        [413, await relay.create(createRequest(JSON.stringify({ pad: 'x'.repeat(17_000) })), CLIENT)],
        [415, await relay.create(createRequest('x', { headers: { 'content-type': 'text/plain' } }), CLIENT)],
        [
          422,
          await relay.create(
            createRequest(intent({ cart: { items: [{ sku: 'scarf', quantity: 3 }] } }), { key }),
            CLIENT,
          ),
        ],
        [405, await relay.handle(new Request('http://shop.test/api/checkout/orders'), CLIENT)],
      ];
      for (const [status, response] of refusals) {
        assert.equal(response.status, status);
        await assertDocumented('/orders', response);
      }
      const forged = await relay.lookup(lookupRequest({ ...lookupBody, lookup_token: 'forged' }), CLIENT);
      assert.equal(forged.status, 403);
      await assertDocumented('/lookup', forged);
    });

    it('the price, and the create refused for another amount than the one shown', async () => {
      const relay = relayWith();
      const priced = await assertDocumented(
        '/price',
        await relay.price(priceRequest({ cart: intent().cart }), CLIENT),
      );
      assert.deepEqual(priced.amount, { currency: 'ghs', value: 25_000 });
      const refused = await relay.price(
        priceRequest({ cart: { items: [{ sku: 'nope', quantity: 1 }] } }),
        CLIENT,
      );
      assert.equal(refused.status, 400);
      await assertDocumented('/price', refused);
      const expected_amount = { currency: 'ghs', value: 100 };
      const changed = await relay.create(createRequest({ ...intent(), expected_amount }), CLIENT);
      assert.equal(changed.status, 409);
      const body = await assertDocumented('/orders', changed);
      assert.equal(body.error.code, 'amount_changed');
      assert.deepEqual(body.amount, priced.amount);
    });

    it('a server-created checkout: its price, its create, its read, and their refusals', async () => {
      const relayTime = clockAhead();
      const relay = relayWith({
        clock: relayTime.clock,
        journal: await openJournal('memory:'),
        onPaid: () => undefined,
        watch: { ticks: false },
        rateLimit: { lookup: { capacity: 3, refillPerMinute: 1 } },
      });
      after(() => relay.close());
      const paying = await relay.checkouts.create({
        lineItems: [{ name: 'Kente tote', quantity: 1, unitPrice: { currency: 'ghs', value: 12_500 } }],
        reference: 'order-4001',
      });
      const checkout = paying.clientSecret;
      const read = (secret: string) =>
        relay.handle(new Request(`http://shop.test/api/checkout/checkouts/${secret}`), CLIENT);
      const priced = await assertDocumented('/price', await relay.price(priceRequest({ checkout }), CLIENT));
      assert.equal(priced.reference, 'order-4001');
      const answer = await assertDocumented(CHECKOUT_READ, await read(checkout));
      assert.equal(answer.status, 'open');
      const created = await relay.create(
        createRequest({ ...customerPayingFrom('0241140001'), checkout }),
        CLIENT,
      );
      const order = await assertDocumented('/orders', created);
      sandbox.approve(order.order.id);
      relayTime.pastSharedReads();
      const lookupBody = { order_id: order.order.id, lookup_token: order.lookup_token };
      assert.equal((await relay.lookup(lookupRequest(lookupBody), CLIENT)).status, 200);
      const paid = await relay.create(
        createRequest({ ...customerPayingFrom('0241140002'), checkout }),
        CLIENT,
      );
      assert.equal((await assertDocumented('/orders', paid)).error.code, 'checkout_paid');
      const unknown = `${checkout.slice(0, -1)}${checkout.endsWith('A') ? 'B' : 'A'}`;
      const notFound = await assertDocumented(CHECKOUT_READ, await read(unknown));
      assert.equal(notFound.error.code, 'checkout_not_found');
      assert.equal((await read(unknown)).status, 429);
      const posted = await relay.handle(
        new Request(`http://shop.test/api/checkout/checkouts/${checkout}`, { method: 'POST' }),
        CLIENT,
      );
      assert.equal(posted.status, 405);
      await assertDocumented(CHECKOUT_READ, posted);
    });

    it('both 429s, with their Retry-After', async () => {
      const relay = relayWith({ rateLimit: { create: { capacity: 5, refillPerMinute: 1 } } });
      const fromOneNumber = () => intent(customerPayingFrom('0551234987'));
      const answers: Response[] = [];
      for (let index = 0; index < 6; index += 1) {
        answers.push(await relay.create(createRequest(fromOneNumber()), CLIENT));
      }
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 429, 429, 429],
      );
      const tooManyPrompts = await assertDocumented('/orders', answers[3] as Response);
      assert.equal(tooManyPrompts.error.code, 'too_many_payment_requests');
      const rateLimited = await assertDocumented('/orders', answers[5] as Response);
      assert.equal(rateLimited.error.code, 'rate_limited');
    });
  });
});
