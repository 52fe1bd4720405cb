/**
 * What the element promises of one checkout, on the session in Node: the amount
 * the shopper sees is the relay's from the create on; "Use another number"
 * leaves the earlier order watched, and the first paid order wins; a saved
 * checkout belongs to its cart. The relay is scripted per order, the clock
 * moves only when the test says.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckoutIntent } from '../../../src/shared/wire.js';
import { customerPayingFrom } from '../../fixtures/checkout-data.js';
import {
  checkout,
  failedAnswer,
  intent,
  ORDER_ID,
  order,
  relayError,
  reload,
  ScriptedRelay,
  STORAGE_KEY,
  settle,
} from '../../fixtures/session-harness.js';

const SECOND_ORDER = 'or_session_2';
const CHARGED = { currency: 'ghs', value: 16_500 };
/** The number of the second try, after "Use another number". */
const OTHER_NUMBER = '0551234567';
/** The intent's fields for a shopper paying from `OTHER_NUMBER`. */
const fromOtherNumber = customerPayingFrom(OTHER_NUMBER) as Partial<CheckoutIntent>;

/** A shopper who paid nothing yet: the first order waits, then "Use another number" and a second order, to another number, waits too. */
async function twoOrdersWaiting(relay = new ScriptedRelay()) {
  const shop = checkout({ relay });
  await shop.submit();
  assert.equal(shop.session.restart(true), true, '"Use another number"');
  await settle();
  await shop.submit(fromOtherNumber);
  assert.equal(shop.session.state.status, 'requires_action');
  assert.equal(shop.session.attempt?.phase === 'created' && shop.session.attempt.orderId, SECOND_ORDER);
  return shop;
}

describe('CheckoutSession: the amount the shopper sees', () => {
  it('takes the relay’s order.amount and reference from the create on, in its events and in storage', async () => {
    const relay = new ScriptedRelay();
    relay.charged = { amount: CHARGED, reference: 'cart-8812' };
    const shop = checkout({ relay });
    await shop.submit();
    assert.deepEqual(shop.session.attempt?.amount, CHARGED, 'not the page’s 5000');
    assert.deepEqual(shop.details('pay-created'), [
      {
        orderId: ORDER_ID,
        status: 'requires_payment',
        paymentStatus: 'requires_action',
        amount: CHARGED,
        reference: 'cart-8812',
      },
    ]);
    relay.lookupAnswer = 'paid';
    const reloaded = reload(shop);
    assert.deepEqual(reloaded.session.attempt?.amount, CHARGED, 'kept across a reload');
    await reloaded.clock.advance(3_000);
    const [paid] = reloaded.details('pay-paid');
    assert.deepEqual(paid?.amount, CHARGED);
    assert.equal(paid?.reference, 'cart-8812');
    assert.deepEqual(reloaded.stored?.amount, CHARGED);
    assert.equal(reloaded.stored?.reference, 'cart-8812');
  });

  it('keeps when the order settled for the receipt: the relay’s completed_at, else when the checkout heard', async () => {
    const relay = new ScriptedRelay();
    const shop = checkout({ relay });
    await shop.submit();
    relay.lookupAnswer = {
      status: 200,
      body: { order: { ...order('paid'), completed_at: '2026-11-28T10:15:00Z' } },
    };
    await shop.clock.advance(3_000);
    const paid = shop.session.attempt;
    assert.equal(paid?.phase === 'settled' && paid.settledAt, Date.parse('2026-11-28T10:15:00Z'));
    assert.equal(
      shop.stored?.phase === 'settled' && shop.stored.settledAt,
      Date.parse('2026-11-28T10:15:00Z'),
    );
    const older = checkout();
    await older.submit();
    older.relay.lookupAnswer = 'failed';
    await older.clock.advance(3_000);
    const failed = older.session.attempt;
    assert.equal(failed?.phase === 'settled' && failed.settledAt, older.clock.now());
  });

  it('falls back to the page’s amount with an older relay, and a null reference', async () => {
    const shop = checkout({ settings: { amount: 4_500, currency: 'ghs' } });
    shop.relay.lookupAnswer = 'paid';
    await shop.submit();
    const [created] = shop.details('pay-created');
    assert.deepEqual(created?.amount, { currency: 'ghs', value: 4_500 });
    assert.equal(created?.reference, null);
    const [paid] = shop.details('pay-paid');
    assert.deepEqual(paid?.amount, { currency: 'ghs', value: 4_500 });
    assert.equal(paid?.reference, null);
    const none = checkout({ settings: { amount: undefined } });
    await none.submit();
    assert.equal(none.details('pay-created')[0]?.amount, null, 'no amount anywhere');
  });

  it('offers the relay’s amount on the form again after a failure, for the same cart only', async () => {
    const relay = new ScriptedRelay();
    relay.charged = { amount: CHARGED, reference: null };
    const shop = checkout({ relay });
    const cart = { items: [{ sku: 'tote' }] };
    await shop.submit({ cart });
    relay.lookupAnswer = failedAnswer('declined');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'failed');
    assert.equal(shop.session.formAmount(cart), undefined, 'the failure screen shows its attempt’s');
    shop.session.restart(true); // "Try again"
    assert.deepEqual(shop.session.formAmount(structuredClone(cart))?.amount, CHARGED);
    assert.equal(shop.session.formAmount({ items: [] }), undefined, 'another cart: the page’s estimate');
    shop.session.restart(); // reset(): another checkout
    assert.equal(shop.session.formAmount(cart), undefined);
  });

  it('takes a lookup’s amount when the create had none', async () => {
    const relay = new ScriptedRelay();
    const shop = checkout({ relay });
    await shop.submit();
    assert.deepEqual(shop.session.attempt?.amount, { currency: 'ghs', value: 5_000 });
    relay.charged = { amount: CHARGED, reference: null };
    await shop.clock.advance(3_000);
    assert.deepEqual(shop.session.attempt?.amount, CHARGED);
    assert.deepEqual(shop.stored?.amount, CHARGED);
  });
});

describe('CheckoutSession: one checkout, at most one payment', () => {
  it('keeps looking up the earlier order after "Use another number", one lookup each per interval', async () => {
    const shop = await twoOrdersWaiting();
    assert.equal(shop.session.othersOpen, true);
    assert.deepEqual(
      shop.storedOthers.map((other) => other.phase === 'created' && other.orderId),
      [ORDER_ID],
    );
    const before = [shop.relay.lookupsOf.get(ORDER_ID) ?? 0, shop.relay.lookupsOf.get(SECOND_ORDER) ?? 0];
    await shop.clock.advance(3_000);
    assert.equal(shop.relay.lookupsOf.get(ORDER_ID), (before[0] ?? 0) + 1);
    assert.equal(shop.relay.lookupsOf.get(SECOND_ORDER), (before[1] ?? 0) + 1);
    // While its payer may still approve, the order keeps its number, as the attempt does: the same number takes it up again.
    assert.deepEqual(
      shop.storedOthers.map((other) => other.phase === 'created' && other.localNumber),
      ['0241234567'],
    );
  });

  it('shows the earlier order’s receipt when it is paid first: pay-paid once, for it; the second screen stops', async () => {
    const shop = await twoOrdersWaiting();
    shop.relay.statusOf.set(ORDER_ID, 'paid');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(shop.session.attempt?.phase === 'settled' && shop.session.attempt.orderId, ORDER_ID);
    assert.deepEqual(
      shop.details('pay-paid').map((paid) => paid.orderId),
      [ORDER_ID],
    );
    // The second order may still prompt the payer: it is watched, and the receipt says to decline it.
    assert.equal(shop.session.othersOpen, true);
    assert.equal(shop.stored?.phase, 'settled');
    const secondLookups = shop.relay.lookupsOf.get(SECOND_ORDER) ?? 0;
    await shop.clock.advance(3_000);
    assert.equal(shop.relay.lookupsOf.get(SECOND_ORDER), secondLookups + 1, 'one lookup an interval');
    assert.equal(shop.session.connection, 'ok');
    // The payer approves the second prompt anyway: the receipt stays the first order's and tells the second.
    shop.relay.statusOf.set(SECOND_ORDER, 'paid');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.attempt?.phase === 'settled' && shop.session.attempt.orderId, ORDER_ID);
    assert.equal(shop.fired.filter((name) => name === 'pay-paid').length, 2);
    assert.equal(shop.session.othersOpen, false);
    assert.deepEqual(shop.storedOthers, []);
    assert.equal(shop.clock.pending, 0, 'nothing left running');
  });

  it('shows the second order’s receipt when it is paid first, and stops watching the first once it is declined', async () => {
    const shop = await twoOrdersWaiting();
    shop.relay.statusOf.set(SECOND_ORDER, 'paid');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.attempt?.phase === 'settled' && shop.session.attempt.orderId, SECOND_ORDER);
    assert.equal(shop.session.othersOpen, true, 'the first prompt may still come');
    shop.relay.statusOf.set(ORDER_ID, 'failed');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.othersOpen, false);
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(
      shop.fired.filter((name) => name === 'pay-failed').length,
      0,
      'the earlier order’s end is no event',
    );
    assert.deepEqual(
      shop.details('pay-paid').map((paid) => paid.orderId),
      [SECOND_ORDER],
    );
  });

  it('finds an earlier order paid after a reload with two orders waiting', async () => {
    const shop = await twoOrdersWaiting();
    const reloaded = reload(shop);
    await settle();
    assert.equal(reloaded.session.othersOpen, true);
    assert.equal(reloaded.session.state.status, 'requires_action');
    shop.relay.statusOf.set(ORDER_ID, 'paid');
    await reloaded.clock.advance(3_000);
    assert.equal(reloaded.session.attempt?.phase === 'settled' && reloaded.session.attempt.orderId, ORDER_ID);
    assert.deepEqual(reloaded.fired, ['pay-paid']);
    // And once more: the receipt, with the second order still watched, and nothing fired again.
    const again = reload(reloaded);
    await settle();
    assert.equal(again.session.state.status, 'paid');
    assert.equal(again.session.othersOpen, true);
    assert.deepEqual(again.fired, []);
  });

  it('keeps the earlier order across a reload of the fresh form, before the second number is sent', async () => {
    const shop = checkout();
    await shop.submit();
    shop.session.restart(true);
    const reloaded = reload(shop);
    await settle();
    assert.equal(reloaded.session.state.status, 'idle');
    assert.equal(reloaded.session.othersOpen, true);
    shop.relay.statusOf.set(ORDER_ID, 'paid');
    await reloaded.clock.advance(3_000);
    assert.equal(reloaded.session.state.status, 'paid', 'the fresh form gives way to its receipt');
    assert.deepEqual(reloaded.fired, ['pay-paid']);
  });

  it('waits for a create in flight before taking an earlier order’s payment', async () => {
    const relay = new ScriptedRelay();
    const shop = checkout({ relay });
    await shop.submit();
    shop.session.restart(true);
    await settle();
    relay.statusOf.set(ORDER_ID, 'paid');
    let release = () => {};
    relay.hold = new Promise((resolve) => {
      release = resolve;
    });
    // The second create is on its way when the earlier order's lookup comes back paid.
    const sending = shop.session.submit(() => ({ ...intent, ...fromOtherNumber }));
    await shop.clock.advance(3_000);
    assert.equal(relay.lookupsOf.get(ORDER_ID), 3, 'the earlier order was looked up again');
    assert.equal(shop.session.state.status, 'submitting', 'its order must be known first');
    assert.deepEqual(shop.details('pay-paid'), []);
    release();
    await sending;
    await settle();
    assert.equal(shop.session.state.status, 'requires_action');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.attempt?.phase === 'settled' && shop.session.attempt.orderId, ORDER_ID);
    assert.equal(shop.session.othersOpen, true, 'the second order is watched in its turn');
    assert.equal(shop.fired.filter((name) => name === 'pay-paid').length, 1);
  });

  it('stops watching an earlier order at its own poll-timeout, or when the relay refuses it', async () => {
    const shop = checkout();
    await shop.submit();
    await shop.clock.advance(30_000);
    shop.session.restart(true);
    await shop.submit(fromOtherNumber);
    // The first order's poll-timeout (60 s) passes 30 s before the second's.
    await shop.clock.advance(29_000);
    assert.equal(shop.session.othersOpen, true);
    await shop.clock.advance(2_000);
    assert.equal(shop.session.othersOpen, false);
    assert.equal(shop.session.state.status, 'requires_action', 'the second order still waits');
    assert.deepEqual(shop.storedOthers, []);
    const refused = await twoOrdersWaiting();
    refused.relay.statusOf.delete(ORDER_ID);
    refused.relay.lookupAnswer = relayError(403, 'permission_denied');
    refused.relay.statusOf.set(SECOND_ORDER, 'requires_action');
    await refused.clock.advance(3_000);
    assert.equal(refused.session.othersOpen, false);
    assert.equal(refused.session.state.status, 'requires_action');
  });

  it('watches a timed-out order for another poll-timeout after "Use another number", and notices its late approval', async () => {
    const shop = checkout();
    await shop.submit();
    await shop.clock.advance(60_000);
    assert.equal(shop.session.state.status, 'timeout');
    shop.session.restart(true);
    assert.equal(shop.session.state.status, 'idle');
    assert.equal(shop.session.othersOpen, true, 'its payer may still approve');
    await shop.submit(fromOtherNumber);
    const reloaded = reload(shop);
    await settle();
    assert.equal(reloaded.session.othersOpen, true, 'across a reload');
    shop.relay.statusOf.set(ORDER_ID, 'paid');
    await reloaded.clock.advance(3_000);
    assert.equal(reloaded.session.state.status, 'paid');
    assert.equal(reloaded.session.attempt?.phase === 'settled' && reloaded.session.attempt.orderId, ORDER_ID);
    assert.deepEqual(
      reloaded.details('pay-paid').map((paid) => paid.orderId),
      [ORDER_ID],
    );
    // Unanswered, it is watched until that second poll-timeout passes, then let go.
    const unanswered = checkout();
    await unanswered.submit();
    await unanswered.clock.advance(60_000);
    unanswered.session.restart(true);
    await unanswered.clock.advance(61_000);
    assert.equal(unanswered.session.othersOpen, false);
    assert.equal(unanswered.clock.pending, 0);
  });

  it('pauses the earlier order’s lookups with the page, and stops them off the page', async () => {
    const shop = await twoOrdersWaiting();
    const lookups = shop.relay.lookups;
    shop.page.set({ hidden: true });
    await shop.clock.advance(30_000);
    assert.equal(shop.relay.lookups, lookups, 'no lookup while hidden');
    shop.page.set({ hidden: false });
    await settle();
    assert.equal(shop.relay.lookups, lookups + 2, 'both orders at once when back');
    shop.session.hostDisconnected();
    assert.equal(shop.clock.pending, 0);
    assert.equal(shop.page.listeners.size, 0);
    shop.session.hostConnected();
    await settle();
    assert.equal(shop.relay.lookups, lookups + 4);
    shop.session.hostDisconnected();
  });

  it('forgets the other orders on reset(): another checkout begins', async () => {
    const shop = await twoOrdersWaiting();
    shop.session.restart();
    assert.equal(shop.session.othersOpen, false);
    assert.equal(shop.storage.map.size, 0);
    assert.equal(shop.clock.pending, 0);
  });

  it('ignores an earlier order that failed: no event, no screen change', async () => {
    const relay = new ScriptedRelay();
    const shop = await twoOrdersWaiting(relay);
    relay.statusOf.set(ORDER_ID, 'failed');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'requires_action');
    assert.equal(shop.session.othersOpen, false);
    assert.deepEqual(shop.details('pay-failed'), []);
    relay.statusOf.set(SECOND_ORDER, 'failed');
    relay.lookupAnswer = failedAnswer('declined');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'failed');
  });
});

describe('CheckoutSession: one prompt per number, and two payments told', () => {
  it('takes the open order up again when the same number is given again: one create for three tries, no event again', async () => {
    const shop = checkout();
    await shop.submit();
    for (let again = 0; again < 2; again++) {
      assert.equal(shop.session.restart(true), true, '"Use another number"');
      await shop.submit();
      assert.equal(shop.session.state.status, 'requires_action');
      const attempt = shop.session.attempt;
      assert.equal(attempt?.phase === 'created' && attempt.orderId, ORDER_ID);
      assert.equal(attempt?.phase === 'created' && attempt.again, true, 'the screen says it asked before');
      assert.equal(shop.session.othersOpen, false);
    }
    assert.equal(shop.relay.creates.length, 1, 'one prompt to one phone');
    assert.deepEqual(shop.fired, ['pay-submit', 'pay-created', 'pay-requires-action']);
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.deepEqual(
      shop.details('pay-paid').map((paid) => paid.orderId),
      [ORDER_ID],
    );
    // Another number still creates its own order.
    const other = await twoOrdersWaiting();
    assert.equal(other.relay.creates.length, 2);
  });

  it('tells a second payment: on the receipt, in storage, and in a second pay-paid naming the first', async () => {
    const relay = new ScriptedRelay();
    relay.charged = { amount: CHARGED, reference: 'cart-8812' };
    const shop = await twoOrdersWaiting(relay);
    relay.statusOf.set(SECOND_ORDER, 'paid');
    await shop.clock.advance(3_000);
    relay.statusOf.set(ORDER_ID, 'paid');
    await shop.clock.advance(3_000);
    const [first, second, ...more] = shop.details('pay-paid');
    assert.equal(first?.orderId, SECOND_ORDER);
    assert.equal(first?.otherPaidOrderIds, undefined);
    assert.equal(second?.orderId, ORDER_ID);
    assert.deepEqual(second?.otherPaidOrderIds, [SECOND_ORDER]);
    assert.deepEqual(second?.amount, CHARGED);
    assert.deepEqual(more, []);
    const attempt = shop.session.attempt;
    assert.equal(attempt?.phase, 'settled');
    if (attempt?.phase !== 'settled') return;
    assert.equal(attempt.masked, '055 ••• 4567');
    assert.deepEqual(attempt.alsoPaid, [{ orderId: ORDER_ID, amount: CHARGED, masked: '024 ••• 4567' }]);
    // A reload shows the same receipt and fires nothing again.
    const reloaded = reload(shop);
    await reloaded.clock.advance(3_000);
    assert.deepEqual(reloaded.fired, []);
    const stored = reloaded.session.attempt;
    assert.equal(stored?.phase === 'settled' && stored.alsoPaid?.length, 1);
    assert.equal(
      JSON.stringify(reloaded.storage.map.get(STORAGE_KEY)).includes('1234567'),
      false,
      'numbers masked',
    );
  });

  it('keeps watching the earlier order when the page changes its cart after the first payment, and tells the second', async () => {
    const relay = new ScriptedRelay();
    const shop = await twoOrdersWaiting(relay);
    relay.statusOf.set(SECOND_ORDER, 'paid');
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(shop.session.othersOpen, true);
    // A shop that empties its cart in its pay-paid listener: the receipt stays while money may still move.
    assert.equal(shop.session.cartSet({ id: 'emptied' }), false, 'the receipt is not dropped');
    relay.statusOf.set(ORDER_ID, 'paid');
    await shop.clock.advance(3_000);
    assert.deepEqual(
      shop.details('pay-paid').map((paid) => [paid.orderId, paid.otherPaidOrderIds]),
      [
        [SECOND_ORDER, undefined],
        [ORDER_ID, [SECOND_ORDER]],
      ],
    );
  });
});

describe('CheckoutSession: the timeout screen checks by itself', () => {
  it('looks the order up at the poll interval on the timeout screen, and reaches paid without a click', async () => {
    const shop = checkout();
    await shop.submit();
    await shop.clock.advance(60_000);
    assert.equal(shop.session.state.status, 'timeout');
    const lookups = shop.relay.lookups;
    await shop.clock.advance(9_000);
    assert.equal(shop.relay.lookups, lookups + 3, 'one lookup each interval');
    assert.equal(shop.session.state.status, 'timeout', 'still pending: the screen stays');
    shop.relay.lookupAnswer = 'paid';
    await shop.clock.advance(3_000);
    assert.equal(shop.session.state.status, 'paid');
    assert.deepEqual(
      shop.fired.filter((name) => name === 'pay-timeout' || name === 'pay-paid'),
      ['pay-timeout', 'pay-paid'],
    );
    assert.equal(shop.clock.pending, 0, 'nothing runs once paid');
    // After a reload on the timeout screen too.
    const again = checkout();
    await again.submit();
    await again.clock.advance(60_000);
    const reloaded = reload(again);
    await settle();
    assert.equal(reloaded.session.state.status, 'timeout');
    again.relay.lookupAnswer = 'paid';
    await reloaded.clock.advance(3_000);
    assert.equal(reloaded.session.state.status, 'paid');
  });
});

describe('CheckoutSession: a saved checkout belongs to its cart', () => {
  const cart = { items: [{ product_id: 'kente-tote', quantity: 1 }], note: 'gift' };
  const sameCartOtherOrder = { note: 'gift', items: [{ quantity: 1, product_id: 'kente-tote' }] };
  const newCart = { items: [{ product_id: 'kente-tote', quantity: 2 }], note: 'gift' };

  it('drops a paid checkout when the page sets another cart, and keeps it for the same one in any key order', async () => {
    const shop = checkout();
    shop.relay.lookupAnswer = 'paid';
    await shop.submit({ cart });
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(shop.session.cartSet(sameCartOtherOrder), false);
    assert.equal(shop.session.state.status, 'paid');
    const reloaded = reload(shop);
    assert.equal(reloaded.session.cartSet(structuredClone(cart)), false, 'the same cart after a reload');
    assert.equal(reloaded.session.state.status, 'paid');
    assert.equal(reloaded.session.cartSet(newCart), true);
    assert.equal(reloaded.session.state.status, 'idle');
    assert.equal(reloaded.storage.map.size, 0);
    assert.deepEqual(reloaded.states, ['idle']);
  });

  it('keeps a checkout that may still be paid: waiting, timed out, or failed with another order open', async () => {
    const shop = checkout();
    await shop.submit({ cart });
    assert.equal(shop.session.cartSet(newCart), false);
    await shop.clock.advance(60_000);
    assert.equal(shop.session.state.status, 'timeout');
    assert.equal(shop.session.cartSet(newCart), false);
    const failed = await twoOrdersWaiting();
    failed.relay.statusOf.set(SECOND_ORDER, 'failed');
    await failed.clock.advance(3_000);
    assert.equal(failed.session.state.status, 'failed');
    assert.equal(failed.session.cartSet(newCart), false, 'the first order may still be paid');
    failed.relay.statusOf.set(ORDER_ID, 'expired');
    await failed.clock.advance(3_000);
    assert.equal(failed.session.cartSet(newCart), true, 'settled for good');
  });

  it('drops nothing made for no known cart (resume())', async () => {
    const shop = checkout();
    shop.relay.lookupAnswer = 'paid';
    shop.session.resume({ orderId: ORDER_ID, lookupToken: 'token' });
    await settle();
    assert.equal(shop.session.state.status, 'paid');
    assert.equal(shop.session.cartSet(newCart), false);
  });
});
