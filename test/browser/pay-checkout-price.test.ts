/**
 * The price before the prompt, in a real browser against the real relay
 * (the amount the shopper sees): with `price-url`, the Pay
 * button shows the relay's amount, not the page's placeholder; the receipt
 * lists the items the relay priced; and a create whose amount the relay now
 * prices otherwise is refused before any prompt, the button showing the new
 * amount, and Pay works again.
 */
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import '../../src/index.js';
import type { PayCheckout } from '../../src/index.js';
import { eventually } from '../fixtures/wait.js';
import {
  createsFor,
  EventLog,
  freshNumber,
  ordersFor,
  PayCheckoutHarness,
  payerAnswers,
} from './pay-checkout-harness.js';

const PRICE_URL = '/api/checkout/price';
/** The test shop prices any cart at one Kente tote, GH₵ 50.00 (test/fixtures/checkout-data.ts). */
const RELAY_PRICE = 'GH₵ 50.00';

const mounted: HTMLElement[] = [];

/** A checkout with `price-url`, a cart and the page's placeholder amount GH₵ 1.00. */
async function mount(): Promise<{ el: PayCheckout; harness: PayCheckoutHarness; log: EventLog }> {
  const el = document.createElement('pay-checkout');
  const attributes = {
    'create-url': '/api/checkout/orders',
    'lookup-url': '/api/checkout/lookup',
    'price-url': PRICE_URL,
    amount: '100',
    'cart-json': JSON.stringify({ items: [{ sku: 'tote', quantity: 1 }] }),
  };
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
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

beforeEach(() => sessionStorage.clear());
afterEach(() => {
  for (const el of mounted.splice(0)) el.remove();
  sinon.restore();
  sessionStorage.clear();
});

describe('<pay-checkout price-url>', () => {
  it('asks the relay for no price once it is off the page, and does while it is on it', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fetched = sinon.spy(window, 'fetch');
    const asked = () => fetched.getCalls().filter((call) => String(call.args[0]).endsWith(PRICE_URL)).length;
    const removed = await mount();
    removed.el.remove();
    await clock.tickAsync(5_000);
    expect(asked(), 'removed before its price was asked').to.equal(0);
    await mount();
    await clock.tickAsync(5_000);
    expect(asked(), 'on the page').to.equal(1);
  });

  it('shows the relay’s amount on the Pay button, sends it as expected_amount, and lists the items on the receipt', async () => {
    const { harness, log } = await mount();
    await eventually('the relay’s price on the button', () => buttonText(harness) === `Pay ${RELAY_PRICE}`);
    const number = freshNumber();
    await harness.fill(number);
    await harness.pay();
    await harness.waitForState('requires_action');
    const intent = log.details('pay-submit')[0]?.intent as { expected_amount?: unknown };
    expect(intent.expected_amount).to.deep.equal({ currency: 'ghs', value: 5_000 });
    const [orderId] = await ordersFor(number);
    await payerAnswers(String(orderId), 'approve');
    await harness.waitForState('paid');
    expect(harness.text).to.contain('Kente tote × 1');
    expect(harness.text).to.contain(RELAY_PRICE);
  });

  it('on a price the relay changed: no prompt, the new amount and a note, pay-error amount_changed, and Pay again works', async () => {
    // The page is shown an older price: the price answer says GH₵ 2.00 where the relay now charges GH₵ 50.00.
    const realFetch = window.fetch.bind(window);
    sinon.stub(window, 'fetch').callsFake(async (input, init) => {
      const response = await realFetch(input, init);
      if (!String(input).endsWith('/price')) return response;
      const answer = await response.json();
      return new Response(JSON.stringify({ ...answer, amount: { currency: 'ghs', value: 200 } }), {
        headers: { 'Content-Type': 'application/json' },
      });
    });
    const { el, harness, log } = await mount();
    await eventually('the older price on the button', () => buttonText(harness) === 'Pay GH₵ 2.00');
    const number = freshNumber();
    await harness.fill(number);
    await harness.pay();
    await eventually(
      'the relay’s new price on the button',
      () => buttonText(harness) === `Pay ${RELAY_PRICE}`,
    );
    expect(el.state).to.equal('idle');
    expect(harness.text).to.contain('The price changed');
    expect(log.details('pay-error')).to.deep.equal([
      { code: 'amount_changed', message: String(log.details('pay-error')[0]?.message), retryable: true },
    ]);
    expect(await ordersFor(number), 'no prompt was sent').to.deep.equal([]);
    await harness.pay();
    await harness.waitForState('requires_action');
    expect((await createsFor(number)).map((create) => create.status)).to.deep.equal([409, 200]);
    expect(harness.text).not.to.contain('The price changed');
  });
});
