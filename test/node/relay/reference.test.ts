/**
 * The merchant's reference and metadata: `priceCart` may return
 * `{ lineItems, reference, metadata }`; the relay checks both before anything
 * is recorded or charged, answers the reference with the order (and the
 * amount charged), and a bad one is the merchant's bug: a bare `500`, an
 * `onEvent` naming the field, no order at the service and none in the journal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CheckoutRelayEvent, openJournal } from '../../../src/server/index.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { lineItems } from '../../fixtures/checkout-data.js';
import { CLIENT, createRequest, errorOf, intent, relayStack } from '../../fixtures/relay.js';
import { clockReading } from '../../fixtures/relay-clock.js';

const { sandbox, events, relayWith } = relayStack();

/** What a refused create reported to `onEvent`: its `price_cart_failed` events. */
function priceCartFailures(): Extract<CheckoutRelayEvent, { type: 'price_cart_failed' }>[] {
  return events.filter(
    (event): event is Extract<CheckoutRelayEvent, { type: 'price_cart_failed' }> =>
      event.type === 'price_cart_failed',
  );
}

const manyKeys = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`key${index}`, 'x']));

/** `priceCart` answers the merchant may get wrong, and the field `onEvent` must name. */
const REFUSED: [string, unknown, 'reference' | 'metadata' | 'lineItems'][] = [
  ['an empty reference', { lineItems, reference: '' }, 'reference'],
  ['a reference with a space', { lineItems, reference: 'cart 8812' }, 'reference'],
  ['a reference of 65 characters', { lineItems, reference: 'r'.repeat(65) }, 'reference'],
  ['a reference that is a number', { lineItems, reference: 8812 }, 'reference'],
  ['a reference with a slash', { lineItems, reference: 'carts/8812' }, 'reference'],
  ['metadata with 21 keys', { lineItems, metadata: manyKeys }, 'metadata'],
  ['a metadata key of 41 characters', { lineItems, metadata: { ['k'.repeat(41)]: 'x' } }, 'metadata'],
  ['a metadata value of 501 characters', { lineItems, metadata: { note: 'x'.repeat(501) } }, 'metadata'],
  ['a metadata value that is a number', { lineItems, metadata: { count: 3 } }, 'metadata'],
  ['metadata that is an array', { lineItems, metadata: ['gift'] }, 'metadata'],
  ['metadata that is a Map', { lineItems, metadata: new Map([['a', 'b']]) }, 'metadata'],
  ['an object without lineItems', { reference: 'cart-8812' }, 'lineItems'],
];

describe("the merchant's reference and metadata", () => {
  for (const [what, priced, field] of REFUSED) {
    it(`refuses ${what} with 500 before the service is called, and names ${field} to onEvent`, async () => {
      const journal = await openJournal('memory:');
      const relay = relayWith({
        priceCart: () => priced as never,
        journal,
        onPaid: () => {},
        clock: clockReading(),
        watch: { ticks: false },
      });
      const before = sandbox.createdOrderCount;
      events.length = 0;
      const response = await relay.create(createRequest(intent()), CLIENT);
      assert.equal(response.status, 500);
      assert.equal((await errorOf(response)).code, 'internal_error');
      assert.equal(sandbox.createdOrderCount, before, 'the service was not called');
      assert.deepEqual(await journal.listRecent(10), []);
      assert.deepEqual(
        priceCartFailures().map((event) => event.field),
        [field],
      );
      assert.match(
        priceCartFailures()[0]?.reason ?? '',
        new RegExp(field === 'lineItems' ? 'line items' : field),
      );
      await relay.close();
    });
  }

  it('takes a reference at its limits and metadata at its limits, and answers the reference', async () => {
    const reference = `Aa0_.:-${'r'.repeat(57)}`;
    const metadata = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`${index}`.padEnd(40, 'k'), 'v'.repeat(500)]),
    );
    const relay = relayWith({ priceCart: () => ({ lineItems, reference, metadata }) });
    events.length = 0;
    const response = await relay.create(createRequest(intent()), CLIENT);
    assert.equal(response.status, 200);
    const answer = createAnswerSchema.parse(await response.json());
    assert.equal(answer.reference, reference);
    assert.deepEqual(answer.order.amount, { currency: 'ghs', value: 5_000 });
    const created = events.find((event) => event.type === 'order_created');
    assert.ok(created?.type === 'order_created');
    assert.equal(created.reference, reference);
    assert.deepEqual(created.metadata, metadata);
    assert.deepEqual(created.amount, { currency: 'ghs', value: 5_000 });
    assert.equal(created.source, 'create');
  });

  it('answers reference null for line items alone, and keeps metadata on the server', async () => {
    const relay = relayWith({ priceCart: () => ({ lineItems, metadata: { warehouse: 'accra-2' } }) });
    const text = await (await relay.create(createRequest(intent()), CLIENT)).text();
    assert.equal(createAnswerSchema.parse(JSON.parse(text)).reference, null);
    assert.equal(text.includes('accra-2'), false, 'metadata never reaches the browser');
  });

  it('records a copy of the metadata: changing the merchant’s object later changes nothing', async () => {
    const journal = await openJournal('memory:');
    const metadata: Record<string, string> = { note: 'before' };
    const relay = relayWith({
      priceCart: () => ({ lineItems, reference: 'cart-1', metadata }),
      journal,
      onPaid: () => {},
      clock: clockReading(),
      watch: { ticks: false },
    });
    const answer = createAnswerSchema.parse(
      await (await relay.create(createRequest(intent()), CLIENT)).json(),
    );
    metadata.note = 'after';
    assert.deepEqual((await relay.orders.get(answer.order.id))?.metadata, { note: 'before' });
    await relay.close();
  });
});
