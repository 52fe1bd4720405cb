/**
 * A checkout the shop's server created (`relay.checkouts.create`), paid in a
 * real browser by its client secret against the real relay, on a journal,
 * and the real sandbox: the page sends no cart and states no price. The form
 * shows the checkout's amount and items before any prompt, the create
 * carries the secret, the receipt lists its items; a checkout already paid,
 * expired or unknown is a final error in the relay's words.
 */
import { expect } from '@open-wc/testing';
import '../../src/index.js';
import type { PayCheckout } from '../../src/index.js';
import { eventually } from '../fixtures/wait.js';
import {
  createsFor,
  EventLog,
  freshNumber,
  NetworkWatch,
  ordersFor,
  PayCheckoutHarness,
  payerAnswers,
} from './pay-checkout-harness.js';

/** The relay of server-created checkouts (test/browser/checkout-test-server.ts): no `price-url` needed. */
const RELAY = '/api/server-checkout';
/** Two Kente totes at GH₵ 125.00 each: GH₵ 250.00. */
const TOTAL = 'GH₵ 250.00';

const mounted: HTMLElement[] = [];

/**
 * What the shop's server does before it renders the page: a checkout of
 * `quantity` Kente totes (two by default), and its client secret for the page.
 */
async function checkoutCreatedByTheShop({
  quantity = 2,
  expiresInSeconds,
}: {
  quantity?: number;
  expiresInSeconds?: number;
} = {}): Promise<string> {
  const response = await fetch('/test-server/checkouts', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      lineItems: [{ name: 'Kente tote', quantity, unitPrice: { currency: 'ghs', value: 12_500 } }],
      reference: `order-${crypto.randomUUID().slice(0, 8)}`,
      ...(expiresInSeconds && { expiresInSeconds }),
    }),
  });
  if (!response.ok) throw new Error(`checkout: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { clientSecret: string }).clientSecret;
}

/** The checkout as the shop's page renders it: the client secret and the relay's routes, nothing else. */
async function mount(
  checkout: string,
): Promise<{ el: PayCheckout; harness: PayCheckoutHarness; log: EventLog }> {
  const el = document.createElement('pay-checkout');
  el.setAttribute('checkout', checkout);
  el.setAttribute('create-url', `${RELAY}/orders`);
  el.setAttribute('lookup-url', `${RELAY}/lookup`);
  const log = new EventLog(el);
  document.body.append(el);
  mounted.push(el);
  await el.updateComplete;
  return { el, harness: new PayCheckoutHarness(el), log };
}

/** The Pay button's text, whitespace collapsed. */
function buttonText(harness: PayCheckoutHarness): string {
  return (harness.submitButton.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Pays `checkout` from a fresh number, the payer approving: the checkout is paid, its receipt on screen. */
async function pay(checkout: string): Promise<PayCheckout> {
  const { el, harness } = await mount(checkout);
  await eventually('the checkout’s amount on the button', () => buttonText(harness) === `Pay ${TOTAL}`);
  const number = freshNumber();
  await harness.fill(number);
  await harness.pay();
  await harness.waitForState('requires_action');
  await payerAnswers(String((await ordersFor(number))[0]), 'approve');
  await harness.waitForState('paid');
  return el;
}

/** Pays `checkout` in a checkout of its own, which then goes with its saved attempt. */
async function payInFull(checkout: string): Promise<void> {
  (await pay(checkout)).remove();
  sessionStorage.clear();
}

/** Sends the form from a fresh number and waits for the error screen: the relay refused the checkout. */
async function refused(
  checkout: string,
): Promise<{ el: PayCheckout; harness: PayCheckoutHarness; log: EventLog; number: string }> {
  const mountedCheckout = await mount(checkout);
  const number = freshNumber();
  await mountedCheckout.harness.fill(number);
  await mountedCheckout.harness.pay();
  await mountedCheckout.harness.waitForState('error');
  return { ...mountedCheckout, number };
}

beforeEach(() => sessionStorage.clear());
afterEach(() => {
  for (const el of mounted.splice(0)) el.remove();
  sessionStorage.clear();
});

describe('<pay-checkout checkout>', () => {
  it('shows the checkout’s amount and items before any prompt, sends its client secret and no cart, and lists its items on the receipt', async () => {
    const checkout = await checkoutCreatedByTheShop();
    const { el, harness, log } = await mount(checkout);
    await eventually('the checkout’s amount on the button', () => buttonText(harness) === `Pay ${TOTAL}`);
    expect(harness.text, 'its items on the form').to.contain('Kente tote × 2');
    await expect(el).to.be.accessible();
    const number = freshNumber();
    await harness.fill(number);
    await harness.pay();
    await harness.waitForState('requires_action');
    const intent = log.details('pay-submit')[0]?.intent as Record<string, unknown>;
    expect(intent.checkout).to.equal(checkout);
    expect(intent).not.to.have.property('cart');
    expect(intent.expected_amount).to.deep.equal({ currency: 'ghs', value: 25_000 });
    const [orderId] = await ordersFor(number);
    await payerAnswers(String(orderId), 'approve');
    await harness.waitForState('paid');
    expect(harness.text).to.contain('Kente tote × 2');
    expect(harness.text).to.contain(TOTAL);
    expect(log.details('pay-paid')[0]?.reference).to.match(/^order-/);
    await expect(el).to.be.accessible();
  });

  it('after a reload, keeps the receipt of the same checkout, and shows a fresh form for another', async () => {
    const checkout = await checkoutCreatedByTheShop();
    (await pay(checkout)).remove();
    const again = await mount(checkout);
    expect(again.el.state).to.equal('paid', 'the same client secret: its receipt');
    expect(again.harness.text).to.contain('Kente tote × 2');
    again.el.remove();
    const { el, harness } = await mount(await checkoutCreatedByTheShop({ quantity: 1 }));
    expect(el.state).to.equal('idle', 'another checkout: a fresh form');
    await eventually('the other checkout’s amount', () => buttonText(harness) === 'Pay GH₵ 125.00');
    expect(sessionStorage.length, 'the receipt of the paid checkout is forgotten').to.equal(0);
  });

  it('a new attempt for a checkout already paid: the relay’s message, pay-error checkout_paid, sent once', async () => {
    const checkout = await checkoutCreatedByTheShop();
    await payInFull(checkout);
    const { el, harness, log, number } = await refused(checkout);
    expect(harness.text).to.contain('This checkout is already paid.');
    expect(log.details('pay-error')).to.deep.equal([
      { code: 'checkout_paid', message: 'This checkout is already paid.', retryable: false },
    ]);
    expect((await createsFor(number)).map((create) => create.status)).to.deep.equal([409]);
    expect(await ordersFor(number), 'no prompt').to.deep.equal([]);
    await expect(el).to.be.accessible();
  });

  it('a checkout that expired: the relay’s message, pay-error checkout_expired, sent once', async () => {
    const checkout = await checkoutCreatedByTheShop({ expiresInSeconds: 300 });
    const { harness } = await mount(checkout);
    await eventually('the checkout’s amount on the button', () => buttonText(harness) === `Pay ${TOTAL}`);
    mounted.pop()?.remove();
    // The shopper comes back after the checkout's five minutes.
    await fetch('/test-server/checkout-clock', {
      method: 'POST',
      body: JSON.stringify({ aheadMs: 301_000 }),
    });
    const { el, harness: later, log, number } = await refused(checkout);
    const [error] = log.details('pay-error');
    expect(error).to.include({ code: 'checkout_expired', retryable: false });
    expect(later.text).to.contain(String(error?.message));
    expect((await createsFor(number)).map((create) => create.status)).to.deep.equal([409]);
    await expect(el).to.be.accessible();
  });

  it('an unknown client secret: the relay’s message, pay-error checkout_not_found, sent once', async () => {
    const { el, harness, log, number } = await refused(`cs_${'Q'.repeat(24)}_secret_${'z'.repeat(43)}`);
    const [error] = log.details('pay-error');
    expect(error).to.include({ code: 'checkout_not_found', retryable: false });
    expect(harness.text).to.contain(String(error?.message));
    expect((await createsFor(number)).map((create) => create.status)).to.deep.equal([404]);
    await expect(el).to.be.accessible();
  });

  it('refuses a secret key given as the checkout, and sends nothing', async () => {
    const network = new NetworkWatch();
    const { el, harness, log } = await mount('sk_live_0123456789');
    expect(el.state).to.equal('error');
    expect(harness.text).not.to.contain('sk_live_');
    expect(log.details('pay-error')[0]).to.include({ code: 'secret_key_exposed', retryable: false });
    expect(network.urls).to.have.length(0);
    network.restore();
  });
});
