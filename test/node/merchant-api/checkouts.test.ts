/**
 * A checkout from a shop's backend to a verified paid order: created over
 * `POST /v1/checkouts`, paid through the relay's create with its client
 * secret (the payer approving on the sandbox's control surface, a watcher
 * pass settling it), then verified through `GET /v1/orders?reference=` and
 * `GET /v1/checkouts/{id}` (status `paid`, `paid_order_id`). Its expiry, and
 * reads of checkouts that are not there. Real relay, real SQLite file, the
 * sandbox and the API over loopback HTTP.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { merchantApiStack, SHOP_ORIGIN } from '../../fixtures/merchant-api.js';

/** Two totes for `reference`, with `overrides`. */
function totes(reference: string, overrides: Record<string, unknown> = {}) {
  return {
    line_items: [
      { name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 }, sku: 'kente-tote' },
      { name: 'Adinkra scarf', quantity: 1, unit_price: { currency: 'ghs', value: 4_000 } },
    ],
    reference,
    metadata: { channel: 'web' },
    ...overrides,
  };
}

describe('checkouts over the merchant API', () => {
  it('creates a checkout, the page pays it with its client secret, and the backend verifies the paid order', async () => {
    const stack = await merchantApiStack();
    const created = await stack.v1('/v1/checkouts', { body: totes('order-501', { origin: SHOP_ORIGIN }) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers.get('cache-control'), 'no-store');
    const { id, client_secret, created_at, expires_at, ...rest } = created.body;
    assert.match(id, /^cs_[A-Za-z0-9_-]{24}$/);
    assert.match(client_secret, new RegExp(`^${id}_secret_[A-Za-z0-9_-]{43}$`));
    assert.equal(Date.parse(expires_at) - Date.parse(created_at), 3_600_000, 'an hour by default');
    assert.equal(Date.parse(created_at), stack.clock.now);
    assert.deepEqual(rest, {
      status: 'open',
      amount: { currency: 'ghs', value: 29_000 },
      reference: 'order-501',
      line_items: [
        {
          name: 'Kente tote',
          quantity: 2,
          unit_price: { currency: 'ghs', value: 12_500 },
          sku: 'kente-tote',
        },
        { name: 'Adinkra scarf', quantity: 1, unit_price: { currency: 'ghs', value: 4_000 }, sku: null },
      ],
      metadata: { channel: 'web' },
      origin: SHOP_ORIGIN,
    });

    const open = await stack.v1(`/v1/checkouts/${id}`);
    assert.equal(open.status, 200);
    assert.equal(open.body.client_secret, undefined, 'the client secret is shown once');
    assert.deepEqual(
      { status: open.body.status, order_ids: open.body.order_ids, paid_order_id: open.body.paid_order_id },
      { status: 'open', order_ids: [], paid_order_id: null },
    );

    const paying = await stack.shopperPaysCheckout(client_secret, SHOP_ORIGIN);
    await stack.payerAnswers(paying.order.id, 'approve');
    await stack.watcherPass();

    const orders = await stack.v1('/v1/orders?reference=order-501');
    assert.equal(orders.status, 200);
    assert.equal(orders.body.data.length, 1);
    const [order] = orders.body.data;
    assert.deepEqual(
      {
        id: order.id,
        outcome: order.outcome,
        amount: order.amount,
        line_items: order.line_items,
        metadata: order.metadata,
      },
      {
        id: paying.order.id,
        outcome: 'paid',
        amount: { currency: 'ghs', value: 29_000 },
        line_items: [
          { name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } },
          { name: 'Adinkra scarf', quantity: 1, unit_price: { currency: 'ghs', value: 4_000 } },
        ],
        metadata: { channel: 'web' },
      },
    );
    const paid = await stack.v1(`/v1/checkouts/${id}`);
    assert.equal(paid.status, 200);
    assert.equal(paid.body.status, 'paid');
    assert.equal(paid.body.paid_order_id, paying.order.id);
    assert.deepEqual(paid.body.order_ids, [paying.order.id]);
  });

  it('keeps a checkout open after a declined attempt, and lists both orders once the next is paid', async () => {
    const stack = await merchantApiStack();
    const created = await stack.v1('/v1/checkouts', { body: totes('order-502') });
    const declined = await stack.shopperPaysCheckout(created.body.client_secret);
    await stack.payerAnswers(declined.order.id, 'decline');
    await stack.watcherPass();
    const afterDecline = await stack.v1(`/v1/checkouts/${created.body.id}`);
    assert.equal(afterDecline.body.status, 'open');
    assert.equal(afterDecline.body.paid_order_id, null);
    const approved = await stack.shopperPaysCheckout(created.body.client_secret);
    await stack.payerAnswers(approved.order.id, 'approve');
    await stack.watcherPass();
    const checkout = await stack.v1(`/v1/checkouts/${created.body.id}`);
    assert.equal(checkout.body.status, 'paid');
    assert.deepEqual(checkout.body.order_ids, [approved.order.id, declined.order.id]);
    assert.equal(checkout.body.paid_order_id, approved.order.id);
  });

  it('treats a create re-sent after a lost answer as the same purchase: two checkouts of one reference are paid once', async () => {
    const stack = await merchantApiStack();
    const first = await stack.v1('/v1/checkouts', { body: totes('order-505') });
    const resent = await stack.v1('/v1/checkouts', { body: totes('order-505') });
    assert.equal(resent.status, 201);
    assert.notEqual(resent.body.id, first.body.id);
    const paying = await stack.shopperPaysCheckout(first.body.client_secret);
    await stack.payerAnswers(paying.order.id, 'approve');
    await stack.watcherPass();
    const other = await stack.v1(`/v1/checkouts/${resent.body.id}`);
    assert.equal(other.body.status, 'paid');
    assert.equal(other.body.paid_order_id, paying.order.id);
    const attempt = await stack.payCheckout(resent.body.client_secret);
    assert.equal(attempt.status, 409);
    assert.equal(((await attempt.json()) as { error: { code: string } }).error.code, 'checkout_paid');
  });

  it('answers a checkout past its expires_in as expired', async () => {
    const stack = await merchantApiStack();
    const created = await stack.v1('/v1/checkouts', { body: totes('order-503', { expires_in: 300 }) });
    assert.equal(created.status, 201);
    assert.equal(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at), 300_000);
    stack.clock.now += 300_001;
    const expired = await stack.v1(`/v1/checkouts/${created.body.id}`);
    assert.equal(expired.body.status, 'expired');
    const attempt = await stack.payCheckout(created.body.client_secret);
    assert.equal(attempt.status, 409);
    assert.equal(((await attempt.json()) as { error: { code: string } }).error.code, 'checkout_expired');
  });

  it('answers 404 to a checkout id it does not have, and to a client secret used as an id', async () => {
    const stack = await merchantApiStack();
    const created = await stack.v1('/v1/checkouts', { body: totes('order-504') });
    const otherId = `cs_${'A'.repeat(24)}`;
    for (const id of [otherId, created.body.client_secret, 'cs_short', created.body.id.slice(0, -1)]) {
      const answer = await stack.v1(`/v1/checkouts/${id}`);
      assert.equal(answer.status, 404, id);
      assert.equal(answer.body.error.code, 'resource_not_found');
    }
  });
});
