/**
 * A retry whose cart `priceCart` now refuses, for an order an earlier try
 * created, sent from another mobile-money network with the same name and
 * number. The service's lookup shows no network, so the relay compares the
 * one its journal kept from the attempt's first try: another network is
 * another shopper's attempt (the service's `422`), with no prompt, no order
 * and nothing of that order; the shopper on her own network gets her order.
 * Over real HTTP: the relay's Node listener in front of the sandbox served on
 * loopback, with real `memory:` and SQLite file journals.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'libsql';
import {
  CartError,
  type Journal,
  listen,
  openJournal,
  type PricedLineItem,
} from '../../../src/server/index.js';
import { createAnswerSchema } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import { freshJournal } from '../../fixtures/fulfilment.js';
import { errorOf, intent, priceCart, relayStack, SECRET } from '../../fixtures/relay.js';

const SOLD_OUT = 'The Kente tote has just sold out.';

const { sandbox, events, relayWith, served } = relayStack({ inProcess: false });

/** A relay on `journal` served over loopback, whose totes sell out when the test says; its create over HTTP. */
async function shopOn(journal: Journal) {
  const stock = { soldOut: false };
  const soldOutOr = (cart: unknown): PricedLineItem[] => {
    if (stock.soldOut) throw new CartError(SOLD_OUT, { param: 'cart.items[0].sku' });
    return priceCart(cart);
  };
  const relay = relayWith({
    baseUrl: await served(),
    priceCart: soldOutOr,
    rateLimit: false,
    journal,
    onPaid: () => undefined,
    watch: { ticks: false },
  });
  const server = await listen(relay.node);
  after(async () => {
    await server.close();
    await relay.close();
  });
  const create = (body: unknown, key: string) =>
    fetch(`${server.url}/api/checkout/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
  return { stock, create };
}

/** The intent of Ama Mensah paying from 0241110020 on `issuer`. */
function amaOn(issuer: 'mtn' | 'telecel' | 'at') {
  const shopper = customerPayingFrom('0241110020');
  shopper.payment_method_data.mobile_money.issuer = issuer;
  return intent(shopper);
}

/** The key the journal files an attempt under: the shopper's key scoped to the secret key (README). */
function scopedKey(shopperKey: string): string {
  const scope = createHmac('sha256', SECRET).update('pay-checkout relay idempotency scope v1').digest();
  return createHmac('sha256', scope).update(`idempotency:${shopperKey}`).digest('base64url');
}

/** The first try's order, created on MTN, then the product sold out. */
async function orderThenSoldOut(shop: Awaited<ReturnType<typeof shopOn>>, key: string) {
  const first = await shop.create(amaOn('mtn'), key);
  assert.equal(first.status, 200);
  const answer = createAnswerSchema.parse(await first.json());
  shop.stock.soldOut = true;
  return answer;
}

for (const store of ['memory:', 'sqlite:'] as const) {
  describe(`a retry whose cart is now refused, from another network, with a ${store} journal`, () => {
    it('the same name and number on another network, once the order is known: 422, no prompt, no order', async () => {
      const journal = await freshJournal(store);
      const shop = await shopOn(journal);
      const key = crypto.randomUUID();
      const { order, lookup_token } = await orderThenSoldOut(shop, key);
      assert.equal((await journal.readOrder({ orderId: order.id }))?.issuer, 'mtn', 'kept with the order');
      const before = sandbox.createdOrderCount;
      events.length = 0;
      for (const issuer of ['telecel', 'at'] as const) {
        const answer = await shop.create(amaOn(issuer), key);
        const text = await answer.clone().text();
        assert.equal(answer.status, 422, `from ${issuer}`);
        assert.equal((await errorOf(answer)).code, 'idempotency_key_reused');
        assert.ok(
          !text.includes(order.id) && !text.includes(lookup_token),
          'neither the order nor its token',
        );
      }
      assert.equal(sandbox.createdOrderCount, before, 'no prompt, no order');
      assert.equal(
        events.some((event) => event.type === 'order_created'),
        false,
        'no order announced',
      );
      // The shopper herself, on her own network, still gets her order.
      const own = await shop.create(amaOn('mtn'), key);
      assert.equal(own.status, 200);
      assert.equal(createAnswerSchema.parse(await own.json()).order.id, order.id);
      assert.equal(sandbox.createdOrderCount, before);
    });
  });
}

describe('a retry whose cart is now refused, for an order journalled before networks were kept', () => {
  it('name and number decide alone, as before: the known order', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-network-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    const path = join(scratch, 'journal.db');
    const journal = await openJournal(`sqlite:${path}`);
    const shop = await shopOn(journal);
    const key = crypto.randomUUID();
    const { order } = await orderThenSoldOut(shop, key);
    // The row as a journal before schema version 4 left it: no network (and no digest, from version 5).
    const file = new Database(path);
    file
      .prepare(
        'UPDATE pay_checkout_journal SET issuer = NULL, attempt_digest = NULL, service_key = NULL WHERE idempotency_key = ?',
      )
      .run(scopedKey(key));
    file.close();
    assert.equal((await journal.readOrder({ orderId: order.id }))?.issuer, null);
    const retried = await shop.create(amaOn('telecel'), key);
    assert.equal(retried.status, 200);
    assert.equal(createAnswerSchema.parse(await retried.json()).order.id, order.id);
  });
});
