/**
 * The lines `pay-checkout/vite` prints on the dev server's terminal: every
 * failure a developer must see to know why a checkout failed or an order was
 * never fulfilled, and never the shopper's name or number.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckoutRelayEvent } from '../../../src/server/index.js';
import { createRelayLog } from '../../../src/vite/relay-log.js';
import { CUSTOMER_NAME, INTERNATIONAL_NUMBER, LOCAL_NUMBER } from '../../fixtures/checkout-data.js';

const FAILURES: [string, CheckoutRelayEvent, RegExp][] = [
  [
    'a priceCart that threw, with its message',
    {
      type: 'price_cart_failed',
      reason: 'priceCart threw.',
      error: new TypeError('cart.items is undefined'),
    },
    /priceCart failed: priceCart threw\. cart\.items is undefined/,
  ],
  [
    'a journal that refused a create',
    { type: 'journal_unavailable', error: new Error('SQLITE_BUSY') },
    /journal failed.*SQLITE_BUSY/,
  ],
  [
    'a callback that threw',
    {
      type: 'delivery_failed',
      orderId: 'or_1',
      outcome: 'paid',
      attempt: 2,
      nextAttemptAt: Date.now() + 5000,
      error: new Error('the shop database is down'),
    },
    /paid callback threw for order or_1.*the shop database is down/,
  ],
  [
    'a watcher that failed',
    { type: 'watcher_error', stage: 'record', error: new Error('disk full') },
    /watcher failed to record: disk full/,
  ],
  [
    'a lookup refused for its token',
    { type: 'lookup_denied', orderId: 'or_2', reason: 'token_mismatch' },
    /refused a lookup of or_2: token mismatch/,
  ],
];

describe('the Vite plugin’s terminal lines', () => {
  for (const [what, event, line] of FAILURES) {
    it(`warn of ${what}`, () => {
      const printed = createRelayLog()(event);
      assert.ok(printed, `no line for ${event.type}`);
      assert.equal(printed.warning, true);
      assert.match(printed.text, line);
    });
  }

  it('name no shopper on a created order', () => {
    const printed = createRelayLog()({
      type: 'order_created',
      orderId: 'or_3',
      orderStatus: 'requires_payment',
      paymentStatus: 'requires_action',
      replayed: false,
      lineItems: [],
      customer: { name: CUSTOMER_NAME, phone_number: INTERNATIONAL_NUMBER },
      idempotencyKey: 'scoped-key-0123456789',
      reference: null,
      metadata: {},
      amount: { currency: 'ghs', value: 5000 },
      source: 'create',
    } as CheckoutRelayEvent);
    assert.ok(printed);
    assert.equal(printed.text, 'order or_3: payment requires_action');
    assert.doesNotMatch(printed.text, new RegExp(`${CUSTOMER_NAME}|${LOCAL_NUMBER.slice(1)}|scoped-key`));
  });
});
