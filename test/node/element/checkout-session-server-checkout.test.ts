/**
 * A checkout the merchant's server created (`checkout`, its client secret),
 * in the session: the relay prices it by its secret, at `price-url` or at
 * `price` beside `create-url`; the create carries the secret and no cart; the
 * attempt belongs to that checkout as it belongs to a cart; and a checkout
 * the relay refuses (unknown, paid, expired) is a final error in the relay's
 * words, never sent again by itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOrder } from '../../../src/element/checkout-api.js';
import { type AttemptFacts, type DraftAttempt, draftAttempt } from '../../../src/element/checkout-attempt.js';
import { CreateRun } from '../../../src/element/create-run.js';
import { PRICE_DEBOUNCE_MS } from '../../../src/element/defaults.js';
import {
  type Answer,
  CREATE_URL,
  checkout,
  intent,
  json,
  LOOKUP_URL,
  ScriptedRelay,
} from '../../fixtures/session-harness.js';

/** A client secret as the relay makes them: the checkout's id, `_secret_`, 43 characters. */
const SECRET = `cs_${'A'.repeat(24)}_secret_${'b'.repeat(43)}`;
const OTHER_SECRET = `cs_${'C'.repeat(24)}_secret_${'d'.repeat(43)}`;
/** Where the session asks prices when the page gives no `price-url`: beside the create URL. */
const PRICE_BESIDE_CREATE = 'https://shop.example/api/checkout/price';
const PRICE_URL = 'https://relay.example/checkout/price';

/** The relay's price answer for the stored checkout: two totes, GH₵ 250.00. */
const PRICED: Answer = {
  status: 200,
  body: {
    amount: { currency: 'ghs', value: 25_000 },
    line_items: [{ name: 'Kente tote', quantity: 2, unit_price: { currency: 'ghs', value: 12_500 } }],
    reference: 'inv-1042',
  },
};

/** A scripted relay that also answers price requests at any URL but the create's and the lookup's, recording each. */
function pricingRelay() {
  const relay = new ScriptedRelay();
  const prices: { url: string; body: Record<string, unknown> }[] = [];
  const lookupsAndCreates = relay.fetch;
  Object.assign(relay, {
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (!url.endsWith('/price')) return lookupsAndCreates(input, init);
      prices.push({ url, body: JSON.parse(String(init?.body)) });
      return json(PRICED);
    }) as typeof fetch,
  });
  return { relay, prices };
}

/** A session for the server-created checkout `secret`, its cart (if the page set one too) ignored. */
function serverCheckout(settings: { checkout?: string; priceUrl?: string; createUrl?: string } = {}) {
  const { relay, prices } = pricingRelay();
  return Object.assign(checkout({ relay, settings: { checkout: SECRET, ...settings } }), { prices });
}

const sentBody = (shop: ReturnType<typeof checkout>, index: number) =>
  JSON.parse(String(shop.relay.creates[index]?.body));

/** The relay's refusal of a checkout, in its error shape. */
function refusal(status: number, code: string, message: string): Answer {
  return { status, body: { error: { code, message, type: 'invalid_request_error', param: 'checkout' } } };
}

describe('CheckoutSession with a server-created checkout', () => {
  it('asks the price of the checkout by its secret, at price beside create-url when the page gives no price-url', async () => {
    const shop = serverCheckout();
    shop.session.cartSet({ items: ['whatever the page holds'] });
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    assert.deepEqual(shop.prices, [{ url: PRICE_BESIDE_CREATE, body: { checkout: SECRET } }]);
    const shown = shop.session.formAmount({ items: ['another cart of the page'] });
    assert.deepEqual(shown?.amount, { currency: 'ghs', value: 25_000 }, 'the checkout’s, whatever the cart');
    assert.deepEqual(shown?.items, ['Kente tote × 2']);
  });

  it('asks at price-url when the page gives one, resolves price against a create-url with a query, and asks nothing without create-url', async () => {
    const withPriceUrl = serverCheckout({ priceUrl: PRICE_URL });
    withPriceUrl.session.cartSet(null);
    await withPriceUrl.clock.advance(PRICE_DEBOUNCE_MS);
    assert.deepEqual(
      withPriceUrl.prices.map(({ url }) => url),
      [PRICE_URL],
    );
    const withQuery = serverCheckout({ createUrl: 'https://relay.example/checkout/orders?shop=north' });
    withQuery.session.cartSet(null);
    await withQuery.clock.advance(PRICE_DEBOUNCE_MS);
    assert.deepEqual(
      withQuery.prices.map(({ url }) => url),
      ['https://relay.example/checkout/price'],
    );
    const withoutCreateUrl = serverCheckout({ createUrl: '' });
    withoutCreateUrl.session.cartSet(null);
    await withoutCreateUrl.clock.advance(PRICE_DEBOUNCE_MS);
    assert.deepEqual(withoutCreateUrl.prices, [], 'no create-url, no price: the checkout refuses on submit');
  });

  it('sends the secret and no cart, with the amount shown as expected_amount; the receipt lists the items', async () => {
    const shop = serverCheckout();
    shop.session.cartSet(null);
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    await shop.submit({ cart: { items: ['set by the page too'] } });
    const sent = sentBody(shop, 0);
    assert.equal(sent.checkout, SECRET);
    assert.equal('cart' in sent, false, 'no cart beside the checkout');
    assert.deepEqual(sent.expected_amount, { currency: 'ghs', value: 25_000 });
    assert.deepEqual(shop.details('pay-submit')[0]?.intent, sent, 'pay-submit says what is sent');
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.deepEqual(shop.stored?.items, ['Kente tote × 2']);
  });

  it('keeps the receipt for the same checkout after a reload, and shows a fresh form for another one', async () => {
    const shop = serverCheckout();
    await shop.submit();
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    shop.session.hostDisconnected();
    const again = checkout({ ...shop, settings: { checkout: SECRET } });
    assert.equal(again.session.cartSet(null), false, 'the same checkout keeps its receipt');
    assert.equal(again.session.state.status, 'paid');
    again.session.hostDisconnected();
    const other = checkout({ ...shop, settings: { checkout: OTHER_SECRET } });
    assert.equal(other.session.cartSet(null), true, 'another checkout gets a fresh form');
    assert.equal(other.session.state.status, 'idle');
    assert.equal(other.stored, undefined);
  });

  for (const [status, code, message] of [
    [409, 'checkout_paid', 'This checkout is already paid.'],
    [409, 'checkout_expired', 'This checkout has expired.'],
    [404, 'checkout_not_found', 'No such checkout.'],
  ] as const) {
    it(`on ${status} ${code}: a final error in the relay’s words, not sent again, and Try again is a new attempt`, async () => {
      const shop = serverCheckout();
      shop.relay.createAnswers = [refusal(status, code, message), refusal(status, code, message)];
      await shop.submit();
      assert.equal(shop.relay.creates.length, 1);
      assert.deepEqual(shop.session.state, { status: 'error', cause: 'cart', retryable: false, message });
      assert.deepEqual(shop.details('pay-error'), [{ code, message, retryable: false }]);
      assert.equal(shop.stored, undefined, 'nothing exists under the key: none kept');
      await shop.submit();
      assert.equal(shop.relay.creates.length, 2);
      assert.notEqual(shop.relay.creates[1]?.idempotencyKey, shop.relay.creates[0]?.idempotencyKey);
      assert.equal(sentBody(shop, 1).checkout, SECRET);
    });
  }
});

describe('createOrder for a server-created checkout', () => {
  it('sends a create the relay refused for its checkout once, whatever the retries allow', async () => {
    for (const [status, code] of [
      [409, 'checkout_paid'],
      [409, 'checkout_expired'],
      [404, 'checkout_not_found'],
    ] as const) {
      let sent = 0;
      const refused = createOrder(CREATE_URL, '{}', 'a'.repeat(32), {
        retries: 4,
        fetch: (async () => {
          sent++;
          return json(refusal(status, code, 'Refused.'));
        }) as typeof fetch,
      });
      await assert.rejects(refused, { code, retryable: false });
      assert.equal(sent, 1, code);
    }
  });
});

describe('CreateRun for a server-created checkout', () => {
  it('drops the key of a checkout refused after unanswered tries: the relay answers a recorded attempt its order, so none exists', async () => {
    const answers = [
      { status: 503, body: { error: { code: 'service_unavailable', message: 'Busy.', type: 'api_error' } } },
      refusal(409, 'checkout_paid', 'This checkout is already paid.'),
    ];
    const reports: unknown[] = [];
    const run = new CreateRun({
      create: ({ body, idempotencyKey }, signal) =>
        createOrder(CREATE_URL, body, idempotencyKey, {
          retries: 1,
          signal,
          fetch: (async () => json(answers.shift() ?? { status: 500, body: {} })) as typeof fetch,
        }),
      onCreated: () => reports.push('created'),
      onFieldRefused: () => reports.push('field'),
      onAmountChanged: () => reports.push('amount'),
      onFailed: (error, message, newKey) => reports.push({ error, message, newKey }),
    });
    const settings = { createUrl: CREATE_URL, lookupUrl: LOOKUP_URL, amount: undefined, currency: 'ghs' };
    const draft = draftAttempt({ ...intent, cart: undefined, checkout: SECRET }, settings, 0);
    await run.start(draft as AttemptFacts<DraftAttempt>, true);
    assert.deepEqual(reports, [
      {
        error: { code: 'checkout_paid', message: 'This checkout is already paid.', retryable: false },
        message: 'This checkout is already paid.',
        newKey: true,
      },
    ]);
  });
});
