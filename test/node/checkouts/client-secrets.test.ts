/**
 * A client secret pays its own checkout only. A malformed secret, an
 * unknown checkout, a wrong secret, and a page of another origin than the
 * one the checkout is bound to all get the same `404 checkout_not_found`,
 * on the price route, the create and the checkout read; each failed guess
 * takes a token of the client's lookup limit, so guessing ends in a `429`.
 * The secret is part of the attempt's digest (another checkout under the
 * same key is the `422` of a reused key), and the journal's file holds no
 * client secret. Real sandbox and relay over loopback, on a real SQLite file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openJournal } from '../../../src/server/index.js';
import { errorOf } from '../../fixtures/relay.js';
import {
  OTHER_ORIGIN,
  payingFor,
  SHOP_ORIGIN,
  startCheckoutShop,
  toteCheckout,
} from '../../fixtures/server-checkouts.js';

const scratch = mkdtempSync(join(tmpdir(), 'pay-checkout-secrets-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const NOT_FOUND = {
  code: 'checkout_not_found',
  message: 'This checkout does not exist, or this page may not use it.',
  type: 'invalid_request_error',
  param: 'checkout',
};

/** A secret of the right form whose random part is not the checkout's. */
function wrongSecretOf(clientSecret: string): string {
  const last = clientSecret.at(-1) === 'A' ? 'B' : 'A';
  return `${clientSecret.slice(0, -1)}${last}`;
}

describe('a client secret', () => {
  it('that opens nothing, for whatever reason, gets one and the same 404 on every route', async () => {
    const shop = await startCheckoutShop();
    const bound = await shop.relay.checkouts.create(toteCheckout());
    const unbound = await shop.relay.checkouts.create(
      toteCheckout({ origin: null, reference: 'order-1002' }),
    );
    const unknown = `cs_${'A'.repeat(24)}_secret_${'B'.repeat(43)}`;
    const cases: [string, string, string | undefined][] = [
      ['malformed', 'cs_short_secret_nope', SHOP_ORIGIN],
      ['an unknown checkout', unknown, SHOP_ORIGIN],
      ['a wrong secret', wrongSecretOf(bound.clientSecret), SHOP_ORIGIN],
      ['another origin', bound.clientSecret, OTHER_ORIGIN],
      ['a wrong secret of an unbound checkout', wrongSecretOf(unbound.clientSecret), OTHER_ORIGIN],
    ];
    for (const [what, secret, origin] of cases) {
      const init = origin ? { origin } : {};
      for (const answer of [
        await shop.price({ checkout: secret }, init),
        await shop.create(payingFor(secret), init),
        await shop.read(secret, init),
      ]) {
        assert.equal(answer.status, 404, `${what}: ${answer.url}`);
        assert.deepEqual(await errorOf(answer), NOT_FOUND, what);
      }
    }
    // The same secrets from the right page open their checkouts; an unbound one opens from any origin.
    assert.equal((await shop.read(bound.clientSecret)).status, 200);
    assert.equal((await shop.read(unbound.clientSecret, { origin: OTHER_ORIGIN })).status, 200);
  });

  it('guessed again and again runs into the lookup limit: 429', async () => {
    const shop = await startCheckoutShop({ rateLimit: { lookup: { capacity: 3, refillPerMinute: 1 } } });
    const checkout = await shop.relay.checkouts.create(toteCheckout());
    const guess = wrongSecretOf(checkout.clientSecret);
    assert.equal((await shop.price({ checkout: guess })).status, 404);
    assert.equal((await shop.create(payingFor(guess))).status, 404);
    assert.equal((await shop.read(guess)).status, 404);
    const limited = await shop.price({ checkout: guess });
    assert.equal(limited.status, 429);
    assert.equal((await errorOf(limited)).code, 'rate_limited');
    assert.ok(limited.headers.get('retry-after'));
    assert.equal((await shop.read(checkout.clientSecret)).status, 429, 'reads are limited like lookups');
  });

  it('is the checkout the attempt is for: another checkout under the same key is 422, a cart beside it 400', async () => {
    const shop = await startCheckoutShop();
    const first = await shop.relay.checkouts.create(toteCheckout());
    const second = await shop.relay.checkouts.create(toteCheckout({ reference: 'order-1003' }));
    const key = crypto.randomUUID();
    await shop.created(await shop.create(payingFor(first.clientSecret), { key }));
    const other = await shop.create(payingFor(second.clientSecret), { key });
    assert.equal(other.status, 422);
    assert.equal((await errorOf(other)).code, 'idempotency_key_reused');
    const both = await shop.create({
      ...payingFor(first.clientSecret),
      cart: { items: [{ sku: 'tote', quantity: 1 }] },
    });
    assert.equal(both.status, 400);
    assert.equal((await errorOf(both)).param, 'cart');
    const bothPriced = await shop.price({ checkout: first.clientSecret, cart: { items: [] } });
    assert.equal(bothPriced.status, 400);
    assert.equal((await errorOf(bothPriced)).param, 'cart');
  });

  it('is kept nowhere in the journal’s file: only a keyed digest of it', async () => {
    const path = join(scratch, 'secrets.db');
    const shop = await startCheckoutShop({ journal: await openJournal(`sqlite:${path}`) });
    const checkout = await shop.relay.checkouts.create(toteCheckout());
    await shop.created(await shop.create(payingFor(checkout.clientSecret)));
    await shop.relay.close();
    const secretPart = checkout.clientSecret.slice(checkout.clientSecret.indexOf('_secret_') + 8);
    const files = [path, `${path}-wal`, `${path}-shm`].filter(existsSync);
    const bytes = files.map((file) => readFileSync(file).toString('latin1')).join('');
    assert.ok(bytes.includes(checkout.id), 'the checkout is in the file');
    assert.ok(!bytes.includes(secretPart), 'its secret is not');
    assert.ok(!bytes.includes(checkout.clientSecret));
  });

  it('reads only by GET', async () => {
    const shop = await startCheckoutShop();
    const checkout = await shop.relay.checkouts.create(toteCheckout());
    const posted = await fetch(`${shop.base}/checkouts/${checkout.clientSecret}`, {
      method: 'POST',
      headers: { origin: SHOP_ORIGIN },
    });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, OPTIONS');
  });
});
