/**
 * One prompt per number per checkout, in the relay: a create for a checkout
 * (the reference `priceCart` gives) that already has an open order to the
 * same mobile-money number answers that order, with its own lookup token,
 * rather than sending the phone a second prompt, whatever Idempotency-Key it
 * carries. Another number is another order; once the first order settles
 * (the payer declined), the number may be prompted again. Real relay, real
 * in-process sandbox, real `memory:` and SQLite file journals.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { PricedLineItem } from '../../../src/server/index.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { freshJournal, fulfilmentStack } from '../../fixtures/fulfilment.js';
import { CLIENT, createRequest, intent, lookupRequest, priceCart, relayStack } from '../../fixtures/relay.js';

const { sandbox, relayWith } = relayStack();

/** The shop's price, with the checkout's reference from its own server state (here the cart's number). */
function priceWithReference(cart: unknown): { lineItems: PricedLineItem[]; reference: string } {
  return { lineItems: priceCart(cart), reference: `cart-${(cart as { id: string }).id}` };
}

async function relayOn(store: 'memory:' | 'sqlite:') {
  const relay = relayWith({
    priceCart: priceWithReference,
    rateLimit: false,
    journal: await freshJournal(store),
    onPaid: () => undefined,
    watch: { ticks: false },
  });
  after(() => relay.close());
  return relay;
}

/** A checkout's create body for cart `id`, paid from `number`. */
function checkoutFrom(id: string, number: string) {
  return intent({ ...customerPayingFrom(number), cart: { id, items: [{ sku: 'tote', quantity: 1 }] } });
}

async function created(response: Response) {
  assert.equal(response.status, 200);
  return createAnswerSchema.parse(await response.json());
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`one prompt per number per checkout (${store})`, () => {
    it('two attempts of one checkout to one number: one service order, both answers name it', async () => {
      const relay = await relayOn(store);
      const checkout = `${store}-1`;
      const before = sandbox.createdOrderCount;
      const first = await created(
        await relay.create(createRequest(checkoutFrom(checkout, '0241130001')), CLIENT),
      );
      const second = await created(
        await relay.create(createRequest(checkoutFrom(checkout, '0241130001')), CLIENT),
      );
      assert.equal(second.order.id, first.order.id);
      assert.equal(second.reference, `cart-${checkout}`);
      assert.equal(sandbox.createdOrderCount - before, 1, 'one prompt to the phone');
      // Its own lookup token works.
      const looked = await relay.lookup(
        lookupRequest({ order_id: second.order.id, lookup_token: second.lookup_token }),
        CLIENT,
      );
      assert.equal(looked.status, 200);
      // Another number is another order; another checkout to the same number is too.
      const other = await created(
        await relay.create(createRequest(checkoutFrom(checkout, '0241130002')), CLIENT),
      );
      assert.notEqual(other.order.id, first.order.id);
      const elsewhere = await created(
        await relay.create(createRequest(checkoutFrom(`${checkout}-b`, '0241130001')), CLIENT),
      );
      assert.notEqual(elsewhere.order.id, first.order.id);
      assert.equal(sandbox.createdOrderCount - before, 3);
    });

    it('once the first order is declined, the same number may be prompted again', async () => {
      const relay = await relayOn(store);
      const checkout = `${store}-2`;
      const first = await created(
        await relay.create(createRequest(checkoutFrom(checkout, '0241130003')), CLIENT),
      );
      sandbox.decline(first.order.id);
      const before = sandbox.createdOrderCount;
      const again = await created(
        await relay.create(createRequest(checkoutFrom(checkout, '0241130003')), CLIENT),
      );
      assert.notEqual(again.order.id, first.order.id);
      assert.equal(again.order.payment.status, 'requires_action');
      assert.equal(sandbox.createdOrderCount - before, 1);
    });

    it('two attempts racing to one number: one service order; each answer names it or asks to try again', async () => {
      const relay = await relayOn(store);
      const checkout = `${store}-3`;
      const before = sandbox.createdOrderCount;
      const answers = await Promise.all(
        [1, 2, 3].map(() => relay.create(createRequest(checkoutFrom(checkout, '0241130004')), CLIENT)),
      );
      const ids = new Set<string>();
      for (const answer of answers) {
        assert.ok(answer.status === 200 || answer.status === 409, `status ${answer.status}`);
        if (answer.status === 200) ids.add(createAnswerSchema.parse(await answer.json()).order.id);
      }
      assert.equal(ids.size, 1);
      assert.equal(sandbox.createdOrderCount - before, 1);
    });
  });
}

describe('one prompt per number per checkout, past the approval window', () => {
  for (const store of ['memory:', 'sqlite:'] as const) {
    it(`an order older than the approval window no longer holds the number (${store})`, async () => {
      const stack = await fulfilmentStack(store, { priceCart: priceWithReference });
      // The test number whose payer never answers: the order stays open.
      const body = () => checkoutFrom(`${store}-window`, '0244000003');
      const first = await stack.checkout(body());
      stack.clock.now += 5 * 60_000;
      assert.equal((await stack.checkout(body())).orderId, first.orderId, 'still in its window');
      stack.clock.now += 60_000 + 1;
      const later = await stack.checkout(body());
      assert.notEqual(
        later.orderId,
        first.orderId,
        'the payer can no longer approve the first: a new prompt',
      );
    });
  }
});
