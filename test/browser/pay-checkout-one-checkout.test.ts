/**
 * `<pay-checkout>` against the real relay and sandbox, for what the element
 * promises of one checkout: the amount the shopper sees is the relay's from the
 * create on; "Use another number" never lets two orders both end in a
 * receipt; the timeout screen is never a dead end; a saved checkout belongs
 * to its cart. The payers never answer on their own: the tests answer for
 * them through the sandbox's control surface, and move a fake clock.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import sinon from 'sinon';
import { formatLocalNumber } from '../../src/element/checkout-form.js';
import { EN_STRINGS, type PayCheckout } from '../../src/index.js';
import type { Charged } from './checkout-test-server.js';
import {
  createsFor,
  EventLog,
  freshNumber,
  NetworkWatch,
  PayCheckoutHarness,
  payerAnswers,
  resetFaults,
} from './pay-checkout-harness.js';

// Captured before any test wraps or fakes them.
const realFetch = window.fetch.bind(window);

const CHARGED: Charged = { amount: { currency: 'ghs', value: 16_500 }, reference: 'cart-8812' };

interface Mounted {
  el: PayCheckout;
  harness: PayCheckoutHarness;
  log: EventLog;
}

const mounted: HTMLElement[] = [];

/** Mounts a checkout as a page would (a reload is one more mount); `setup` runs before it is connected. */
async function mount(
  attributes: Record<string, string> = {},
  setup?: (el: PayCheckout) => void,
): Promise<Mounted> {
  const el = document.createElement('pay-checkout');
  const all = {
    'create-url': '/api/checkout/orders',
    'lookup-url': '/api/checkout/lookup',
    amount: '4500',
    'poll-interval': '2000',
    ...attributes,
  };
  for (const [name, value] of Object.entries(all)) el.setAttribute(name, value);
  const log = new EventLog(el);
  setup?.(el);
  const wrapper = document.createElement('div');
  wrapper.append(el);
  document.body.append(wrapper);
  mounted.push(wrapper);
  await el.updateComplete;
  return { el, harness: new PayCheckoutHarness(el), log };
}

/** The relay's answers from now on carry this amount and reference; null: as the relay sends them. */
async function relayCharges(charged: Charged | 'none' | null): Promise<void> {
  const response = await realFetch('/test-server/charged', { method: 'POST', body: JSON.stringify(charged) });
  if (!response.ok) throw new Error(`The test server answered ${response.status}.`);
}

/** What tests that move time fake: the element's timers and its clock. */
const FAKED: { toFake: ('setTimeout' | 'clearTimeout' | 'Date')[] } = {
  toFake: ['setTimeout', 'clearTimeout', 'Date'],
};

/** A fake clock with a watch on the real network, for tests that move time. */
function timeMover(clock: sinon.SinonFakeTimers) {
  const network = new NetworkWatch();
  return {
    clock,
    network,
    /** Moves the clock by `ms`, and lets the real network and the element catch up. */
    async advance(ms: number): Promise<void> {
      await clock.tickAsync(ms);
      await network.settled();
      await clock.tickAsync(0);
    },
  };
}

/** Pays with `number` on the form shown, and waits for the payer; the new order's id. */
async function payWith({ harness, log }: Mounted, number: string): Promise<string> {
  const created = log.count('pay-created');
  await harness.fill(number);
  await harness.pay();
  await harness.waitForState('requires_action');
  return String(log.details('pay-created')[created]?.orderId);
}

/** The amount shown in the status panel. */
function shownAmount(harness: PayCheckoutHarness): string {
  return (harness.query('[part~="status"] [part~="amount"]')?.textContent ?? '').replace(/\s/g, ' ');
}

/**
 * "Use another number", then the question it asks first: it names the number
 * the earlier request went to and says approving both pays twice, and takes
 * focus; "Use another number" again confirms.
 */
async function chooseAnotherNumber({ el, harness }: Mounted, earlier: string): Promise<void> {
  harness.button('Use another number').click();
  await el.updateComplete;
  expect(harness.text).to.contain(EN_STRINGS.confirmAnother(formatLocalNumber(earlier)));
  expect(harness.focused?.id).to.equal('confirm');
  expect(el.state).to.not.equal('idle', 'nothing happens before the shopper confirms');
  harness.button('Use another number').click();
  await harness.waitForState('idle');
}

/** A shopper who paid with one number, pressed "Use another number" and paid with a second: both wait. */
async function twoOrdersWaiting(checkout: Mounted): Promise<[string, string]> {
  const number = freshNumber();
  const first = await payWith(checkout, number);
  await chooseAnotherNumber(checkout, number);
  expect(checkout.harness.text).to.contain(EN_STRINGS.earlierRequestOpen);
  const second = await payWith(checkout, freshNumber());
  expect(second).to.not.equal(first);
  return [first, second];
}

beforeEach(async () => {
  sessionStorage.clear();
  await resetFaults();
});

afterEach(async () => {
  for (const wrapper of mounted.splice(0)) wrapper.remove();
  sinon.restore();
  sessionStorage.clear();
  await resetFaults();
});

describe('<pay-checkout>: the amount the shopper sees', () => {
  it('shows the relay’s amount on the waiting screen and the receipt when the page says another, and after a reload', async () => {
    await relayCharges(CHARGED);
    const checkout = await mount();
    const { harness, log } = checkout;
    expect(harness.text).to.contain('Pay GH₵ 45.00', 'the page’s estimate before the create');
    const orderId = await payWith(checkout, freshNumber());
    expect(shownAmount(harness)).to.equal('GH₵ 165.00');
    expect(log.details('pay-created')[0]).to.deep.include({
      orderId,
      amount: CHARGED.amount,
      reference: 'cart-8812',
    });
    await payerAnswers(orderId, 'approve');
    await harness.waitForState('paid');
    expect(harness.text).to.contain('You paid GH₵ 165.00');
    expect(harness.text).to.not.contain('45.00');
    const [paid] = log.details('pay-paid');
    expect(paid?.amount).to.deep.equal(CHARGED.amount);
    expect(paid?.reference).to.equal('cart-8812');
    // The amount and reference stay with the attempt: a reload shows them, whatever the relay says now.
    checkout.el.remove();
    await relayCharges(null);
    const reloaded = await mount({ amount: '100' });
    expect(reloaded.el.state).to.equal('paid');
    expect(reloaded.harness.text).to.contain('You paid GH₵ 165.00');
  });

  it('names the merchant’s reference beside the order id on the receipt, and when it was paid', async () => {
    await relayCharges(CHARGED);
    const checkout = await mount();
    const { harness } = checkout;
    const orderId = await payWith(checkout, freshNumber());
    expect(harness.text).to.contain(`${EN_STRINGS.referenceLabel}cart-8812`, 'on the waiting screen too');
    await payerAnswers(orderId, 'approve');
    await harness.waitForState('paid');
    const terms = [...harness.root.querySelectorAll('dt')].map((term) => term.textContent);
    expect(terms).to.deep.equal([
      EN_STRINGS.orderLabel,
      EN_STRINGS.referenceLabel,
      EN_STRINGS.amountLabel,
      EN_STRINGS.timeLabel,
    ]);
    const values = [...harness.root.querySelectorAll('dd')].map((value) => value.textContent);
    expect(values[0]).to.equal(orderId);
    expect(values[1]).to.equal('cart-8812');
    // The time the relay says it was paid, as the shopper's clock reads it: today, within the minute.
    const [day, time] = String(values[3]).split(', ');
    expect(day).to.equal(new Date().toLocaleDateString('en-GB'));
    expect(time).to.match(/^\d\d:\d\d:\d\d$/);
  });

  it('offers the relay’s amount on the form again after a failure, not the page’s estimate', async () => {
    await relayCharges(CHARGED);
    const checkout = await mount();
    const { harness } = checkout;
    const payLabel = () => harness.submitButton.textContent?.trim().replace(/\s/g, ' ');
    expect(payLabel()).to.equal('Pay GH₵ 45.00');
    const orderId = await payWith(checkout, freshNumber());
    await payerAnswers(orderId, 'decline', 'declined');
    await harness.waitForState('failed');
    harness.button('Try again').click();
    await harness.waitForState('idle');
    expect(payLabel()).to.equal('Pay GH₵ 165.00');
    expect(harness.query('[part~="form"] [part~="amount"]')?.textContent).to.contain('165.00');
  });

  it('shows the relay’s amount on the failure and timeout screens', async () => {
    await relayCharges(CHARGED);
    const declined = await mount();
    const orderId = await payWith(declined, freshNumber());
    await payerAnswers(orderId, 'decline', 'declined');
    await declined.harness.waitForState('failed');
    expect(shownAmount(declined.harness)).to.equal('GH₵ 165.00');
    declined.el.remove();
    sessionStorage.clear();
    const time = timeMover(sinon.useFakeTimers(FAKED));
    const waiting = await mount({ 'poll-timeout': '10000' });
    await payWith(waiting, freshNumber());
    await time.network.settled();
    for (let elapsed = 0; elapsed < 10_000; elapsed += 2_000) await time.advance(2_000);
    await waiting.harness.waitForState('timeout');
    expect(shownAmount(waiting.harness)).to.equal('GH₵ 165.00');
    time.network.restore();
  });

  it('shows the page’s amount with a relay that sends none, and says so in its events', async () => {
    await relayCharges('none');
    const checkout = await mount();
    const orderId = await payWith(checkout, freshNumber());
    expect(shownAmount(checkout.harness)).to.equal('GH₵ 45.00');
    expect(checkout.log.details('pay-created')[0]).to.deep.include({
      amount: { currency: 'ghs', value: 4500 },
      reference: null,
    });
    await payerAnswers(orderId, 'approve');
    await checkout.harness.waitForState('paid');
    expect(checkout.harness.text).to.contain('You paid GH₵ 45.00');
    expect(checkout.log.details('pay-paid')[0]).to.deep.include({
      amount: { currency: 'ghs', value: 4500 },
      reference: null,
    });
  });
});

describe('<pay-checkout>: one checkout, at most one payment', () => {
  it('shows the first number’s receipt when it is paid first: one pay-paid, the second screen stops, decline the other prompt', async () => {
    const time = timeMover(sinon.useFakeTimers(FAKED));
    const checkout = await mount();
    const { el, harness, log } = checkout;
    const [first, second] = await twoOrdersWaiting(checkout);
    await time.network.settled();
    await payerAnswers(first, 'approve');
    await time.advance(2_000);
    await harness.waitForState('paid');
    expect(harness.shownOrderId).to.equal(first);
    expect(log.details('pay-paid').map((paid) => paid.orderId)).to.deep.equal([first]);
    expect(harness.query('[role="timer"]')).to.equal(null, 'the second order’s screen is gone');
    expect(harness.text).to.contain(EN_STRINGS.declineOtherRequest);
    // The second order is still looked up, once an interval, until it settles.
    const lookups = time.network.count('/lookup');
    await time.advance(2_000);
    expect(time.network.count('/lookup')).to.equal(lookups + 1);
    expect(el.state).to.equal('paid');
    // The payer declines the second prompt: the note goes, nothing else happens.
    await payerAnswers(second, 'decline', 'declined');
    await time.advance(2_000);
    expect(harness.text).to.not.contain(EN_STRINGS.declineOtherRequest);
    expect(harness.shownOrderId).to.equal(first);
    expect(log.count('pay-paid')).to.equal(1);
    expect(log.count('pay-failed')).to.equal(0);
    const settled = time.network.count('/lookup');
    await time.advance(10_000);
    expect(time.network.count('/lookup')).to.equal(settled, 'no lookup once every order settled');
    expect(time.clock.countTimers()).to.equal(0);
    time.network.restore();
  });

  it('tells the shopper and the page when both numbers end up paid: both on the receipt, a second pay-paid naming the first', async () => {
    const time = timeMover(sinon.useFakeTimers(FAKED));
    const checkout = await mount();
    const { el, harness, log } = checkout;
    const [first, second] = await twoOrdersWaiting(checkout);
    await time.network.settled();
    await payerAnswers(second, 'approve');
    await time.advance(2_000);
    await harness.waitForState('paid');
    expect(harness.shownOrderId).to.equal(second);
    expect(harness.text).to.contain(EN_STRINGS.declineOtherRequest);
    expect(harness.text).to.not.contain(EN_STRINGS.paidMoreThanOnce);
    await payerAnswers(first, 'approve');
    await time.advance(2_000);
    await el.updateComplete;
    expect(harness.shownOrderId).to.equal(second, 'the first paid stays the receipt');
    const paid = log.details('pay-paid');
    expect(paid.map((detail) => detail.orderId)).to.deep.equal([second, first]);
    expect(paid[0]?.otherPaidOrderIds).to.equal(undefined);
    expect(paid[1]?.otherPaidOrderIds).to.deep.equal([second]);
    // Both amounts, both numbers masked, both ids, and that the shop has been told.
    const told = [...harness.root.querySelectorAll('li')].map((item) =>
      item.textContent?.replace(/\s/g, ' '),
    );
    expect(harness.text).to.contain(EN_STRINGS.paidMoreThanOnce);
    expect(harness.liveRegion.textContent).to.contain(EN_STRINGS.paidMoreThanOnce, 'announced');
    expect(told).to.have.length(2);
    expect(told[0]).to.match(new RegExp(`^GH₵ [\\d.,]+ · 024 ••• \\d{4} · ${second}$`));
    expect(told[1]).to.match(new RegExp(`^GH₵ [\\d.,]+ · 024 ••• \\d{4} · ${first}$`));
    expect(harness.text).to.not.contain(EN_STRINGS.declineOtherRequest, 'no other order is open');
    let axeDone = false;
    const axe = Promise.resolve(expect(el).to.be.accessible()).finally(() => {
      axeDone = true;
    });
    while (!axeDone) await time.clock.tickAsync(20);
    await axe;
    time.network.restore();
    // A reload shows the same receipt, and fires nothing again.
    el.remove();
    const reloaded = await mount();
    expect(reloaded.harness.text).to.contain(EN_STRINGS.paidMoreThanOnce);
    expect(reloaded.log.count('pay-paid')).to.equal(0);
  });

  it('finds the first number paid after a reload with two orders waiting', async () => {
    const checkout = await mount();
    const [first] = await twoOrdersWaiting(checkout);
    checkout.el.remove();
    const reloaded = await mount();
    expect(reloaded.el.state).to.equal('requires_action');
    await payerAnswers(first, 'approve');
    await reloaded.harness.waitForState('paid');
    expect(reloaded.harness.shownOrderId).to.equal(first);
    expect(reloaded.log.details('pay-paid').map((paid) => paid.orderId)).to.deep.equal([first]);
    expect(reloaded.harness.text).to.contain(EN_STRINGS.declineOtherRequest);
  });
});

describe('<pay-checkout>: the timeout screen', () => {
  it('is accessible and offers "Check again", "Use another number" and the network’s USSD menu', async () => {
    const time = timeMover(sinon.useFakeTimers(FAKED));
    const checkout = await mount({ 'poll-timeout': '10000' });
    const { el, harness } = checkout;
    await payWith(checkout, freshNumber());
    await time.network.settled();
    for (let elapsed = 0; elapsed < 10_000; elapsed += 2_000) await time.advance(2_000);
    await harness.waitForState('timeout');
    let axeDone = false;
    const axe = Promise.resolve(expect(el).to.be.accessible()).finally(() => {
      axeDone = true;
    });
    while (!axeDone) await time.clock.tickAsync(20);
    await axe;
    expect(harness.button('Check again')).to.be.ok;
    expect(harness.text).to.contain('*170#');
    // The two actions are apart and of different weight: neither is pressed for the other.
    const check = harness.button('Check again');
    const another = harness.button('Use another number');
    expect(another.getBoundingClientRect().top - check.getBoundingClientRect().bottom).to.be.at.least(12);
    expect(getComputedStyle(another).backgroundColor).to.not.equal(getComputedStyle(check).backgroundColor);
    time.network.restore();
  });

  it('checks again by itself: a payment approved on the timeout screen reaches paid without a click', async () => {
    const time = timeMover(sinon.useFakeTimers(FAKED));
    const checkout = await mount({ 'poll-timeout': '10000' });
    const orderId = await payWith(checkout, freshNumber());
    await time.network.settled();
    for (let elapsed = 0; elapsed < 10_000; elapsed += 2_000) await time.advance(2_000);
    await checkout.harness.waitForState('timeout');
    const lookups = time.network.count('/lookup');
    await time.advance(2_000);
    expect(time.network.count('/lookup')).to.be.at.least(lookups + 1, 'it looks again at the interval');
    expect(checkout.el.state).to.equal('timeout');
    await payerAnswers(orderId, 'approve');
    await time.advance(2_000);
    await checkout.harness.waitForState('paid');
    expect(checkout.log.details('pay-paid').map((paid) => paid.orderId)).to.deep.equal([orderId]);
    checkout.el.remove();
    time.network.restore();
  });

  it('keeps watching the timed-out order after "Use another number", and notices its late approval', async () => {
    const time = timeMover(sinon.useFakeTimers(FAKED));
    const checkout = await mount({ 'poll-timeout': '10000' });
    const { harness, log } = checkout;
    const number = freshNumber();
    const first = await payWith(checkout, number);
    await time.network.settled();
    for (let elapsed = 0; elapsed < 10_000; elapsed += 2_000) await time.advance(2_000);
    await harness.waitForState('timeout');
    await chooseAnotherNumber(checkout, number);
    expect(harness.focused).to.equal(harness.control('number'));
    expect(harness.text).to.contain(EN_STRINGS.earlierRequestOpen);
    await payerAnswers(first, 'approve');
    await time.advance(2_000);
    await harness.waitForState('paid');
    expect(harness.shownOrderId).to.equal(first);
    expect(log.details('pay-paid').map((paid) => paid.orderId)).to.deep.equal([first]);
    time.network.restore();
  });
});

describe('<pay-checkout>: one prompt per number, and "Use another number" asks first', () => {
  it('takes the open order up again when the same number is given again: three tries, one create at the relay', async () => {
    const checkout = await mount();
    const { el, harness, log } = checkout;
    const number = freshNumber();
    const orderId = await payWith(checkout, number);
    for (let again = 0; again < 2; again++) {
      await chooseAnotherNumber(checkout, number);
      await harness.type('number', number);
      await harness.pay();
      await harness.waitForState('requires_action');
      expect(harness.text).to.contain(EN_STRINGS.askedAgain(formatLocalNumber(number)));
    }
    expect(await createsFor(number)).to.have.length(1);
    expect(log.count('pay-submit')).to.equal(1);
    expect(log.count('pay-created')).to.equal(1);
    await payerAnswers(orderId, 'approve');
    await harness.waitForState('paid');
    expect(log.details('pay-paid').map((paid) => paid.orderId)).to.deep.equal([orderId]);
    expect(el.state).to.equal('paid');
  });

  it('asks before "Use another number", accessibly: "Keep waiting" backs out, the keyboard confirms', async () => {
    const checkout = await mount();
    const { el, harness } = checkout;
    const number = freshNumber();
    await payWith(checkout, number);
    harness.button('Use another number').click();
    await el.updateComplete;
    const question = harness.query('#confirm');
    expect(question?.textContent).to.equal(EN_STRINGS.confirmAnother(formatLocalNumber(number)));
    expect(harness.focused).to.equal(question);
    expect(harness.query('[role="group"]')?.getAttribute('aria-labelledby')).to.equal('confirm');
    await expect(el).to.be.accessible();
    harness.button('Keep waiting').click();
    await el.updateComplete;
    expect(harness.query('#confirm')).to.equal(null);
    expect(el.state).to.equal('requires_action');
    expect(harness.focused).to.equal(harness.button('Use another number'));
    // With the keyboard: Enter asks, Tab past "Keep waiting", Enter confirms.
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(harness.focused?.id).to.equal('confirm');
    await sendKeys({ press: 'Tab' });
    expect(harness.focused).to.equal(harness.button('Keep waiting'));
    await sendKeys({ press: 'Tab' });
    expect(harness.focused).to.equal(harness.button('Use another number'));
    await sendKeys({ press: 'Enter' });
    await harness.waitForState('idle');
    expect(harness.focused).to.equal(harness.control('number'));
  });
});

describe('<pay-checkout>: a saved checkout belongs to its cart', () => {
  const CART = { items: [{ product_id: 'kente-tote', quantity: 1 }], gift: false };
  const SAME_CART = { gift: false, items: [{ quantity: 1, product_id: 'kente-tote' }] };
  const NEW_CART = { items: [{ product_id: 'kente-tote', quantity: 2 }], gift: false };

  it('keeps the receipt for the same cart, in any key order, and gives a fresh form for a new cart', async () => {
    const checkout = await mount({}, (el) => {
      el.cart = CART;
    });
    const { el, harness, log } = checkout;
    const orderId = await payWith(checkout, freshNumber());
    await payerAnswers(orderId, 'approve');
    await harness.waitForState('paid');
    el.cart = SAME_CART;
    await el.updateComplete;
    expect(el.state).to.equal('paid');
    // A reload of the same page: the same cart, set again, keeps the receipt.
    el.remove();
    const reloaded = await mount({ 'cart-json': JSON.stringify(SAME_CART) });
    expect(reloaded.el.state).to.equal('paid');
    expect(reloaded.harness.shownOrderId).to.equal(orderId);
    // The same tab opens a new cart, after the receipt is showing.
    reloaded.el.setAttribute('cart-json', JSON.stringify(NEW_CART));
    await reloaded.el.updateComplete;
    expect(reloaded.el.state).to.equal('idle');
    expect(reloaded.harness.form).to.not.equal(null);
    expect(reloaded.log.states).to.deep.equal(['paid', 'idle']);
    expect(sessionStorage.length).to.equal(0);
    expect(log.count('pay-paid')).to.equal(1);
    const next = await payWith(reloaded, freshNumber());
    expect(next).to.not.equal(orderId);
  });

  it('drops nothing until the page sets a cart, and keeps a checkout that may still be paid', async () => {
    const checkout = await mount({}, (el) => {
      el.cart = CART;
    });
    const orderId = await payWith(checkout, freshNumber());
    checkout.el.cart = NEW_CART;
    await checkout.el.updateComplete;
    expect(checkout.el.state).to.equal('requires_action', 'money may still move');
    await payerAnswers(orderId, 'approve');
    await checkout.harness.waitForState('paid');
    checkout.el.remove();
    const unset = await mount();
    expect(unset.el.state).to.equal('paid', 'no cart set yet');
  });
});
