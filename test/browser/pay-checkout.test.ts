/**
 * `<pay-checkout>` in real Chromium, Firefox and WebKit (one at a time,
 * web-test-runner.config.mjs) against the real relay and the real
 * sandbox (test/browser/checkout-test-server.ts), loaded through the npm
 * entry (`src/index.ts`, French on demand). One `describe` per state, the
 * accessibility check first in each. The sandbox's payers never answer on
 * their own: a test that needs `paid` or `failed` answers for them, so no
 * state depends on timing.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import sinon from 'sinon';
import { formatLocalNumber } from '../../src/element/checkout-form.js';
import { FR_STRINGS } from '../../src/element/locale/fr.js';
import { EN_STRINGS, type PayCheckout } from '../../src/index.js';
import { CUSTOMER_NAME, LOCAL_NUMBER, SOLD_OUT_MESSAGE, SOLD_OUT_SKU } from '../fixtures/checkout-data.js';
import { eventually } from '../fixtures/wait.js';
import {
  armFaults,
  createOrderThroughRelay,
  createsFor,
  DECLINES,
  EventLog,
  freshNumber,
  NEVER_ANSWERS,
  NetworkWatch,
  ordersFor,
  PayCheckoutHarness,
  payerAnswers,
  realWait,
  resetFaults,
  STATE_WAIT_MS,
  typeKeys,
} from './pay-checkout-harness.js';
import { openPhoneScreen, withPhoneSetting } from './phone-settings.js';

const CREATE_URL = '/api/checkout/orders';
const LOOKUP_URL = '/api/checkout/lookup';

interface Mounted {
  el: PayCheckout;
  harness: PayCheckoutHarness;
  log: EventLog;
}

const mounted: HTMLElement[] = [];

/**
 * Mounts a checkout with the contract's attributes (overridable); `setup`
 * runs before it is connected, so listeners and properties see everything.
 */
async function mount(
  attributes: Record<string, string | null> = {},
  setup?: (el: PayCheckout) => void,
  parent: HTMLElement = document.body,
): Promise<Mounted> {
  const el = document.createElement('pay-checkout');
  const all = { 'create-url': CREATE_URL, 'lookup-url': LOOKUP_URL, amount: '5000', ...attributes };
  for (const [name, value] of Object.entries(all)) if (value !== null) el.setAttribute(name, value);
  const log = new EventLog(el);
  setup?.(el);
  const wrapper = document.createElement('div');
  wrapper.append(el);
  parent.append(wrapper);
  mounted.push(wrapper);
  await el.updateComplete;
  return { el, harness: new PayCheckoutHarness(el), log };
}

/** The order the sandbox created for `number` (one per fresh number). */
async function orderFor(number: string): Promise<string> {
  const [orderId] = await ordersFor(number);
  if (!orderId) throw new Error(`No order for ${number}.`);
  return orderId;
}

/** Mounts, fills with `number` and pays; resolves once the order waits for the payer. */
async function payAndWait(
  number: string,
  attributes: Record<string, string | null> = {},
): Promise<Mounted & { orderId: string }> {
  const checkout = await mount(attributes);
  await checkout.harness.fill(number);
  await checkout.harness.pay();
  await checkout.harness.waitForState('requires_action');
  const orderId = String(checkout.log.details('pay-created')[0]?.orderId);
  return { ...checkout, orderId };
}

/** Advances a fake clock and lets the real network and the element catch up. */
async function advance(clock: sinon.SinonFakeTimers, network: NetworkWatch, ms: number): Promise<void> {
  await clock.tickAsync(ms);
  await network.settled();
  await clock.tickAsync(0);
}

/**
 * The accessibility check, also under a fake clock: axe schedules its work
 * with timers, so the clock is ticked until the check is done.
 */
async function expectAccessible(el: Element, clock?: sinon.SinonFakeTimers): Promise<void> {
  let done = false;
  const check = Promise.resolve(expect(el).to.be.accessible()).finally(() => {
    done = true;
  });
  while (clock && !done) await clock.tickAsync(20);
  await check;
}

function setVisibility(state: 'hidden' | 'visible'): void {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}

/** What the live region says now, whitespace collapsed. */
function announced(harness: PayCheckoutHarness): string {
  return (harness.liveRegion.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function setOnline(online: boolean): void {
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
  window.dispatchEvent(new Event(online ? 'online' : 'offline'));
}

beforeEach(async () => {
  sessionStorage.clear();
  await resetFaults();
});

afterEach(async () => {
  for (const wrapper of mounted.splice(0)) wrapper.remove();
  // Back to the real page state, whatever a test stubbed.
  delete (document as unknown as Record<string, unknown>).visibilityState;
  delete (navigator as unknown as Record<string, unknown>).onLine;
  sinon.restore();
  sessionStorage.clear();
});

describe('<pay-checkout>', () => {
  it('is accessible, in light and dark, and fits a 320 px phone', async () => {
    const { el } = await mount();
    await expect(el).to.be.accessible();
    await withPhoneSetting(el, 'dark', async () => {
      await expect(el).to.be.accessible();
      expect(getComputedStyle(el).backgroundColor).to.equal('rgb(23, 24, 27)');
    });
    const phone = await openPhoneScreen(320, 640);
    try {
      expect(phone.document.documentElement.clientWidth).to.equal(320);
      expect(phone.element.getBoundingClientRect().width).to.be.at.most(320);
      expect(phone.document.documentElement.scrollWidth).to.be.at.most(320);
      expect(await phone.axeViolations()).to.deep.equal([]);
    } finally {
      phone.close();
    }
  });

  it('reflects its state, and undoes a page writing it', async () => {
    const { el } = await mount();
    expect(el.getAttribute('state')).to.equal('idle');
    el.setAttribute('state', 'paid');
    await el.updateComplete;
    expect(el.state).to.equal('idle');
    expect(el.getAttribute('state')).to.equal('idle');
  });

  it('registers once, and a second copy of the module is harmless', async () => {
    const PayCheckoutClass = customElements.get('pay-checkout');
    await import(`../../src/element/pay-checkout.ts?copy=${Date.now()}`);
    expect(customElements.get('pay-checkout')).to.equal(PayCheckoutClass);
  });

  describe('when idle', () => {
    it('is accessible, with a real label on every control', async () => {
      const { el, harness } = await mount();
      await expect(el).to.be.accessible();
      for (const name of ['customer_name', 'number', 'issuer'] as const) {
        const control = harness.control(name as 'issuer');
        expect(harness.query(`label[for="${control.id}"]`)?.textContent?.trim()).to.not.equal('');
      }
    });

    it('shows the amount in the button and the summary: Pay GH₵ 50.00', async () => {
      const { harness } = await mount();
      expect(harness.submitButton.type).to.equal('submit');
      expect(harness.submitButton.textContent?.replace(/\s+/g, ' ').trim()).to.equal('Pay GH₵ 50.00');
      expect(harness.query('[part~="amount"]')?.textContent?.replace(/\s+/g, ' ')).to.contain('GH₵ 50.00');
    });

    it('names its controls customer_name, number and issuer, and exposes the contract parts', async () => {
      const { harness } = await mount();
      expect(harness.control('customer_name').tagName).to.equal('INPUT');
      expect(harness.control('number').type).to.equal('tel');
      expect(harness.control('issuer').tagName).to.equal('SELECT');
      for (const part of ['form', 'field', 'label', 'input', 'issuer', 'submit', 'error', 'amount']) {
        expect(harness.query(`[part~="${part}"]`), part).to.not.equal(null);
      }
    });

    it('detects the network as the number is typed, in any of its forms', async () => {
      const { harness } = await mount();
      const cases: [string, string][] = [
        ['024 123 4567', 'mtn'],
        ['+233 20 123 4567', 'telecel'],
        ['233571234567', 'at'],
        ['0551234567', 'mtn'],
        ['02', ''],
      ];
      for (const [typed, issuer] of cases) {
        await harness.type('number', typed);
        expect(harness.control('issuer').value, typed).to.equal(issuer);
      }
    });

    it('keeps the network the shopper chose, since numbers move between networks', async () => {
      const { harness } = await mount();
      await harness.type('number', LOCAL_NUMBER);
      await harness.choose('telecel');
      await harness.type('number', '0261234567');
      expect(harness.control('issuer').value).to.equal('telecel');
    });

    it('offers only the networks the issuers attribute allows', async () => {
      const { harness } = await mount({ issuers: 'mtn,telecel' });
      const options = [...harness.control('issuer').options].map((option) => option.value);
      expect(options).to.deep.equal(['', 'mtn', 'telecel']);
      await harness.type('number', '0261234567');
      expect(harness.control('issuer').value).to.equal('');
      const single = await mount({ issuers: 'at' });
      expect(single.harness.control('issuer').value).to.equal('at');
    });

    it('normalises the number: local form for the payment, +233 form for the customer', async () => {
      const number = freshNumber();
      const { harness, log } = await mount();
      await harness.type('customer_name', `  ${CUSTOMER_NAME} `);
      await harness.type('number', `+233 ${number.slice(1, 3)} ${number.slice(3, 6)} ${number.slice(6)}`);
      // Leaving the field shows it the way it is read out.
      expect(harness.control('number').value).to.equal(
        `${number.slice(0, 3)} ${number.slice(3, 6)} ${number.slice(6)}`,
      );
      await harness.pay();
      expect(log.details('pay-submit')[0]?.intent).to.deep.equal({
        customer_data: { name: CUSTOMER_NAME, phone_number: `+233${number.slice(1)}` },
        payment_method_data: { type: 'mobile_money', mobile_money: { issuer: 'mtn', number } },
        cart: null,
      });
    });

    it('prefills from customer-name and phone', async () => {
      const { harness } = await mount({ 'customer-name': 'Kofi', phone: '0201234567' });
      expect(harness.control('customer_name').value).to.equal('Kofi');
      expect(harness.control('number').value).to.equal('0201234567');
      expect(harness.control('issuer').value).to.equal('telecel');
    });

    it('sends nothing until the form is valid, ties each message to its field and focuses the first', async () => {
      const network = new NetworkWatch();
      const { el, harness } = await mount();
      await harness.pay();
      expect(el.state).to.equal('idle');
      expect(network.count('/orders')).to.equal(0);
      expect(harness.fieldError('customer_name')).to.equal('Enter your name.');
      expect(harness.fieldError('number')).to.equal('Enter your mobile money number.');
      expect(harness.fieldError('issuer')).to.equal('Choose your network.');
      for (const name of ['customer_name', 'number', 'issuer'] as const) {
        expect(harness.control(name as 'issuer').getAttribute('aria-invalid')).to.equal('true');
      }
      expect(harness.focused).to.equal(harness.control('customer_name'));
      await expect(el).to.be.accessible();
      await withPhoneSetting(el, 'dark', () => expect(el).to.be.accessible());
      // Fixing a field clears its message as the shopper types.
      await harness.type('customer_name', 'Ama');
      expect(harness.fieldError('customer_name')).to.equal('');
      expect(harness.control('customer_name').getAttribute('aria-invalid')).to.equal('false');
      await harness.type('number', '0301234567');
      expect(harness.fieldError('number')).to.equal('Enter a Ghana mobile money number, like 024 123 4567.');
      await harness.type('number', LOCAL_NUMBER);
      expect(harness.fieldError('number')).to.equal('');
      expect(harness.fieldError('issuer')).to.equal('');
      network.restore();
    });

    it('shows a new error only once the shopper leaves the field', async () => {
      const { harness } = await mount();
      const number = harness.control('number');
      number.focus();
      number.value = '02';
      number.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
      await harness.element.updateComplete;
      expect(harness.fieldError('number')).to.equal('');
      number.blur();
      await harness.element.updateComplete;
      expect(harness.fieldError('number')).to.contain('Ghana mobile money number');
    });

    it('sends nothing when a pay-submit listener cancels', async () => {
      const network = new NetworkWatch();
      const number = freshNumber();
      const { el, harness } = await mount({}, (element) =>
        element.addEventListener('pay-submit', (event) => event.preventDefault()),
      );
      await harness.fill(number);
      await harness.pay();
      await realWait(100);
      expect(el.state).to.equal('idle');
      expect(network.count('/orders')).to.equal(0);
      expect(await createsFor(number)).to.have.length(0);
      network.restore();
    });

    it('pays with the keyboard alone: Tab through the fields, Enter to pay', async () => {
      const number = freshNumber();
      const { el, harness } = await mount();
      (document.activeElement as HTMLElement | null)?.blur();
      await sendKeys({ press: 'Tab' });
      expect(harness.focused).to.equal(harness.control('customer_name'));
      await typeKeys(CUSTOMER_NAME);
      await sendKeys({ press: 'Tab' });
      expect(harness.focused).to.equal(harness.control('number'));
      await typeKeys(number);
      await sendKeys({ press: 'Tab' });
      expect(harness.focused).to.equal(harness.control('issuer'));
      expect(harness.control('issuer').value).to.equal('mtn');
      await sendKeys({ press: 'Tab' });
      expect(harness.focused).to.equal(harness.submitButton);
      await sendKeys({ press: 'Enter' });
      await harness.waitForState('requires_action');
      // Focus follows to the new screen's heading, then on to its button.
      expect(harness.focused).to.equal(harness.heading);
      await sendKeys({ press: 'Tab' });
      expect(harness.focused?.textContent?.trim()).to.equal('Use another number');
      expect(el.state).to.equal('requires_action');
    });

    it('does nothing while disabled', async () => {
      const { el, harness } = await mount({ disabled: '' });
      expect(harness.query('fieldset')?.hasAttribute('disabled')).to.equal(true);
      await el.submit();
      expect(el.state).to.equal('idle');
    });
  });

  describe('when submitting', () => {
    it('is accessible, with a busy button and an announcement', async () => {
      // A failing gateway keeps the element submitting while it backs off.
      await armFaults({ failCreates: 10 });
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { el, harness } = await mount();
      await harness.fill(freshNumber());
      await harness.pay();
      await network.settled();
      expect(el.state).to.equal('submitting');
      expect(harness.submitButton.getAttribute('aria-busy')).to.equal('true');
      expect(harness.liveRegion.textContent?.trim()).to.equal('Sending your payment request…');
      await expectAccessible(el, clock);
      const spinner = harness.query('.spinner') as HTMLElement;
      expect(getComputedStyle(spinner).animationName).to.equal('spin');
      await withPhoneSetting(el, 'reduced-motion', () =>
        expect(getComputedStyle(spinner).animationName).to.equal('none'),
      );
      network.restore();
      clock.restore();
    });

    it('sends one create for a double click, Enter held down and a second submit()', async () => {
      const number = freshNumber();
      const { el, harness, log } = await mount();
      await harness.fill(number);
      harness.submitButton.click();
      harness.submitButton.click();
      void el.submit();
      void el.submit();
      harness.control('number').focus();
      await sendKeys({ press: 'Enter' });
      await sendKeys({ press: 'Enter' });
      await harness.waitForState('requires_action');
      await realWait(100);
      expect(await createsFor(number)).to.have.length(1);
      expect(await ordersFor(number)).to.have.length(1);
      expect(log.count('pay-submit')).to.equal(1);
      expect(log.count('pay-created')).to.equal(1);
    });

    it('retries a lost create answer with the same key: one order', async () => {
      const number = freshNumber();
      await armFaults({ dropCreateAnswers: 1 });
      const { harness, log } = await mount();
      await harness.fill(number);
      await harness.pay();
      await harness.waitForState('requires_action');
      const creates = await createsFor(number);
      expect(creates).to.have.length(2);
      expect(creates[0]?.dropped).to.equal(true);
      expect(creates[1]?.idempotencyKey).to.equal(creates[0]?.idempotencyKey);
      expect(creates[0]?.idempotencyKey).to.match(/^[A-Za-z0-9_-]{16,255}$/);
      const orders = await ordersFor(number);
      expect(orders).to.have.length(1);
      expect(log.details('pay-created')).to.deep.equal([
        {
          orderId: orders[0],
          status: 'requires_payment',
          paymentStatus: 'requires_action',
          amount: { currency: 'ghs', value: 5000 },
          reference: null,
        },
      ]);
    });

    it('shows the field the relay refused (400 with param), and uses a new key next time', async () => {
      const number = freshNumber();
      await armFaults({ blankNextCreateName: 1 });
      const { el, harness, log } = await mount();
      await harness.fill(number);
      await harness.pay();
      await harness.waitForState('idle');
      expect(harness.fieldError('customer_name')).to.equal('The shop could not accept this name.');
      expect(harness.control('customer_name').getAttribute('aria-invalid')).to.equal('true');
      expect(harness.focused).to.equal(harness.control('customer_name'));
      expect(log.count('pay-error')).to.equal(0);
      await expect(el).to.be.accessible();
      await harness.type('customer_name', CUSTOMER_NAME);
      await harness.pay();
      await harness.waitForState('requires_action');
      const creates = await createsFor(number);
      expect(creates.map((record) => record.status)).to.deep.equal([400, 200]);
      expect(creates[1]?.idempotencyKey).to.not.equal(creates[0]?.idempotencyKey);
      expect(await ordersFor(number)).to.have.length(1);
    });
  });

  describe('when requires_action', () => {
    it('is accessible, asks for approval, gives the network’s USSD fallback and a countdown', async () => {
      const number = freshNumber();
      const { el, harness } = await payAndWait(number);
      await expect(el).to.be.accessible();
      expect(harness.headingText).to.equal('Approve the prompt on your phone');
      // The region says where the prompt went; the heading is read as focus moves to it, not twice.
      expect(announced(harness)).to.equal(
        `We sent a payment request to ${formatLocalNumber(number)} (MTN). Enter your PIN on the phone to approve it.`,
      );
      expect(harness.text).to.contain('*170#');
      expect(harness.query('[role="timer"]')?.textContent).to.match(/Time left: [56]:\d\d/);
      expect(harness.button('Use another number')).to.exist;
    });

    it('counts down to the timeout', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { harness } = await payAndWait(NEVER_ANSWERS, { 'poll-timeout': '120000' });
      expect(harness.query('[role="timer"]')?.textContent).to.contain('2:00');
      await advance(clock, network, 61_000);
      expect(harness.query('[role="timer"]')?.textContent).to.contain('0:59');
      network.restore();
      clock.restore();
    });

    it('polls one lookup at a time, every poll-interval (clamped to 2–5 s)', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      await payAndWait(NEVER_ANSWERS, { 'poll-interval': '500' });
      await network.settled();
      // One lookup as soon as the order exists.
      expect(network.count('/lookup')).to.equal(1);
      await advance(clock, network, 1_999);
      expect(network.count('/lookup')).to.equal(1);
      await advance(clock, network, 1);
      expect(network.count('/lookup')).to.equal(2);
      await advance(clock, network, 2_000);
      expect(network.count('/lookup')).to.equal(3);
      network.restore();
      clock.restore();
    });

    it('backs off while lookups fail, says so, and recovers', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { harness, orderId } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      await armFaults({ failLookups: 3 });
      await advance(clock, network, 3_000);
      expect(network.count('/lookup')).to.equal(2);
      expect(harness.text).to.contain('Connection trouble. Still checking.');
      // The next try waits longer than the interval: 3 s doubled, with jitter (3–6 s).
      await advance(clock, network, 2_900);
      expect(network.count('/lookup')).to.equal(2);
      await advance(clock, network, 3_200);
      expect(network.count('/lookup')).to.equal(3);
      await advance(clock, network, 12_000);
      await advance(clock, network, 24_000);
      await payerAnswers(orderId, 'approve');
      await advance(clock, network, 30_000);
      await harness.waitForState('paid');
      network.restore();
      clock.restore();
    });

    it('pauses while the page is hidden and looks at once when it is back', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { harness, orderId } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      setVisibility('hidden');
      await advance(clock, network, 30_000);
      expect(network.count('/lookup')).to.equal(1);
      expect(clock.countTimers()).to.equal(1); // the countdown only
      await payerAnswers(orderId, 'approve');
      setVisibility('visible');
      await network.settled();
      expect(network.count('/lookup')).to.equal(2);
      await harness.waitForState('paid');
      network.restore();
      clock.restore();
    });

    it('pauses while offline, tells the shopper, and looks at once when online', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { el, harness, orderId } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      const waiting = announced(harness);
      const touched = new Set<Node>();
      const region = harness.liveRegion;
      const listener = new MutationObserver((records) => {
        for (const record of records) {
          if (record.type === 'characterData') touched.add(record.target);
          for (const node of record.addedNodes) touched.add(node);
        }
      });
      listener.observe(region, { childList: true, subtree: true, characterData: true });
      setOnline(false);
      await el.updateComplete;
      expect(harness.text).to.contain('You are offline.');
      // Announced once, as a node of its own: the waiting message is not said again.
      listener.disconnect();
      expect([...touched].map((node) => node.textContent?.trim())).to.deep.equal([EN_STRINGS.offline]);
      expect(announced(harness)).to.equal(`${waiting} ${EN_STRINGS.offline}`);
      await advance(clock, network, 30_000);
      expect(network.count('/lookup')).to.equal(1);
      await payerAnswers(orderId, 'approve');
      setOnline(true);
      await network.settled();
      expect(network.count('/lookup')).to.equal(2);
      await harness.waitForState('paid');
      network.restore();
      clock.restore();
    });

    it('stops polling on disconnect, and leaves no timer behind', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { el } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      el.remove();
      expect(clock.countTimers()).to.equal(0);
      await advance(clock, network, 60_000);
      expect(network.count('/lookup')).to.equal(1);
      network.restore();
      clock.restore();
    });

    it('starts a new attempt on "Use another number", keeping what was typed', async () => {
      const number = freshNumber();
      const { el, harness, log } = await payAndWait(number);
      // The question first (the earlier request may still be paid), then the confirmation.
      harness.button('Use another number').click();
      await el.updateComplete;
      harness.button('Use another number').click();
      await harness.waitForState('idle');
      expect(harness.control('number').value.replace(/\s/g, '')).to.equal(number);
      expect(harness.focused).to.equal(harness.control('number'));
      expect(harness.text).to.contain('If the earlier request reaches the other phone, decline it there.');
      const second = freshNumber();
      await harness.type('number', second);
      await harness.pay();
      await harness.waitForState('requires_action');
      const [first] = await createsFor(number);
      const [next] = await createsFor(second);
      expect(next?.idempotencyKey).to.not.equal(first?.idempotencyKey);
      expect(log.count('pay-submit')).to.equal(2);
      expect(el.state).to.equal('requires_action');
    });
  });

  describe('when paid', () => {
    it('is accessible, shows a receipt, moves focus to its heading and announces it', async () => {
      const number = freshNumber();
      const { el, harness } = await mount();
      await harness.fill(number);
      await harness.pay();
      await harness.waitForState('requires_action');
      const orderId = await orderFor(number);
      await payerAnswers(orderId, 'approve');
      await harness.waitForState('paid', 10_000);
      await expect(el).to.be.accessible();
      expect(harness.headingText).to.equal('Payment received');
      expect(harness.focused).to.equal(harness.heading);
      expect(announced(harness)).to.equal('Thank you. You paid GH₵ 50.00.');
      expect(harness.shownOrderId).to.equal(orderId);
      expect(harness.text).to.contain('You paid GH₵ 50.00');
      expect(harness.query('[part~="status"] [part~="amount"]')?.textContent?.replace(/\s/g, ' ')).to.equal(
        'GH₵ 50.00',
      );
    });

    it('fires each event once, in order, with the documented details', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { el, harness, log, orderId } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      await payerAnswers(orderId, 'approve');
      await advance(clock, network, 3_000);
      await harness.waitForState('paid');
      // More time, a reconnect: nothing fires again.
      await advance(clock, network, 60_000);
      const parent = el.parentElement as HTMLElement;
      el.remove();
      parent.append(el);
      await advance(clock, network, 60_000);
      expect(log.events.map((event) => event.type)).to.deep.equal([
        'pay-submit',
        'pay-state-change',
        'pay-created',
        'pay-state-change',
        'pay-requires-action',
        'pay-state-change',
        'pay-paid',
      ]);
      expect(log.states).to.deep.equal(['idle', 'submitting', 'requires_action', 'paid']);
      expect(log.details('pay-requires-action')).to.deep.equal([{ orderId }]);
      const paid = log.details('pay-paid')[0] as { orderId: string; order: Record<string, unknown> };
      expect(paid.orderId).to.equal(orderId);
      expect(paid.order).to.include({ id: orderId, status: 'completed' });
      expect(paid.order.payment).to.deep.equal({ status: 'paid' });
      expect(paid.order.completed_at).to.be.a('string');
      network.restore();
      clock.restore();
    });

    it('does not poll after paid, and leaves no timer behind', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { harness, orderId } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      await payerAnswers(orderId, 'approve');
      await advance(clock, network, 3_000);
      await harness.waitForState('paid');
      const lookups = network.count('/lookup');
      expect(clock.countTimers()).to.equal(0);
      await advance(clock, network, 120_000);
      expect(network.count('/lookup')).to.equal(lookups);
      network.restore();
      clock.restore();
    });

    it('shows the receipt again after a reload, and fires nothing new', async () => {
      const number = freshNumber();
      const first = await mount();
      await first.harness.fill(number);
      await first.harness.pay();
      await first.harness.waitForState('requires_action');
      const orderId = await orderFor(number);
      await payerAnswers(orderId, 'approve');
      await first.harness.waitForState('paid', 10_000);
      first.el.remove();
      // A reload: a new element with the same create-url finds the stored attempt.
      const network = new NetworkWatch();
      const reloaded = await mount();
      expect(reloaded.el.state).to.equal('paid');
      expect(reloaded.harness.shownOrderId).to.equal(orderId);
      expect(reloaded.harness.form).to.equal(null);
      await realWait(100);
      expect(reloaded.log.events).to.have.length(0);
      expect(network.urls).to.have.length(0);
      // reset() is the only way to a fresh form, with a fresh key.
      reloaded.el.reset();
      await reloaded.el.updateComplete;
      expect(reloaded.el.state).to.equal('idle');
      expect(sessionStorage.length).to.equal(0);
      network.restore();
    });
  });

  describe('when failed', () => {
    it('is accessible, says why, and "Try again" starts a new attempt with a new key', async () => {
      const { el, harness, log } = await mount({ 'poll-interval': '2000' });
      await harness.fill(DECLINES);
      await harness.pay();
      await harness.waitForState('requires_action');
      // The sandbox's declining payer, answering now rather than after a delay.
      await payerAnswers(String(log.details('pay-created')[0]?.orderId), 'decline');
      await harness.waitForState('failed', 10_000);
      await expect(el).to.be.accessible();
      expect(harness.headingText).to.equal('Payment not completed');
      expect(harness.text).to.contain('You declined the prompt. No money was taken.');
      expect(announced(harness)).to.equal('You declined the prompt. No money was taken.');
      expect(log.details('pay-failed')).to.deep.equal([
        { orderId: log.details('pay-created')[0]?.orderId, paymentStatus: 'failed', failureCode: 'declined' },
      ]);
      const keyBefore = JSON.parse(
        String(sessionStorage.getItem(sessionStorage.key(0) ?? '')),
      ).idempotencyKey;
      harness.button('Try again').click();
      await harness.waitForState('idle');
      expect(harness.control('number').value.replace(/\s/g, '')).to.equal(DECLINES);
      await harness.pay();
      await harness.waitForState('requires_action');
      const keyAfter = JSON.parse(String(sessionStorage.getItem(sessionStorage.key(0) ?? ''))).idempotencyKey;
      expect(keyAfter).to.not.equal(keyBefore);
      expect(log.count('pay-submit')).to.equal(2);
    });

    it('shows the number the way it is read out after "Try again", however it was typed and sent', async () => {
      const { harness, log } = await mount({ 'poll-interval': '2000' });
      await harness.type('customer_name', CUSTOMER_NAME);
      // Typed, then sent with Enter: the field is never left while the form is open.
      const field = harness.control('number');
      field.focus();
      field.value = DECLINES;
      field.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
      harness.form?.requestSubmit();
      await harness.waitForState('requires_action');
      await payerAnswers(String(log.details('pay-created')[0]?.orderId), 'decline');
      await harness.waitForState('failed', 10_000);
      harness.button('Try again').click();
      await harness.waitForState('idle');
      expect(harness.control('number').value).to.equal('024 400 0002');
    });

    it('says what to do when the wallet is short, in English and in French: top up, then try again', async () => {
      for (const locale of ['en', 'fr'] as const) {
        const { el, harness, log, orderId } = await payAndWait(freshNumber(), { locale });
        await payerAnswers(orderId, 'decline', 'insufficient_funds');
        await harness.waitForState('failed', 10_000);
        await expect(el).to.be.accessible();
        const text = locale === 'en' ? EN_STRINGS : FR_STRINGS;
        expect(harness.text).to.contain(text.failedReason('insufficient_funds'));
        expect(harness.text).to.contain(
          locale === 'en' ? 'top up, then try again' : 'rechargez, puis réessayez',
        );
        expect(log.details('pay-failed')[0]?.failureCode).to.equal('insufficient_funds');
        // The next checkout starts afresh: this one's settled attempt stays with it.
        for (const wrapper of mounted.splice(0)) wrapper.remove();
        sessionStorage.clear();
      }
    });

    it('has its own words for a declined prompt, an expired request and a cancelled payment', async () => {
      const declined = await payAndWait(freshNumber(), { locale: 'fr' });
      await payerAnswers(declined.orderId, 'decline');
      await declined.harness.waitForState('failed', 10_000);
      expect(declined.harness.text).to.contain('Vous avez refusé la demande.');
      expect(announced(declined.harness)).to.equal(
        'Vous avez refusé la demande. Aucun argent n’a été prélevé.',
      );
      // The sandbox never expires or cancels a payment: a reload shows such an attempt's screen, as
      // stored; a reason stored by another version of the element that this one has no words for reads as none.
      const settled = [
        { paymentStatus: 'expired', shown: 'The request expired before approval. No money was taken.' },
        { paymentStatus: 'cancelled', shown: 'The payment was cancelled. No money was taken.' },
        {
          paymentStatus: 'failed',
          failureCode: 'phone_stolen',
          shown: 'The payment was declined or failed. No money was taken.',
        },
      ];
      for (const { shown, ...outcome } of settled) {
        sessionStorage.setItem(
          `pay-checkout::${CREATE_URL}`,
          JSON.stringify({
            version: 3,
            phase: 'settled',
            idempotencyKey: crypto.randomUUID(),
            startedAt: Date.now(),
            fired: ['pay-submit', 'pay-created', 'pay-requires-action', 'pay-failed'],
            state: { status: 'failed' },
            orderId: 'or_browser_settled',
            ...outcome,
          }),
        );
        const { harness } = await mount();
        expect(harness.headingText).to.equal(EN_STRINGS.failedTitle);
        expect(harness.text).to.contain(shown);
        for (const wrapper of mounted.splice(0)) wrapper.remove();
      }
    });

    it('stops polling once failed', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { harness, orderId } = await payAndWait(NEVER_ANSWERS);
      await network.settled();
      await payerAnswers(orderId, 'decline');
      await advance(clock, network, 3_000);
      await harness.waitForState('failed');
      const lookups = network.count('/lookup');
      expect(clock.countTimers()).to.equal(0);
      await advance(clock, network, 60_000);
      expect(network.count('/lookup')).to.equal(lookups);
      network.restore();
      clock.restore();
    });
  });

  describe('when timeout', () => {
    it('is accessible, is not a failure, shows the order and checks the same order again', async () => {
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { el, harness, log, orderId } = await payAndWait(NEVER_ANSWERS, { 'poll-timeout': '10000' });
      await network.settled();
      for (let elapsed = 0; elapsed < 10_000; elapsed += 2_500) await advance(clock, network, 2_500);
      await harness.waitForState('timeout');
      await expectAccessible(el, clock);
      expect(harness.headingText).to.equal("We haven't heard back yet");
      expect(harness.shownOrderId).to.equal(orderId);
      expect(harness.text).to.contain('do not pay again');
      expect(announced(harness)).to.equal(EN_STRINGS.timeoutBody);
      expect(log.details('pay-timeout')).to.deep.equal([{ orderId }]);
      // The timeout screen keeps looking the order up by itself: its next lookup is the one timer.
      expect(clock.countTimers()).to.equal(1);
      const creates = network.count('/orders');
      harness.button('Check again').click();
      await network.settled();
      expect(el.state).to.equal('requires_action');
      await payerAnswers(orderId, 'approve');
      await advance(clock, network, 3_000);
      await harness.waitForState('paid');
      expect(network.count('/orders')).to.equal(creates);
      expect(log.count('pay-requires-action')).to.equal(1);
      expect(log.count('pay-paid')).to.equal(1);
      network.restore();
      clock.restore();
    });
  });

  describe('when error', () => {
    it('is accessible, after the automatic retries, and "Try again" reuses the same key', async () => {
      const number = freshNumber();
      await armFaults({ failCreates: 5 });
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const { el, harness, log } = await mount();
      await harness.fill(number);
      await harness.pay();
      for (let retry = 0; retry < 5 && el.state !== 'error'; retry++) await advance(clock, network, 8_000);
      await harness.waitForState('error');
      await expectAccessible(el, clock);
      expect(harness.headingText).to.equal('Something went wrong');
      expect(harness.text).to.contain('you will not be charged twice');
      expect(log.details('pay-error')).to.deep.equal([
        { code: 'service_unavailable', message: 'The gateway failed.', retryable: true },
      ]);
      expect(await createsFor(number)).to.have.length(5);
      harness.button('Try again').click();
      await network.settled();
      await harness.waitForState('requires_action');
      const creates = await createsFor(number);
      expect(creates).to.have.length(6);
      expect(new Set(creates.map((record) => record.idempotencyKey)).size).to.equal(1);
      expect(await ordersFor(number)).to.have.length(1);
      expect(log.count('pay-error')).to.equal(1);
      network.restore();
      clock.restore();
    });

    it('shows the shop’s own words when it refuses the cart, as text, and announces them', async () => {
      const number = freshNumber();
      const { el, harness, log } = await mount({}, (element) => {
        element.cart = { items: [{ sku: SOLD_OUT_SKU, quantity: 1 }] };
      });
      await harness.fill(number);
      harness.submitButton.focus();
      await harness.pay();
      await harness.waitForState('error');
      await expect(el).to.be.accessible();
      expect(harness.text).to.contain(SOLD_OUT_MESSAGE);
      expect(harness.text).not.to.contain('not set up correctly');
      expect(harness.query('b'), 'the message is text, never markup').to.equal(null);
      expect(harness.query('[part="error"]')?.textContent).to.contain(SOLD_OUT_MESSAGE);
      expect(harness.liveRegion.textContent).to.contain(SOLD_OUT_MESSAGE);
      expect(harness.focused).to.equal(harness.heading);
      expect(log.details('pay-error')).to.deep.equal([
        { code: 'cart_rejected', message: SOLD_OUT_MESSAGE, retryable: false },
      ]);
      expect(await ordersFor(number)).to.have.length(0);
    });

    it('pays once the page fixes its cart and the shopper tries again: a new key, one order', async () => {
      const number = freshNumber();
      const { el, harness, log } = await mount({}, (element) => {
        element.cart = { items: [{ sku: SOLD_OUT_SKU, quantity: 1 }] };
      });
      await harness.fill(number);
      await harness.pay();
      await harness.waitForState('error');
      // The page's own cart UI swaps the product; the shopper presses "Try again".
      el.cart = { items: [{ sku: 'green-tote', quantity: 1 }] };
      harness.button('Try again').click();
      await harness.waitForState('requires_action');
      const creates = await createsFor(number);
      expect(creates.map((record) => record.status)).to.deep.equal([400, 200]);
      expect(creates[1]?.idempotencyKey).to.not.equal(creates[0]?.idempotencyKey);
      expect(await ordersFor(number)).to.have.length(1);
      expect(
        log.details('pay-submit').map((detail) => (detail.intent as { cart: unknown }).cart),
      ).to.deep.equal([
        { items: [{ sku: SOLD_OUT_SKU, quantity: 1 }] },
        { items: [{ sku: 'green-tote', quantity: 1 }] },
      ]);
      expect(log.states).to.deep.equal(['idle', 'submitting', 'error', 'submitting', 'requires_action']);
    });

    it('is a configuration error when the relay refuses the lookup token (403), and keeps the order', async () => {
      const { orderId } = await createOrderThroughRelay(NEVER_ANSWERS);
      const { el, harness, log } = await mount();
      el.resume({ orderId, lookupToken: 'not-the-relay-token' });
      await harness.waitForState('error');
      await expect(el).to.be.accessible();
      expect(harness.text).to.contain('Do not pay again');
      expect(harness.shownOrderId).to.equal(orderId);
      expect(log.details('pay-error')).to.have.length(1);
      expect(log.details('pay-error')[0]).to.include({ retryable: false });
      expect(harness.button('Check again')).to.exist;
    });

    it('resumes an order created elsewhere with resume(), and rejects a malformed one', async () => {
      const { orderId, lookupToken } = await createOrderThroughRelay(NEVER_ANSWERS);
      const { el, harness, log } = await mount();
      expect(() => el.resume({ orderId: 'nope', lookupToken })).to.throw(TypeError);
      el.resume({ orderId, lookupToken });
      await harness.waitForState('requires_action');
      await payerAnswers(orderId, 'approve');
      // Real timers here: the next lookup comes within poll-interval (3 s).
      await harness.waitForState('paid', 8_000);
      expect(log.details('pay-paid')[0]?.orderId).to.equal(orderId);
    });
  });

  describe('across a reload (persist="session")', () => {
    it('resumes polling the same order instead of showing an empty form', async () => {
      const first = await payAndWait(NEVER_ANSWERS);
      first.el.remove();
      const network = new NetworkWatch();
      const reloaded = await mount();
      expect(reloaded.el.state).to.equal('requires_action');
      // The screen still says where the prompt went.
      expect(reloaded.harness.text).to.contain(
        `We sent a payment request to ${formatLocalNumber(NEVER_ANSWERS)} (MTN).`,
      );
      await network.settled();
      expect(network.count('/lookup')).to.equal(1);
      expect(network.count('/orders')).to.equal(0);
      await payerAnswers(first.orderId, 'approve');
      await reloaded.harness.waitForState('paid', 8_000);
      expect(reloaded.log.details('pay-paid')[0]?.orderId).to.equal(first.orderId);
      expect(reloaded.log.count('pay-requires-action')).to.equal(0);
      network.restore();
    });

    it('resends an unanswered create with the same key after a reload: one order', async () => {
      const number = freshNumber();
      await armFaults({ failCreates: 1 });
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const network = new NetworkWatch();
      const first = await mount();
      await first.harness.fill(number);
      await first.harness.pay();
      await network.settled();
      expect(first.el.state).to.equal('submitting');
      first.el.remove();
      clock.restore();
      const reloaded = await mount();
      // While it sends again, the form shows what is sent, not an empty form.
      expect(reloaded.el.state).to.equal('submitting');
      expect(reloaded.harness.control('customer_name').value).to.equal(CUSTOMER_NAME);
      expect(reloaded.harness.control('number').value.replace(/\s/g, '')).to.equal(number);
      await reloaded.harness.waitForState('requires_action');
      const creates = await createsFor(number);
      expect(creates.map((record) => record.status)).to.deep.equal([503, 200]);
      expect(creates[1]?.idempotencyKey).to.equal(creates[0]?.idempotencyKey);
      expect(await ordersFor(number)).to.have.length(1);
      expect(reloaded.log.count('pay-submit')).to.equal(0);
      expect(reloaded.log.count('pay-created')).to.equal(1);
      network.restore();
    });

    it('keeps nothing with persist="none"', async () => {
      const { harness } = await mount({ persist: 'none' });
      await harness.fill(freshNumber());
      await harness.pay();
      await harness.waitForState('requires_action');
      expect(sessionStorage.length).to.equal(0);
    });
  });

  describe('the cart-json attribute', () => {
    const TOTE = { items: [{ product_id: 'kente-tote', quantity: 1 }] };
    const TWO_TOTES = { items: [{ product_id: 'kente-tote', quantity: 2 }] };

    /** Fills and submits; a pay-submit listener cancels, so the cart the create would send is read, not sent. */
    async function cartSent({ el, harness, log }: Mounted): Promise<unknown> {
      el.addEventListener('pay-submit', (event) => event.preventDefault());
      await harness.fill(freshNumber());
      await harness.pay();
      await eventually('pay-submit', () => log.count('pay-submit') === 1, { timeoutMs: STATE_WAIT_MS });
      const [submitted] = log.details('pay-submit');
      return (submitted?.intent as { cart: unknown } | undefined)?.cart;
    }

    it('sends the cart that server-rendered HTML holds as JSON text', async () => {
      const wrapper = document.createElement('div');
      // As a server renders it: the attribute is in the markup before the element upgrades.
      wrapper.innerHTML = `<pay-checkout create-url="${CREATE_URL}" lookup-url="${LOOKUP_URL}" amount="5000"
        cart-json="${JSON.stringify(TOTE).replaceAll('"', '&quot;')}"></pay-checkout>`;
      document.body.append(wrapper);
      mounted.push(wrapper);
      const el = wrapper.querySelector('pay-checkout') as PayCheckout;
      await el.updateComplete;
      expect(el.cart).to.deep.equal(TOTE);
      expect(
        await cartSent({ el, harness: new PayCheckoutHarness(el), log: new EventLog(el) }),
      ).to.deep.equal(TOTE);
    });

    it('takes the last write: a property after the attribute, an attribute changed after the property', async () => {
      const checkout = await mount({ 'cart-json': JSON.stringify(TOTE) });
      const { el } = checkout;
      el.cart = TWO_TOTES;
      expect(el.cart).to.deep.equal(TWO_TOTES);
      expect(el.getAttribute('cart-json')).to.equal(JSON.stringify(TOTE), 'the property does not rewrite it');
      el.setAttribute('cart-json', JSON.stringify(TOTE));
      expect(el.cart).to.deep.equal(TOTE);
      el.cart = TWO_TOTES;
      expect(await cartSent(checkout)).to.deep.equal(TWO_TOTES);
      el.removeAttribute('cart-json');
      expect(el.cart).to.equal(null);
    });

    it('keeps a cart the page set before the tag was defined over the attribute in the markup', async () => {
      // The markup was parsed first, the page's script ran next, the element's module last.
      const tag = 'pay-checkout-defined-late';
      const wrapper = document.createElement('div');
      wrapper.innerHTML = `<${tag} cart-json="${JSON.stringify(TOTE).replaceAll('"', '&quot;')}"></${tag}>`;
      document.body.append(wrapper);
      mounted.push(wrapper);
      const el = wrapper.firstElementChild as PayCheckout;
      el.cart = TWO_TOTES;
      customElements.define(tag, class extends (customElements.get('pay-checkout') as typeof PayCheckout) {});
      await el.updateComplete;
      expect(el.cart).to.deep.equal(TWO_TOTES);
    });

    it('is no property name: frameworks that prefer properties set it as an attribute', async () => {
      const { el } = await mount();
      // React 19, Preact, Vue and Svelte write a prop as a property when `name in element`.
      expect('cart-json' in el).to.equal(false);
      expect('cart' in el).to.equal(true);
    });

    it('refuses a cart-json that is not JSON: the configuration error, one pay-error, nothing sent', async () => {
      const network = new NetworkWatch();
      const { el, harness, log } = await mount({ 'cart-json': "{ items: ['tote' }" });
      expect(el.state).to.equal('error');
      await expect(el).to.be.accessible();
      expect(harness.text).to.contain('This checkout is not set up correctly.');
      expect(harness.form).to.equal(null);
      await el.submit();
      el.reset();
      await el.updateComplete;
      expect(el.state).to.equal('error', 'reset() finds the same broken attribute');
      expect(log.details('pay-error')).to.deep.equal([
        { code: 'invalid_cart', message: 'cart (or cart-json) is not JSON.', retryable: false },
      ]);
      expect(network.urls).to.have.length(0);
      network.restore();
    });

    it('works again after reset() once the page fixes the attribute', async () => {
      const { el, harness } = await mount({ 'cart-json': 'not json' });
      expect(el.state).to.equal('error');
      el.setAttribute('cart-json', JSON.stringify(TOTE));
      el.reset();
      await el.updateComplete;
      expect(el.state).to.equal('idle');
      expect(harness.form).to.not.equal(null);
    });
  });

  describe('the secret-key guard', () => {
    it('refuses to work with a key in an attribute, says so once, and sends nothing', async () => {
      const network = new NetworkWatch();
      const { el, harness, log } = await mount({ 'data-key': 'sk_live_0123456789' });
      expect(el.state).to.equal('error');
      await expect(el).to.be.accessible();
      expect(harness.text).to.contain('This checkout is not set up correctly.');
      expect(harness.text).to.not.contain('sk_live_');
      expect(harness.form).to.equal(null);
      await el.submit();
      el.reset();
      await el.updateComplete;
      expect(el.state).to.equal('error');
      expect(log.details('pay-error')).to.have.length(1);
      expect(log.details('pay-error')[0]).to.include({ code: 'secret_key_exposed', retryable: false });
      expect(String(log.details('pay-error')[0]?.message)).to.not.contain('sk_live_0123');
      expect(network.urls).to.have.length(0);
      network.restore();
    });

    it('refuses a key set later as a property, deep in the cart', async () => {
      const { el, harness, log } = await mount();
      await harness.fill(freshNumber());
      el.cart = { items: [{ sku: 'tote', note: 'sk_test_abc' }] };
      await el.updateComplete;
      await el.updateComplete;
      expect(el.state).to.equal('error');
      expect(log.count('pay-error')).to.equal(1);
    });
  });

  describe('in French', () => {
    it('waits for its French texts rather than flashing English', async () => {
      // The first French checkout of the page: its texts are still to be fetched.
      const el = document.createElement('pay-checkout');
      el.setAttribute('create-url', CREATE_URL);
      el.setAttribute('lookup-url', LOOKUP_URL);
      el.setAttribute('locale', 'fr');
      document.body.append(el);
      mounted.push(el);
      const shown: string[] = [];
      const root = el.shadowRoot as ShadowRoot;
      new MutationObserver(() => shown.push(root.textContent ?? '')).observe(root, {
        childList: true,
        subtree: true,
        characterData: true,
      });
      await el.updateComplete;
      await new Promise((resolve) => setTimeout(resolve));
      expect(shown.join('|')).to.contain('Payer par mobile money');
      expect(shown.join('|')).not.to.contain(EN_STRINGS.formTitle);

      // An English checkout switched to French follows at once.
      const english = await mount();
      expect(english.harness.headingText).to.equal(EN_STRINGS.formTitle);
      english.el.locale = 'fr';
      await english.el.updateComplete;
      expect(english.harness.headingText).to.equal('Payer par mobile money');
    });

    it('speaks French with locale="fr", from the nearest lang, and takes overridden strings', async () => {
      const { el, harness } = await mount({ locale: 'fr' });
      await expect(el).to.be.accessible();
      expect(harness.submitButton.textContent?.replace(/\s+/g, ' ').trim()).to.equal('Payer 50,00 GH₵');
      expect(harness.text).to.contain('Numéro mobile money');
      await harness.pay();
      expect(harness.fieldError('customer_name')).to.equal('Saisissez votre nom.');

      const section = document.createElement('section');
      section.lang = 'fr-CI';
      document.body.append(section);
      mounted.push(section);
      const inherited = await mount({}, undefined, section);
      expect(inherited.harness.text).to.contain('Payer par mobile money');

      const overridden = await mount({ locale: 'fr' }, (element) => {
        element.strings = { formTitle: 'Réglez votre panier' };
      });
      expect(overridden.harness.headingText).to.equal('Réglez votre panier');
      expect(overridden.harness.text).to.contain('Votre nom');
    });
  });

  describe('under a strict CSP', () => {
    it('pays with no policy violation, where eval and string HTML are blocked', async () => {
      const frame = document.createElement('iframe');
      frame.src = '/test-server/csp';
      frame.style.width = '360px';
      frame.style.height = '640px';
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
      document.body.append(frame);
      mounted.push(frame);
      await loaded;
      const win = frame.contentWindow as Window & typeof globalThis & { cspViolations: unknown[] };
      await eventually('the embed to register', () => win.customElements.get('pay-checkout') !== undefined, {
        timeoutMs: 15_000,
      });
      const el = win.document.querySelector('pay-checkout') as PayCheckout;
      el.pollInterval = 2_000;
      const harness = new PayCheckoutHarness(el);
      await el.updateComplete;
      const number = freshNumber();
      await harness.fill(number);
      await harness.pay();
      await harness.waitForState('requires_action');
      await payerAnswers(await orderFor(number), 'approve');
      await harness.waitForState('paid', 10_000);
      expect(win.cspViolations).to.deep.equal([]);
      // The policy is really enforced, and the probe really listens.
      expect(() => win.eval('1')).to.throw();
      expect(() => {
        win.document.body.innerHTML = '<b>x</b>';
      }).to.throw();
      await eventually('the probe to see the eval', () => win.cspViolations.length > 0, {
        timeoutMs: STATE_WAIT_MS,
      });
    });
  });
});
