/**
 * An intent journalled before attempt digests were kept (no digest, no
 * service key of its own: the service knows it by the scoped key). A retry
 * by the same shopper sends the recorded create, whatever cart it carries
 * now; another shopper under the key is the `422` of a reused key before the
 * service is called. And a service `422` for such a create (an order exists
 * under its key) never drops the intent, from the relay's create or the
 * watcher's resend: only a refusal that proves no order exists does. Real
 * relay, real sandbox, real `memory:` and SQLite file journals.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { fulfilmentStack } from '../../fixtures/fulfilment.js';
import { CLIENT, createRequest, errorOf, intent, priceCart, SECRET } from '../../fixtures/relay.js';
import { sandboxFetch } from '../../fixtures/sandbox.js';

/** The key the journal files an attempt under: the shopper's key scoped to the secret key (README). */
function scopedKey(shopperKey: string): string {
  const scope = createHmac('sha256', SECRET).update('pay-checkout relay idempotency scope v1').digest();
  return createHmac('sha256', scope).update(`idempotency:${shopperKey}`).digest('base64url');
}

const AMA = customerPayingFrom('0241130001');
const FIVE_TOTES = intent({ ...AMA, cart: { items: [{ sku: 'tote', quantity: 5 }] } });
const ONE_TOTE = intent({ ...AMA, cart: { items: [{ sku: 'tote', quantity: 1 }] } });
const KOFI = intent({
  ...customerPayingFrom('0241130002', 'Kofi Boateng'),
  cart: { items: [{ sku: 'tote', quantity: 5 }] },
});

/** The body the relay sends the service for `body`, as an old relay recorded it. */
function serviceBody(body: Record<string, unknown>) {
  const lineItems = priceCart(body.cart);
  const amount = {
    currency: 'ghs',
    value: lineItems.reduce((sum, item) => sum + item.product.price.value * item.product.quantity, 0),
  };
  const createBody = {
    execute_payment: true,
    customer_data: body.customer_data,
    payment_method_data: body.payment_method_data,
    line_items: lineItems,
  };
  return { createBody, details: { reference: null, metadata: {}, lineItems, amount } };
}

/** A relay whose service creates are counted, with an old relay's unanswered intent for `body` under a new key. */
async function stackWithLegacyIntent(store: 'memory:' | 'sqlite:', body: Record<string, unknown>) {
  const creates = { count: 0 };
  const countingFetch: typeof fetch = async (input, init) => {
    if (String(input).endsWith('/orders/new')) creates.count += 1;
    return sandboxFetch(input, init);
  };
  const stack = await fulfilmentStack(store, { fetch: countingFetch });
  const key = crypto.randomUUID();
  const { createBody, details } = serviceBody(body);
  // No digest, no service key: journalled by a relay of schema version 4.
  await stack.journal.recordIntent({
    idempotencyKey: scopedKey(key),
    createBody,
    details,
    resendInMs: 60_000,
  });
  return { stack, key, creates };
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`an unanswered intent journalled before digests were kept (${store})`, () => {
    it('the same shopper’s retry sends the recorded create, not its own cart', async () => {
      const { stack, key } = await stackWithLegacyIntent(store, FIVE_TOTES);
      const answer = await stack.relay.create(createRequest(ONE_TOTE, { key }), CLIENT);
      assert.equal(answer.status, 200, await answer.clone().text());
      const { order } = createAnswerSchema.parse(await answer.json());
      assert.equal(order.amount?.value, 62_500, 'the recorded five totes are what the service charged');
      assert.equal((await stack.relay.orders.get(order.id))?.amount?.value, 62_500);
    });

    it('another shopper under its key is 422 before the service is called', async () => {
      const { stack, key, creates } = await stackWithLegacyIntent(store, FIVE_TOTES);
      const answer = await stack.relay.create(createRequest(KOFI, { key }), CLIENT);
      assert.equal(answer.status, 422);
      assert.equal((await errorOf(answer)).code, 'idempotency_key_reused');
      assert.equal(creates.count, 0, 'the service never heard of it');
      assert.equal((await stack.journal.get(scopedKey(key)))?.phase, 'creating');
    });

    it('a service 422 (an order exists under its key) keeps the intent, from the create and the resend', async () => {
      const { stack, key } = await stackWithLegacyIntent(store, FIVE_TOTES);
      // An order under the scoped key with another body: the service refuses the recorded one with 422.
      const other = await sandboxFetch(`${stack.url}/orders/new`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${SECRET}`,
          'content-type': 'application/json',
          'idempotency-key': scopedKey(key),
        },
        body: JSON.stringify(serviceBody(ONE_TOTE).createBody),
      });
      assert.equal(other.status, 200);
      const answer = await stack.relay.create(createRequest(FIVE_TOTES, { key }), CLIENT);
      assert.equal(answer.status, 422);
      assert.equal((await stack.journal.get(scopedKey(key)))?.phase, 'creating', 'kept after the create');
      await stack.advance(60_001);
      assert.equal((await stack.journal.get(scopedKey(key)))?.phase, 'creating', 'kept after the resend');
    });
  });
}
