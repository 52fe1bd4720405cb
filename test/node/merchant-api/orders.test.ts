/**
 * A shop's backend verifies an order through the merchant API: a shopper
 * pays through the relay, the payer approves on the sandbox's control
 * surface, a watcher pass settles it, and `GET /v1/orders/{order_id}` and
 * `GET /v1/orders?reference=` answer what the journal holds, in snake_case
 * with ISO 8601 times. Real relay, real SQLite file, the sandbox and the API
 * over loopback HTTP.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { merchantApiStack } from '../../fixtures/merchant-api.js';
import { assertNoCustomerData } from '../../fixtures/relay.js';

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('the merchant API reads orders', () => {
  it('answers a paid order by id and by reference, in snake_case, with nothing of the customer', async () => {
    const stack = await merchantApiStack();
    const { order } = await stack.shopperPays('cart-101');
    const pending = await stack.v1(`/v1/orders/${order.id}`);
    assert.equal(pending.status, 200);
    assert.equal(pending.body.outcome, 'pending');
    assert.equal(pending.body.settled_at, null);

    await stack.payerAnswers(order.id, 'approve');
    await stack.watcherPass();
    const paid = await stack.v1(`/v1/orders/${order.id}`);
    assert.equal(paid.status, 200);
    assert.equal(paid.headers.get('cache-control'), 'no-store');
    assert.equal(paid.headers.get('access-control-allow-origin'), null, 'no CORS on /v1');
    const { created_at, settled_at, delivered_at, ...rest } = paid.body;
    assert.deepEqual(rest, {
      id: order.id,
      outcome: 'paid',
      reference: 'cart-101',
      metadata: {},
      line_items: [{ name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } }],
      amount: { currency: 'ghs', value: 25_000 },
      payment_status: 'paid',
      failure_code: null,
      other_paid_order_ids: [],
      previous_outcome: null,
    });
    for (const time of [created_at, settled_at, delivered_at]) assert.match(time, ISO_TIME);
    assertNoCustomerData(JSON.stringify(paid.body));

    const byReference = await stack.v1('/v1/orders?reference=cart-101');
    assert.equal(byReference.status, 200);
    assert.deepEqual(byReference.body, { data: [paid.body] });
  });

  it('lists every order of a reference newest first, and a declined one as failed with its code', async () => {
    const stack = await merchantApiStack();
    const first = await stack.shopperPays('cart-102', '0241150002');
    await stack.payerAnswers(first.order.id, 'decline');
    await stack.watcherPass();
    const second = await stack.shopperPays('cart-102', '0241150002');
    await stack.payerAnswers(second.order.id, 'approve');
    await stack.watcherPass();
    const { status, body } = await stack.v1('/v1/orders?reference=cart-102');
    assert.equal(status, 200);
    assert.deepEqual(
      body.data.map((order: { id: string; outcome: string; failure_code: string | null }) => [
        order.id,
        order.outcome,
        order.failure_code,
      ]),
      [
        [second.order.id, 'paid', null],
        [first.order.id, 'failed', 'declined'],
      ],
    );
    assert.deepEqual((await stack.v1('/v1/orders?reference=no-such-cart')).body, { data: [] });
  });

  it('answers 404 for an order it never created, and 400 naming reference when it is missing or malformed', async () => {
    const stack = await merchantApiStack();
    for (const id of ['or_unknown123', 'not-an-order', `or_${'x'.repeat(80)}`]) {
      const answer = await stack.v1(`/v1/orders/${id}`);
      assert.equal(answer.status, 404, id);
      assert.equal(answer.body.error.code, 'resource_not_found');
    }
    for (const query of ['', '?reference=', '?reference=has%20space', `?reference=${'r'.repeat(65)}`]) {
      const answer = await stack.v1(`/v1/orders${query}`);
      assert.equal(answer.status, 400, query);
      assert.equal(answer.body.error.param, 'reference');
    }
  });
});
