/**
 * `<pay-checkout>`'s form keeps still under the shopper's pointer: a message
 * shown as they leave a field (a wrong number, an emptied name) never moves
 * the Pay button, so the click they were making on it is not lost. Measured
 * at a phone's width and a desktop's, in English and French.
 */
import { expect } from '@open-wc/testing';
import { sendMouse } from '@web/test-runner-commands';
import { EN_STRINGS, type PayCheckout } from '../../src/index.js';
import { PayCheckoutHarness } from './pay-checkout-harness.js';

const mounted: HTMLElement[] = [];

afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.remove();
  sessionStorage.clear();
});

/** A checkout in a column `width` px wide, speaking `locale`. */
async function mount(
  width: number,
  locale = 'en',
): Promise<{ el: PayCheckout; harness: PayCheckoutHarness }> {
  const wrapper = document.createElement('div');
  wrapper.style.width = `${width}px`;
  const el = document.createElement('pay-checkout');
  for (const [name, value] of Object.entries({
    'create-url': '/api/checkout/orders',
    'lookup-url': '/api/checkout/lookup',
    amount: '5000',
    locale,
    persist: 'none',
  })) {
    el.setAttribute(name, value);
  }
  wrapper.append(el);
  document.body.prepend(wrapper);
  mounted.push(wrapper);
  await el.updateComplete;
  return { el, harness: new PayCheckoutHarness(el) };
}

/** Types `value` into a field as a shopper does, staying in it. */
async function typeInto(
  el: PayCheckout,
  harness: PayCheckoutHarness,
  name: 'customer_name' | 'number',
  value: string,
): Promise<void> {
  const control = harness.control(name) as HTMLInputElement;
  control.focus();
  control.value = value;
  control.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true }));
  await el.updateComplete;
}

describe('<pay-checkout>: a message shown on leaving a field never moves the Pay button', () => {
  for (const width of [320, 480]) {
    for (const locale of ['en', 'fr']) {
      it(`keeps the button still at ${width} px in ${locale}: a wrong number, then an emptied name`, async () => {
        const { el, harness } = await mount(width, locale);
        const top = () => harness.submitButton.getBoundingClientRect().top;
        const before = top();
        await typeInto(el, harness, 'number', '12345');
        (harness.control('number') as HTMLInputElement).blur();
        await el.updateComplete;
        expect(harness.fieldError('number')).to.not.equal('', 'the error is shown');
        expect(top()).to.equal(before, 'a wrong number');
        await typeInto(el, harness, 'customer_name', 'Ama');
        await typeInto(el, harness, 'customer_name', '');
        (harness.control('customer_name') as HTMLInputElement).blur();
        await el.updateComplete;
        expect(harness.fieldError('customer_name')).to.not.equal('');
        expect(top()).to.equal(before, 'an emptied name');
        await expect(el).to.be.accessible();
      });
    }
  }

  it('takes the first click on Pay after a wrong number: the form is checked and the number focused', async () => {
    const { el, harness } = await mount(360);
    await typeInto(el, harness, 'customer_name', 'Ama Mensah');
    await typeInto(el, harness, 'number', '12345');
    const box = harness.submitButton.getBoundingClientRect();
    const position: [number, number] = [
      Math.round(box.x + box.width / 2),
      Math.round(box.y + box.height / 2),
    ];
    await sendMouse({ type: 'move', position });
    await sendMouse({ type: 'down' });
    await sendMouse({ type: 'up' });
    await el.updateComplete;
    // The click reached Pay: its check focuses the field to fix, which the blur alone never does.
    expect(harness.focused).to.equal(harness.control('number'));
    expect(harness.fieldError('number')).to.equal(EN_STRINGS.numberInvalid);
    await sendMouse({ type: 'move', position: [0, 0] });
  });
});
