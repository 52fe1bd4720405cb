/**
 * Checkouts the merchant's server creates (`relay.checkouts.create`), paid
 * from a page that holds only the client secret: the price route and the
 * checkout read answer what the merchant recorded, the create charges it,
 * and once an order of its reference is paid the checkout is paid: a new
 * attempt is refused `409 checkout_paid`, while a re-sent create of the
 * paying attempt still answers its order. Real sandbox and relay over
 * loopback, on a real SQLite file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkoutAnswerSchema, priceAnswerSchema } from '../../../src/shared/wire.js';
import { errorOf } from '../../fixtures/relay.js';
import { payingFor, SHOP_ORIGIN, startCheckoutShop, toteCheckout } from '../../fixtures/server-checkouts.js';

const TOTES = { currency: 'ghs', value: 25_000 };

describe('a server-created checkout', () => {
  it('is priced, read and paid from its client secret, and is paid once (then priced no more)', async () => {
    const shop = await startCheckoutShop();
    const checkout = await shop.relay.checkouts.create(toteCheckout());
    assert.match(checkout.id, /^cs_[A-Za-z0-9_-]{24}$/);
    assert.match(checkout.clientSecret, /^cs_[A-Za-z0-9_-]{24}_secret_[A-Za-z0-9_-]{43}$/);
    assert.ok(checkout.clientSecret.startsWith(checkout.id));
    assert.equal(checkout.status, 'open');
    assert.deepEqual(checkout.amount, TOTES);
    assert.deepEqual(checkout.orderIds, []);
    assert.equal(checkout.expiresAt - checkout.createdAt, 3_600_000);

    const priced = await shop.price({ checkout: checkout.clientSecret });
    assert.equal(priced.status, 200);
    assert.deepEqual(priceAnswerSchema.parse(await priced.json()), {
      amount: TOTES,
      line_items: [{ name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } }],
      reference: 'order-1001',
    });
    const read = await shop.read(checkout.clientSecret);
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('access-control-allow-origin'), SHOP_ORIGIN);
    const readText = await read.text();
    assert.ok(!readText.includes('accra-2') && !readText.includes('warehouse'), 'never the metadata');
    assert.deepEqual(checkoutAnswerSchema.parse(JSON.parse(readText)), {
      amount: TOTES,
      line_items: [{ name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } }],
      reference: 'order-1001',
      status: 'open',
      expires_at: new Date(checkout.expiresAt).toISOString(),
    });

    const key = crypto.randomUUID();
    const paying = payingFor(checkout.clientSecret);
    const created = await shop.created(await shop.create({ ...paying, expected_amount: TOTES }, { key }));
    assert.deepEqual(created.order.amount, TOTES);
    assert.equal(created.reference, 'order-1001');
    const recorded = await shop.relay.orders.get(created.order.id);
    assert.deepEqual(recorded?.metadata, { warehouse: 'accra-2' }, 'the checkout’s metadata is the order’s');
    assert.equal((await shop.relay.checkouts.get(checkout.id))?.status, 'open', 'pending is still open');

    shop.sandbox.approve(created.order.id);
    shop.advance(5_000);
    assert.equal((await shop.lookup(created)).status, 200);
    const paid = await shop.relay.checkouts.get(checkout.id);
    assert.equal(paid?.status, 'paid');
    assert.equal(paid?.paidOrderId, created.order.id);
    assert.deepEqual(paid?.orderIds, [created.order.id]);
    assert.equal(
      checkoutAnswerSchema.parse(await (await shop.read(checkout.clientSecret)).json()).status,
      'paid',
    );

    const repriced = await shop.price({ checkout: checkout.clientSecret });
    assert.equal(repriced.status, 409, 'told before a number is typed');
    assert.equal((await errorOf(repriced)).code, 'checkout_paid');
    const again = await shop.create(payingFor(checkout.clientSecret, '0241130002'));
    assert.equal(again.status, 409);
    assert.deepEqual(await errorOf(again), {
      code: 'checkout_paid',
      message: 'This checkout is already paid.',
      type: 'invalid_request_error',
      param: 'checkout',
    });
    const before = shop.sandbox.createdOrderCount;
    const resent = await shop.created(await shop.create({ ...paying, expected_amount: TOTES }, { key }));
    assert.equal(resent.order.id, created.order.id, 'the paying attempt’s own re-send answers its order');
    assert.equal(shop.sandbox.createdOrderCount, before, 'and creates nothing');
  });

  it('expires: a new attempt is refused 409 checkout_expired, one recorded before still answers its order', async () => {
    const shop = await startCheckoutShop();
    const checkout = await shop.relay.checkouts.create(toteCheckout({ expiresInSeconds: 300 }));
    const key = crypto.randomUUID();
    const paying = payingFor(checkout.clientSecret);
    const created = await shop.created(await shop.create(paying, { key }));
    shop.advance(300_000);
    assert.equal((await shop.relay.checkouts.get(checkout.id))?.status, 'expired');
    const late = await shop.create(payingFor(checkout.clientSecret, '0241130003'));
    assert.equal(late.status, 409);
    const refusal = await errorOf(late);
    assert.equal(refusal.code, 'checkout_expired');
    assert.equal(refusal.param, 'checkout');
    const priced = await shop.price({ checkout: checkout.clientSecret });
    assert.equal(priced.status, 409);
    assert.deepEqual(await errorOf(priced), refusal, 'the price route refuses it alike');
    const resent = await shop.created(await shop.create(paying, { key }));
    assert.equal(resent.order.id, created.order.id);
    const read = checkoutAnswerSchema.parse(await (await shop.read(checkout.clientSecret)).json());
    assert.equal(read.status, 'expired');
    // Paid after its expiry (its own attempt's order): paid wins.
    shop.sandbox.approve(created.order.id);
    shop.advance(5_000);
    await shop.lookup(created);
    assert.equal((await shop.relay.checkouts.get(checkout.id))?.status, 'paid');
  });
});
