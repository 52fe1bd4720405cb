/**
 * The price before the prompt, in the session (the amount the
 * shopper sees): with `price-url`, the relay's price of the page's cart is
 * what the button shows and what the create sends as `expected_amount`; a
 * relay that prices otherwise answers `409 amount_changed` before any prompt,
 * and the shopper sees the new amount and pays again. A price request that
 * fails changes nothing the shopper can see.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRICE_DEBOUNCE_MS } from '../../../src/element/defaults.js';
import { type Answer, checkout, json, ScriptedRelay } from '../../fixtures/session-harness.js';

const PRICE_URL = 'https://shop.example/api/checkout/price';
const CART = { id: 'cart-1', items: [{ sku: 'rice-5kg', quantity: 2 }] };

/** The relay's price answer for `value` pesewas, with the items it priced. */
function priceAnswer(value: number): Answer {
  return {
    status: 200,
    body: {
      amount: { currency: 'ghs', value },
      line_items: [{ name: 'Rice 5 kg', quantity: 2, unit_price: { currency: 'ghs', value: value / 2 } }],
      reference: 'ref-1',
    },
  };
}

/** A scripted relay that also answers `price-url`, in order, recording each cart it was asked to price. */
function pricingRelay(answers: Answer[]) {
  const relay = new ScriptedRelay();
  const carts: unknown[] = [];
  const lookupsAndCreates = relay.fetch;
  Object.assign(relay, {
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input) !== PRICE_URL) return lookupsAndCreates(input, init);
      carts.push(JSON.parse(String(init?.body)).cart);
      return json(answers.shift() ?? { status: 500, body: {} });
    }) as typeof fetch,
  });
  return { relay, carts };
}

/** A session with `price-url`, the page's `amount` 5000 as the placeholder. */
function pricedCheckout(answers: Answer[]) {
  const { relay, carts } = pricingRelay(answers);
  // Assigned, not spread: the harness's getters (`stored`, `fired`) read at each use.
  return Object.assign(checkout({ relay, settings: { priceUrl: PRICE_URL } }), { carts });
}

const sentBody = (shop: ReturnType<typeof checkout>, index: number) =>
  JSON.parse(String(shop.relay.creates[index]?.body));

describe('CheckoutSession with price-url', () => {
  it('asks the relay to price the cart once the page stops setting it, and the form shows the relay’s amount', async () => {
    const shop = pricedCheckout([priceAnswer(7_500)]);
    shop.session.cartSet({ id: 'cart-0' });
    shop.session.cartSet(CART);
    assert.equal(shop.session.formAmount(CART), undefined, 'the page’s amount until the relay answers');
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    assert.deepEqual(shop.carts, [CART], 'one request, for the cart as the page left it');
    const shown = shop.session.formAmount(CART);
    assert.deepEqual(shown?.amount, { currency: 'ghs', value: 7_500 });
    assert.equal(shop.session.formAmount({ id: 'other' }), undefined, 'another cart is not this price');
  });

  it('sends the amount shown as expected_amount, and keeps the items priced for the receipt', async () => {
    const shop = pricedCheckout([priceAnswer(7_500)]);
    shop.session.cartSet(CART);
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    await shop.submit({ cart: CART });
    assert.deepEqual(sentBody(shop, 0).expected_amount, { currency: 'ghs', value: 7_500 });
    assert.deepEqual(
      shop.details('pay-submit')[0]?.intent,
      sentBody(shop, 0),
      'pay-submit says what is sent',
    );
    const attempt = shop.session.attempt;
    assert.equal(attempt?.phase, 'created');
    assert.equal(attempt?.amount?.value, 7_500, 'every screen after the create shows the relay’s amount');
    assert.deepEqual(attempt?.items, ['Rice 5 kg × 2']);
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.deepEqual(shop.stored?.items, ['Rice 5 kg × 2'], 'the receipt lists them after a reload too');
  });

  it('on 409 amount_changed: no retry, the form at the new amount with a note, pay-error retryable, and Pay works again', async () => {
    const shop = pricedCheckout([priceAnswer(7_500)]);
    shop.session.cartSet(CART);
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    shop.relay.createAnswers = [
      {
        status: 409,
        body: {
          amount: { currency: 'ghs', value: 9_000 },
          error: {
            code: 'amount_changed',
            message: 'The price has changed.',
            type: 'invalid_request_error',
            param: 'expected_amount',
          },
        },
      },
    ];
    await shop.submit({ cart: CART });
    assert.equal(shop.relay.creates.length, 1, 'not sent again by itself');
    assert.equal(shop.session.state.status, 'idle', 'back to the form');
    assert.equal(shop.session.amountChanged, true, 'the form says the price changed');
    assert.equal(shop.session.formAmount(CART)?.amount?.value, 9_000, 'the button shows the new amount');
    assert.deepEqual(shop.details('pay-error'), [
      { code: 'amount_changed', message: 'The price has changed.', retryable: true },
    ]);
    assert.equal(shop.stored, undefined, 'no attempt kept: nothing exists under the key');
    await shop.submit({ cart: CART });
    assert.deepEqual(sentBody(shop, 1).expected_amount, { currency: 'ghs', value: 9_000 });
    assert.notEqual(shop.relay.creates[1]?.idempotencyKey, shop.relay.creates[0]?.idempotencyKey);
    assert.equal(shop.session.state.status, 'requires_action');
    assert.equal(shop.session.amountChanged, false);
    assert.equal(shop.session.attempt?.amount?.value, 9_000);
    assert.deepEqual(
      shop.session.attempt?.items,
      ['Rice 5 kg × 2'],
      'the same cart: the same items, at the new price',
    );
  });

  it('a price request that fails keeps the page’s amount, shows no error, and the create still goes at that amount', async () => {
    const shop = pricedCheckout([
      { status: 503, body: { error: { code: 'x', message: 'x', type: 'api_error' } } },
    ]);
    shop.session.cartSet(CART);
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    assert.equal(shop.carts.length, 1);
    assert.equal(shop.session.formAmount(CART), undefined);
    assert.equal(shop.session.state.status, 'idle');
    assert.deepEqual(shop.fired, [], 'no pay-error for a price');
    await shop.submit({ cart: CART });
    assert.deepEqual(
      sentBody(shop, 0).expected_amount,
      { currency: 'ghs', value: 5_000 },
      'the amount on the button: a relay that prices otherwise refuses before any prompt',
    );
    assert.equal(shop.session.state.status, 'requires_action');
  });

  it('a later cart aborts the price request in flight: only the latest answer counts', async () => {
    const { relay, carts } = pricingRelay([]);
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const base = relay.fetch;
    const signals: AbortSignal[] = [];
    Object.assign(relay, {
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        if (String(input) !== PRICE_URL) return base(input, init);
        carts.push(JSON.parse(String(init?.body)).cart);
        const first = carts.length === 1;
        if (init?.signal) signals.push(init.signal);
        if (first) await held;
        return json(priceAnswer(first ? 1_000 : 2_000));
      }) as typeof fetch,
    });
    const shop = checkout({ relay, settings: { priceUrl: PRICE_URL } });
    shop.session.cartSet({ id: 'a' });
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    shop.session.cartSet(CART);
    await shop.clock.advance(PRICE_DEBOUNCE_MS);
    release?.();
    await shop.clock.advance(0);
    assert.equal(signals[0]?.aborted, true, 'the first request was aborted');
    assert.equal(
      shop.session.formAmount(CART)?.amount?.value,
      2_000,
      'the latest request’s answer, though the first came after it',
    );
    assert.equal(shop.session.formAmount({ id: 'a' }), undefined);
  });
});
