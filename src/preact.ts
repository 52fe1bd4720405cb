/**
 * `pay-checkout/preact`: types only (its JavaScript is empty). Lets
 * `<pay-checkout create-url="…" lookup-url="…" amount={5000}
 * onpay-paid={…}>` type-check in Preact JSX. Add it once: `import type {} from
 * 'pay-checkout/preact'` in any file, or `"pay-checkout/preact"` in tsconfig's
 * `types`. It names Preact alone, so a Preact app needs no React types.
 */

// Loads Preact's types while this file compiles, so the augmentation has a target; the declaration
// output drops this empty import.
import type {} from 'preact';
import type { PayCheckoutAttributes, PayCheckoutEventListeners } from './element/markup-types.js';
import type { PayCheckout } from './element/pay-checkout.js';

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      // Preact, like React 19, adds a listener for the name after `on`, as written.
      'pay-checkout': import('preact').HTMLAttributes<PayCheckout> &
        PayCheckoutAttributes &
        PayCheckoutEventListeners<'on'>;
    }
  }
}
