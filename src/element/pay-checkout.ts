/**
 * Registers `<pay-checkout>`. Guarded, so loading the element twice (the
 * embed bundle and the npm module on one page) or in Node, where there is no
 * `customElements`, does not throw.
 */
import { PayCheckout } from './pay-checkout.component.js';

export { PayCheckout };
export default PayCheckout;

if (typeof customElements !== 'undefined' && !customElements.get('pay-checkout')) {
  customElements.define('pay-checkout', PayCheckout);
}

declare global {
  interface HTMLElementTagNameMap {
    'pay-checkout': PayCheckout;
  }
}
